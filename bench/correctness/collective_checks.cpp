#include "correctness/collective_checks.hpp"

namespace preflight::correctness {

void check_collective_config(const ConfigNode& /*entry*/, CorrectnessConfig& /*config*/) {}

// To be written (issue 37): the collective sweep cases.
std::vector<std::unique_ptr<Case>> make_collective_checks(const CorrectnessConfig& /*config*/,
                                                          const RankContext& /*ctx*/) {
  return {};
}

std::vector<std::string> skipped_collective_checks(const CorrectnessConfig& /*config*/,
                                                   const RankContext& /*ctx*/) {
  return {};
}

}  // namespace preflight::correctness
