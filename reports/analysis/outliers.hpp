// Slow ranks and nodes, found without a baseline: each rank's time per size against the median
// of the ranks that ran the same operation, summarised over every size of every case, then
// judged against its peers with the median and the median absolute deviation (robust to the
// outlier itself).
#pragma once

#include <string>
#include <vector>

#include "reader/results_reader.hpp"

namespace preflight::report {

struct OutlierOptions {
  double min_ratio = 1.15;  // at least this much slower than the typical peer ...
  double min_z = 3.0;       // ... and this many robust deviations away
  // A late rank's own time is at most 1/this of its peers'. Stricter than min_ratio: the
  // barrier that starts each iteration releases ranks a little apart (rank 0 often last, some
  // 10-15% of a small collective on a busy host), which looks like lateness but is not.
  double min_late_ratio = 1.3;
  // A named slow node or rank fails the acceptance check "no slow nodes or ranks" (exit 1);
  // false: it is listed, and the verdict does not change (--slow-nodes warn).
  bool slow_fails = true;
  // A slow rank (not of a slow node) fails that check only this far above its peers: on a busy
  // host the barrier that starts each iteration alone leaves a rank 10-20% slow on small
  // collectives (rank 0 most often, with the harness's own work); between min_ratio and this it
  // is listed, not failed.
  double min_failing_rank_ratio = 1.3;
};

struct Outlier {
  std::string kind;  // "node", "rank" (slow), or "late rank" (the others wait for it)
  std::string name;  // node name, or "rank N"
  std::vector<int> ranks;
  double ratio = 1;       // its typical time / the peers' typical time
  double z = 0;           // robust z-score among its peers
  std::size_t sizes = 0;  // sizes it was compared over
};

// Needs at least 3 ranks (3 nodes for nodes) to judge; fewer gives no outliers.
std::vector<Outlier> find_outliers(const RunData& run, const OutlierOptions& options = {});

// What find_outliers could not judge in `run`, and why, one line each ("slow nodes: 2 nodes ran
// cases that compare peers, judging needs 3"): silence there is not health. Empty: all judged.
std::vector<std::string> outliers_not_judged(const RunData& run);

}  // namespace preflight::report
