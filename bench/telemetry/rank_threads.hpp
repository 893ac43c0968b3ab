// How many threads a rank of a compute family runs, so that ranks on one host do not
// oversubscribe it: a rank bound to some CPUs (mpirun --bind-to) keeps those; an unbound one
// takes the host's CPUs divided among the ranks on the host (virtual nodes do not count: the
// host is the machine the ranks share).
#pragma once

#include "harness/run/rank_context.hpp"

namespace preflight::telemetry {
int rank_threads(const RankContext& ctx);

// The threads a rank runs: `asked` (a family's threads option), or rank_threads where it is 0.
// Where more are asked than the CPUs the rank is bound to, rank 0 warns (if it is one of them):
// mpirun binds each rank to one core by default with 2 ranks or fewer, and N threads then share
// that core, an honest figure of something nobody meant to measure.
int chosen_threads(const RankContext& ctx, int asked);
}  // namespace preflight::telemetry
