// The GEMM determinism check's cases (docs/correctness.md): one per dtype, its points the shapes.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "correctness/correctness_config.hpp"
#include "harness/config/config_node.hpp"
#include "harness/run/case.hpp"
#include "harness/run/rank_context.hpp"

namespace preflight::correctness {

// The rules between its keys, after the option table has read them (shapes parsed, backend
// and dtypes that go together); throws UsageError at the key.
void check_gemm_config(const ConfigNode& entry, CorrectnessConfig& config);

// Collective over ctx.world: every rank makes the same cases.
std::vector<std::unique_ptr<Case>> make_gemm_checks(const CorrectnessConfig& config,
                                                    const RankContext& ctx);
// What make_gemm_checks leaves out and why, one line each.
std::vector<std::string> skipped_gemm_checks(const CorrectnessConfig& config,
                                             const RankContext& ctx);

}  // namespace preflight::correctness
