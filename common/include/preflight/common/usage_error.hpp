#pragma once

#include <stdexcept>
#include <string>

namespace preflight {

// Bad input from the user: the message names the field, what was expected and what was
// found. main() turns it into exit code 2 before anything runs.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace preflight
