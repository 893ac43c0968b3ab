// The results of one case as rank 0 holds them after the ranks' samples are gathered.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/config/timing.hpp"
#include "harness/run/case.hpp"
#include "harness/run/host_load.hpp"
#include "preflight/common/stats.hpp"

namespace preflight {

// Statistics of one group (or of all groups together, group -1) at one point.
struct GroupResult {
  int group = -1;
  int ranks = 0;
  Summary per_iteration;     // per iteration: the slowest rank of the group
  Interval median_ci{0, 0};  // 95% confidence interval of per_iteration.median
  Summary batched;           // per back-to-back block: time per operation, slowest rank
  std::uint64_t wrong = 0;
  std::vector<Param> columns;
  std::vector<Metric> metrics;          // from the per-iteration median, then sample metrics
  std::vector<Metric> batched_metrics;  // from the batched median (time metrics only)
};

struct PointResult {
  std::size_t index = 0;
  int iterations = 0;
  std::string stop_reason;  // one of schema::stop_reason::kAll
  int batch_blocks = 0;
  int batch_ops = 0;
  std::vector<double> samples;  // iterations x world size, seconds; NaN for idle ranks
  std::vector<double> batched;  // batch_blocks x world size, seconds per operation
  // Case::measures_span() only, else empty: iterations x world size, each rank's start of each
  // timed iteration on rank 0's clock, seconds after the iteration's earliest; NaN for idle ranks.
  std::vector<double> starts;
  std::vector<std::uint64_t> wrong_per_rank;
  // Case::counters(): one iterations x world matrix each; Case::series(): rows x world each.
  std::vector<CounterSpec> counter_specs, series_specs;
  std::vector<std::vector<double>> counters;
  std::vector<std::vector<double>> series;
  std::vector<std::size_t> series_rows;
  std::vector<GroupResult> groups;  // groups.front() is all groups together
};

struct CaseRecord {
  std::size_t index = 0;
  std::string name, family, backend, status;
  std::vector<Param> params;
  CaseMeaning meaning;  // the case's declaration, span_nodes filled in by the harness
  // Its family's declaration: the case attributes it may carry besides the harness's. nullptr:
  // only the harness's.
  const schema::FamilySchema* declaration = nullptr;
  std::vector<int> group_of_rank;
  int group_count = 0;
  std::uint64_t wrong_elements = 0;
  double timeout_s = 0;
  // The hosts' CPU others took while the case ran; NaN shares: not measured (a timed-out case).
  HostLoad host_load;
  std::vector<PointResult> points;
  // A soak's, on rank 0, once the case finished: node_time_ratios (soak.hpp), computed once for
  // the progress line and the sinks. Empty outside a soak.
  std::vector<double> node_time_ratios;
};

}  // namespace preflight
