// Whether runs were measured in the same host state: the share of their hosts' CPU others took
// while their cases ran (the hypervisor's steal for other machines, user time of processes other
// than preflight's ranks), pooled over each run's cases from the file's host-load attributes. On
// the shared 2-core development VM, runs in which the hypervisor took 0.9-8% of the CPU were
// 18-32% slower in the median figure, collectives and storage alike, than one in which it took
// 0.2%, while the repetitions inside each run agreed: no within-run statistic sees such a shift,
// so a run is compared only with baselines measured in a like state. Generic: it knows runs and
// cases, not families.
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "reader/results_reader.hpp"

namespace preflight::report {

// Two runs whose hosts gave shares of their CPU to others this far apart or more were not
// measured in the same state, and are not compared. Calibrated on the development VM, where the
// hypervisor took 0.2-8% from run to run: 0.2% against 8.2% flagged four sizes, 2.3% against
// 5.9% one, and comparisons under 3 points apart none (two batches of 45). A smaller gap shifts
// figures too (0.2% against 0.9%: the median figure 20% slower), but there the repetitions' own
// noise kept every size undecided: the gap guards against the large shifts, it corrects nothing.
inline constexpr double kMaxHostContentionGap = 0.03;
// A run whose hosts gave this share of their CPU to others or more is reported as measured on
// contended hosts (a measurement-quality finding).
inline constexpr double kContendedHostShare = 0.02;

struct RunHostLoad {
  double stolen = std::numeric_limits<double>::quiet_NaN();   // the hypervisor's, for others
  double foreign = std::numeric_limits<double>::quiet_NaN();  // other processes'
  std::size_t cases_measured = 0;
  bool measured() const { return cases_measured > 0; }
  double contention() const { return stolen + foreign; }
};

// Pooled over the run's cases, each weighted by its hosts' CPU time; not measured when no case
// has the attributes (files written before they were measured).
RunHostLoad run_host_load(const RunData& run);

// The share others took: "8.2% (hypervisor 8.0%, other processes 0.2%)", or "not measured".
std::string describe(const RunHostLoad& load);

// The runs a comparison may judge: the baselines whose hosts' contention was within `max_gap`
// of the current run's (either unmeasured counts as within); the others are left out and said
// so in `notes`. `withheld` says why no verdict can be given (no baseline was within the gap),
// empty when the comparison can go ahead.
struct ComparableRuns {
  std::vector<const RunData*> baselines;
  std::vector<std::string> notes;
  std::string withheld;
};
ComparableRuns comparable_runs(const std::vector<const RunData*>& baselines, const RunData& current,
                               double max_gap);

}  // namespace preflight::report
