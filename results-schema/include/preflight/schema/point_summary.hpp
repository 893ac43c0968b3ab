// The reductions of a point's per-iteration x per-rank matrices that the report reads (SPEC.md,
// "Soak", "Summary points"), computed here once: a soak that writes summaries stores them in place
// of the matrices (bench/harness/sinks/summary_points.cpp), and the reader computes them from the
// matrices of a point written in full (reports/reader), so that both forms read the same.
// Cost: linear in the matrix's cells.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "preflight/schema/meaning.hpp"

namespace preflight::schema {

// A stored matrix: rows x cols, row-major (iterations x ranks, as samples are).
struct MatrixView {
  std::span<const double> values;
  std::size_t rows = 0, cols = 0;
};

// `groups`: world rank -> its group, -1 where it idled (group_of_rank); a rank is active at 0 or
// more. Every function takes cols == groups.size().

// Each timed iteration's time, the slowest active rank's; an iteration no active rank has a time
// for is left out.
std::vector<double> slowest_per_iteration(MatrixView samples, std::span<const std::int64_t> groups);

// Each active rank's median over the rows of values[i][r] / divisor[i][r] (divisor nullptr: the
// values alone; else a matrix of the same shape); NaN for an idle rank.
std::vector<double> rank_medians(MatrixView values, const std::vector<double>* divisor,
                                 std::span<const std::int64_t> groups);

// A counter per timed iteration over the active ranks: its median (NaN where no active rank has a
// value) and its sum (the work all ranks did).
struct CounterPerIteration {
  std::vector<double> medians, totals;
};
CounterPerIteration counter_per_iteration(MatrixView counter, std::span<const std::int64_t> groups);

// One cell of a per-iteration counter: the timed iteration, the world rank, the value.
struct CounterCell {
  std::size_t iteration = 0;
  std::int64_t rank = 0;
  double value = 0;
};
// Whether a counter so declared counts what should not happen (kind count, direction lower): its
// cells that are not 0 are kept (fault_cells).
constexpr bool counts_faults(Kind kind, Direction direction) {
  return kind == Kind::kCount && direction == Direction::kLower;
}
// The counter's cells that are neither 0 nor NaN, in iteration then rank order: what a counter of
// what should not happen (kind count, direction lower) keeps.
std::vector<CounterCell> fault_cells(MatrixView counter);

// A watched series (SPEC.md "What the report watches") over a whole case, per world rank.
// A count of a rank's readings over a case: 4 bytes, not 8, because a soak's report keeps two per
// watched series, rank and case of every round (a day at 1,000 nodes: gigabytes).
using ReadingCount = std::uint32_t;

struct WatchedSummary {
  // NaN where the rank has no reading: zero: every reading's bits OR-ed; peers: the median
  // reading; reference and margin: the highest reading; grows: the last reading less the first.
  std::vector<double> per_rank;
  // reference: the highest reading of the reference series; margin: its lowest (the limit)
  std::vector<double> reference_per_rank;
  // readings, and those that break the rule: zero: not 0; grows: above the reading before
  std::vector<ReadingCount> readings, broken;
};
// Appends each rank's readings of one series matrix (rows x ranks; NaN rows left out) to
// `per_rank` (resized to cols).
void append_readings(MatrixView series, std::vector<std::vector<double>>& per_rank);
// The summary of a series' readings per rank (`reference`: its reference's, rules reference and
// margin only).
WatchedSummary summarise_watched(Watch rule, std::vector<std::vector<double>> readings,
                                 std::vector<std::vector<double>> reference, std::size_t ranks);

}  // namespace preflight::schema
