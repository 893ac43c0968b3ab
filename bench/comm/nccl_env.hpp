// The NCCL_* variables a campaign's variant may set, and the values NCCL accepts for each one
// with a fixed form, so that a misspelt NCCL_ALGO is bad input (exit 2, nothing run) rather
// than a NCCL warning, or a silent fallback, in the middle of a run. Pure: no NCCL needed.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/config/config_node.hpp"

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

// When NCCL reads a variable (NCCL 2.28.9's source: src/misc/param.cc caches every NCCL_PARAM at
// its first read, for the life of the process; a few are read with ncclGetEnv at every
// communicator's init).
enum class NcclScope {
  kPerCommunicator,  // read at every communicator's init: a variant may change it
  kConfigField,      // has an ncclConfig_t field: preflight passes the variant's value in it
  kPerProcess,       // read once per process: a variant cannot change it
};
// Unknown names are kPerProcess: that is how NCCL reads its parameters.
NcclScope nccl_scope(std::string_view name);

// The ncclConfig_t fields a variant may set through their variables, by variable name, in the
// order NcclConfigValues lists them.
struct NcclConfigField {
  std::string_view variable;  // NCCL_MIN_CTAS
  std::string_view field;     // minCTAs
};
const std::vector<NcclConfigField>& nccl_config_fields();

// A variable NCCL reads once per process that does not hold the same value in every variant
// (unset counts as a value): the campaign is refused, as later variants would silently run with
// the first one's value.
struct VariantConflict {
  std::string variable;
  std::size_t variant = 0;  // the first variant whose value differs from variant 0's
  std::optional<std::string> value, first_value;  // nullopt: unset
};
std::optional<VariantConflict> per_process_conflict(
    const std::vector<std::map<std::string, std::string>>& variant_envs);
// The message of a conflict: what was expected (for ConfigNode::fail) and what was found.
EnvProblem describe_conflict(const VariantConflict& c, const std::vector<std::string>& names);

// Refuses (UsageError at variants[i].env.NAME, or at variants[i] where it is unset) a campaign
// whose variants give a per-process NCCL variable different values. For every family that runs
// NCCL (comm, step).
void check_nccl_variants(const std::vector<ConfigNode>& variants);

// "" when registration `window` can run on the NCCL whose version code is `version`
// (ncclGetVersion: 22809 for 2.28.9); else why not.
std::string window_registration_problem(int version);

}  // namespace preflight::comm
