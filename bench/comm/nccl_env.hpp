// The NCCL_* variables a campaign's variant may set, and the values NCCL accepts for each one
// with a fixed form, so that a misspelt NCCL_ALGO is bad input (exit 2, nothing run) rather
// than a NCCL warning, or a silent fallback, in the middle of a run. Pure: no NCCL needed.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace preflight::comm {

// What a bad variable should have been and what it was, for ConfigNode::fail.
struct EnvProblem {
  std::string expected;
  std::string found;
};

// nullopt when NCCL takes `value` for `name`. A name outside the known list passes (NCCL has
// many), unless it is one or two letters away from a known name: then it is a misspelling.
std::optional<EnvProblem> check_nccl_variable(const std::string& name, const std::string& value);

// The variables check_nccl_variable knows the form of.
std::vector<std::string> known_nccl_variables();

}  // namespace preflight::comm
