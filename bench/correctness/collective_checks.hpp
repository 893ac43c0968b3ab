// The collective correctness sweep's cases (docs/correctness.md): one per collective, algorithm
// (and protocol) and dtype, its points the sizes.
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
void check_collective_config(const ConfigNode& entry, CorrectnessConfig& config);

// Collective over ctx.world: every rank makes the same cases.
std::vector<std::unique_ptr<Case>> make_collective_checks(const CorrectnessConfig& config,
                                                          const RankContext& ctx);
// What make_collective_checks leaves out and why, one line each.
std::vector<std::string> skipped_collective_checks(const CorrectnessConfig& config,
                                                   const RankContext& ctx);

}  // namespace preflight::correctness
