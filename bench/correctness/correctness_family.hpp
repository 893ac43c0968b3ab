#pragma once

#include <memory>

#include "harness/run/family.hpp"

namespace preflight::correctness {
std::unique_ptr<Family> make_correctness_family();
}
