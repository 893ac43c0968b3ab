#include "telemetry/rank_threads.hpp"

#include <sched.h>

#include <algorithm>
#include <thread>

namespace preflight::telemetry {

int rank_threads(const RankContext& ctx) {
  cpu_set_t set;
  CPU_ZERO(&set);
  const int mine = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;
  const int online = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  if (mine < online) return std::max(1, mine);
  const auto on_host = std::count(ctx.host_of_rank.begin(), ctx.host_of_rank.end(), ctx.host);
  return std::max(1, online / static_cast<int>(std::max<std::ptrdiff_t>(1, on_host)));
}

}  // namespace preflight::telemetry
