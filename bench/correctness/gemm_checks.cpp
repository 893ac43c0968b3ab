#include "correctness/gemm_checks.hpp"

namespace preflight::correctness {

void check_gemm_config(const ConfigNode& /*entry*/, CorrectnessConfig& /*config*/) {}

// To be written (issue 37): the GEMM determinism cases.
std::vector<std::unique_ptr<Case>> make_gemm_checks(const CorrectnessConfig& /*config*/,
                                                    const RankContext& /*ctx*/) {
  return {};
}

std::vector<std::string> skipped_gemm_checks(const CorrectnessConfig& /*config*/,
                                             const RankContext& /*ctx*/) {
  return {};
}

}  // namespace preflight::correctness
