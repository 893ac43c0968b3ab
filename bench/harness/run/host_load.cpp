#include "harness/run/host_load.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "harness/run/idle_wait.hpp"
#include "preflight/common/stats.hpp"

namespace preflight {
namespace {

// What a rank sends rank 0 at the end of a window; doubles only, so it travels as MPI_DOUBLE.
struct WindowReport {
  double own_user_s = 0;  // this rank's user-mode CPU seconds (all its threads)
  double host_read = 0;   // 1: host_delta holds the host's /proc/stat times over the window
  CpuTimes host_delta;
};
static_assert(sizeof(WindowReport) == 10 * sizeof(double));

// This rank's user-mode CPU seconds, all its threads.
double own_user_seconds() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return kNaN;
  return static_cast<double>(usage.ru_utime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec) * 1e-6;
}

std::optional<CpuTimes> read_host_cpu() {
  std::ifstream in("/proc/stat");
  std::string line;
  if (!std::getline(in, line)) return std::nullopt;
  return parse_cpu_line(line, static_cast<double>(sysconf(_SC_CLK_TCK)));
}

// The kernel's boot id; empty where it cannot be read.
std::string kernel_identity() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  return std::getline(in, id) ? id : std::string();
}

}  // namespace

std::optional<CpuTimes> parse_cpu_line(std::string_view line, double ticks_per_second) {
  if (!line.starts_with("cpu ") || !(ticks_per_second > 0)) return std::nullopt;
  std::array<double, 8> fields{};
  const char* p = line.data() + 4;
  const char* end = line.data() + line.size();
  for (double& field : fields) {
    while (p < end && *p == ' ') ++p;
    unsigned long long ticks = 0;
    const auto [next, error] = std::from_chars(p, end, ticks);
    if (error != std::errc()) return std::nullopt;  // a kernel too old to report steal
    field = static_cast<double>(ticks) / ticks_per_second;
    p = next;
  }
  const auto [user, nice, system, idle, iowait, irq, softirq, steal] = fields;
  return CpuTimes{user, nice, system, idle, iowait, irq, softirq, steal};
}

CpuTimes operator-(const CpuTimes& a, const CpuTimes& b) {
  return {a.user - b.user,     a.nice - b.nice, a.system - b.system,   a.idle - b.idle,
          a.iowait - b.iowait, a.irq - b.irq,   a.softirq - b.softirq, a.steal - b.steal};
}

HostLoad host_load(const CpuTimes& before, const CpuTimes& after, double own_user_s) {
  HostLoad load;
  load.cpu_s = std::max(0.0, after.total() - before.total());
  if (!(load.cpu_s >= kMinWindowCpuSeconds)) return load;
  load.stolen = std::max(0.0, after.steal - before.steal) / load.cpu_s;
  // User time only: the kernel's own work for preflight (io_uring workers, block I/O, page
  // cache eviction, network stacks) runs in kernel threads outside the ranks' accounting and
  // is no competitor. /proc/stat counts in ticks and getrusage in microseconds, so a short
  // window's share is off by a tick or two either way, below zero too: kept signed, so that
  // the errors cancel when a run's cases are pooled instead of adding up.
  load.foreign = std::isfinite(own_user_s)
                     ? (after.user_mode() - before.user_mode() - own_user_s) / load.cpu_s
                     : kNaN;
  return load;
}

KernelGroups kernel_groups(const RankContext& ctx) {
  constexpr int kWidth = 64;  // a boot id is 36 characters
  std::string mine = kernel_identity();
  mine.resize(kWidth, '\0');
  std::string all(static_cast<std::size_t>(kWidth * ctx.size), '\0');
  MPI_Allgather(mine.data(), kWidth, MPI_CHAR, all.data(), kWidth, MPI_CHAR, ctx.world);
  KernelGroups groups;
  std::vector<std::string> seen;
  for (int r = 0; r < ctx.size; ++r) {
    const auto id = all.substr(static_cast<std::size_t>(r * kWidth), kWidth);
    // Without every rank's kernel, a rank's peers on its kernel would count as others.
    if (id.front() == '\0') return KernelGroups{};
    auto it = std::find(seen.begin(), seen.end(), id);
    const bool first = it == seen.end();
    if (first) it = seen.insert(seen.end(), id);
    if (r == ctx.rank) groups.reads_stat = first;
    groups.kernel_of_rank.push_back(static_cast<int>(it - seen.begin()));
  }
  return groups;
}

HostLoadMeter::HostLoadMeter(const RankContext& ctx, const KernelGroups& groups) : groups_(groups) {
  if (!groups_.measured()) return;
  MPI_Barrier(ctx.world);  // every host's window starts and ends with the case's ranks
  own_before_ = own_user_seconds();
  if (groups_.reads_stat) host_before_ = read_host_cpu();
}

HostLoad HostLoadMeter::finish(const RankContext& ctx) const {
  if (!groups_.measured()) return {};
  idle_barrier(ctx.world);  // rank 0 may still be writing the case's last point
  WindowReport mine;
  mine.own_user_s = own_user_seconds() - own_before_;
  if (groups_.reads_stat)
    if (const auto after = read_host_cpu(); after && host_before_) {
      mine.host_read = 1;
      mine.host_delta = *after - *host_before_;
    }
  constexpr int kFields = sizeof(WindowReport) / sizeof(double);
  std::vector<WindowReport> all(ctx.is_root() ? static_cast<std::size_t>(ctx.size) : 0);
  MPI_Gather(&mine, kFields, MPI_DOUBLE, all.data(), kFields, MPI_DOUBLE, 0, ctx.world);
  HostLoad worst;
  if (!ctx.is_root()) return worst;
  for (std::size_t r = 0; r < all.size(); ++r) {
    if (all[r].host_read == 0) continue;
    double own = 0;
    for (std::size_t q = 0; q < all.size(); ++q)
      if (groups_.kernel_of_rank[q] == groups_.kernel_of_rank[r]) own += all[q].own_user_s;
    const HostLoad one = host_load(CpuTimes{}, all[r].host_delta, own);
    const bool measured = !std::isnan(one.stolen) && !std::isnan(one.foreign);
    // The host others took the most from, both its shares together; a window too short for
    // shares still says how much CPU time it held.
    if (measured &&
        (std::isnan(worst.stolen) || one.stolen + one.foreign > worst.stolen + worst.foreign))
      worst = one;
    else if (std::isnan(worst.stolen))
      worst.cpu_s = std::max(worst.cpu_s, one.cpu_s);
  }
  return worst;
}

}  // namespace preflight
