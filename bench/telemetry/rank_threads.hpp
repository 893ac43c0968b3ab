// How many threads a rank of a compute family runs, so that ranks on one host do not
// oversubscribe it: a rank bound to some CPUs (mpirun --bind-to) keeps those; an unbound one
// takes the host's CPUs divided among the ranks on the host (virtual nodes do not count: the
// host is the machine the ranks share).
#pragma once

#include "harness/rank_context.hpp"

namespace preflight::telemetry {
int rank_threads(const RankContext& ctx);
}  // namespace preflight::telemetry
