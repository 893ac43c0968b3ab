// Convenient reads of one case's stats table: a point's row for all groups together or for the
// first group, its size, a metric, the case's subject without its topology.
#pragma once

#include <string>
#include <vector>

#include "reader/results_reader.hpp"

namespace preflight::report {

class CaseView {
 public:
  explicit CaseView(const CaseData& data) : c(data) {}
  const CaseData& c;

  std::string param(const std::string& name) const;    // "" when absent
  double number_param(const std::string& name) const;  // NaN when absent or not a number
  int repetition() const;
  // A case is the same case in two runs when its name, benchmark, variant and repetition match:
  // "name | benchmark | variant | repetition".
  std::string identity() const;
  // What stays the same when only the topology or scale changes, e.g.
  // "collectives: allreduce float32 sum out-of-place" (variant added when not the default).
  std::string subject() const;

  std::size_t points() const;
  // Row of `point` for all groups together, or for group `group`; SIZE_MAX when absent.
  std::size_t row(std::size_t point, int group = -1) const;
  double number(const std::string& column, std::size_t row) const;  // NaN when absent
  double size_at(std::size_t point) const;  // size_bytes, NaN when the family has no sizes
  // The metric at a point: the all-groups row, or the median of the groups' rows where the
  // all-groups value is not defined (groups of different sizes).
  double metric_at(const std::string& metric, std::size_t point) const;
  // Ranks of one group (the first), and its median time at a point.
  double group_ranks(std::size_t point) const;
  double group_time(std::size_t point) const;
  // The throughput that stands for the case: busbw, agg_bw, ... ("" when it has none).
  std::string primary_metric() const;
  // Every per-iteration metric (columns with a "better" direction, not batched_).
  std::vector<std::string> metrics() const;
  // Each timed iteration's time (the slowest rank's), scaled to `reference_bytes` where the
  // family counts the bytes it moved (a time-bounded read): lower is better either way.
  std::vector<double> comparable_times(std::size_t point, double reference_bytes) const;
  // The median of the bytes moved per iteration at a point; NaN when not counted.
  double median_bytes(std::size_t point) const;
  // "size 1048576 B", or "point 3".
  std::string point_label(std::size_t point) const;
  // What identifies a point across runs: its size_bytes, else its block_bytes, else its index.
  double point_key(std::size_t point) const;
  // The point with that key; SIZE_MAX when the case has none.
  std::size_t find_point(double key) const;
};

}  // namespace preflight::report
