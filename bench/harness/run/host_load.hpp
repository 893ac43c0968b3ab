// How much of each host's CPU went to others while a case ran: time the hypervisor gave to other
// machines (steal) and time other processes used. A figure measured on a contended host is slower
// for a reason no change under test caused, so the file records it per case and the report
// withholds run-to-run verdicts where the compared runs were not measured in the same state.
// Linux only (/proc/stat); where it cannot be read the shares are NaN: not measured.
#pragma once

#include <limits>
#include <optional>
#include <string_view>
#include <vector>

#include "harness/run/rank_context.hpp"

namespace preflight {

// The host-wide CPU times of /proc/stat's first line, in seconds.
struct CpuTimes {
  double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  double total() const { return user + nice + system + idle + iowait + irq + softirq + steal; }
  double user_mode() const { return user + nice; }  // tasks' time outside the kernel
};
// The times spent between two readings, field by field.
CpuTimes operator-(const CpuTimes& after, const CpuTimes& before);

// `line`: the "cpu ..." line of /proc/stat; ticks_per_second: sysconf(_SC_CLK_TCK).
std::optional<CpuTimes> parse_cpu_line(std::string_view line, double ticks_per_second);

// Shares of one host's CPU time over a window, from /proc/stat before and after it and the
// user-mode CPU seconds preflight's own ranks on that host used in it. NaN when the window holds
// less than kMinWindowCpuSeconds of the host's CPU time: /proc/stat counts in ticks (10 ms), so
// a shorter window's shares are mostly rounding.
inline constexpr double kMinWindowCpuSeconds = 0.5;
struct HostLoad {
  // Share the hypervisor gave to other machines; NaN: not measured.
  double stolen = std::numeric_limits<double>::quiet_NaN();
  // Share used in user mode by processes other than preflight's ranks; a short window's can be
  // a little below zero (ticks against microseconds), which pooling over a run cancels.
  double foreign = std::numeric_limits<double>::quiet_NaN();
  double cpu_s = 0;  // the host's CPU time in the window (cores x wall), the shares' weight
};
HostLoad host_load(const CpuTimes& before, const CpuTimes& after, double own_user_s);

// Which ranks share a kernel, and so one /proc/stat: by the kernel's boot id, which emulated
// hosts (network and UTS namespaces of one machine) share although their host names differ.
// Where a rank cannot read it, nothing is measured. Collective over ctx.world; once per run.
struct KernelGroups {
  std::vector<int> kernel_of_rank;  // world rank -> index of its kernel; empty: not measured
  bool reads_stat = false;          // this rank is the lowest on its kernel: it reads /proc/stat
  bool measured() const { return !kernel_of_rank.empty(); }
};
KernelGroups kernel_groups(const RankContext& ctx);

// Measures every kernel's host over a window: construct on every rank at its start, finish() on
// every rank at its end (both collective over ctx.world, each after a barrier, outside every
// timed region). Rank 0 gets the shares of the host others took the most from (stolen and
// foreign together); NaN shares where /proc/stat or a boot id could not be read.
class HostLoadMeter {
 public:
  HostLoadMeter(const RankContext& ctx, const KernelGroups& groups);
  HostLoad finish(const RankContext& ctx) const;

 private:
  const KernelGroups& groups_;
  std::optional<CpuTimes> host_before_;
  double own_before_ = 0;
};

}  // namespace preflight
