#include "telemetry/rank_threads.hpp"

#include <fmt/format.h>
#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <thread>

namespace preflight::telemetry {
namespace {

int bound_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  return sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;
}

}  // namespace

int chosen_threads(const RankContext& ctx, int asked) {
  if (asked <= 0) return rank_threads(ctx);
  const int bound = bound_cpus();
  if (ctx.is_root() && asked > bound)
    fmt::print(stderr,
               "preflight: warning: threads {} on rank 0, which is bound to {} CPU{}: the "
               "threads share {}; run mpirun with --bind-to none, or --map-by slot:PE={} to "
               "bind each rank to {} cores\n",
               asked, bound, bound == 1 ? "" : "s", bound == 1 ? "it" : "them", asked, asked);
  return asked;
}

int rank_threads(const RankContext& ctx) {
  const int mine = bound_cpus();
  const int online = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  if (mine < online) return std::max(1, mine);
  const auto on_host = std::count(ctx.host_of_rank.begin(), ctx.host_of_rank.end(), ctx.host);
  return std::max(1, online / static_cast<int>(std::max<std::ptrdiff_t>(1, on_host)));
}

}  // namespace preflight::telemetry
