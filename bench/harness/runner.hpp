// Runs cases: warm-up, correctness check, per-iteration and back-to-back timing on every
// rank, gathering to rank 0, statistics, and handing results to the sinks.
#pragma once

#include <memory>
#include <vector>

#include "harness/case.hpp"
#include "harness/rank_context.hpp"
#include "harness/record.hpp"
#include "harness/sink.hpp"
#include "harness/timing.hpp"

namespace preflight {

// Collective over ctx.world. On rank 0 the result holds every rank's samples and statistics;
// elsewhere only this rank's part.
PointResult run_point(Case& c, std::size_t point, const RankContext& ctx,
                      const TimingOptions& options);

// Runs every case in order and returns preflight's exit code (every rank returns the same).
int run_cases(std::vector<std::unique_ptr<Case>>& cases, const RankContext& ctx,
              const TimingOptions& options, const std::vector<ResultSink*>& sinks);

}  // namespace preflight
