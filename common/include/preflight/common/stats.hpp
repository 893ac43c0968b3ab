// Order statistics of a sample, the way every figure preflight shows is summarised.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace preflight {

// A figure that was not measured (a rank that took no part, a size a case did not run).
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Summary {
  std::size_t count = 0;
  double min = 0, p5 = 0, median = 0, p95 = 0, max = 0, mean = 0;
  double cv = 0;  // sample standard deviation / mean; 0 for fewer than 2 values
};

// NaN values (ranks that took no part) are left out. An empty sample gives count 0 and NaNs.
Summary summarize(std::span<const double> values);

// The median (the mean of the middle two for an even count), NaN values left out; NaN for no
// values. The one median of preflight: summarize() and every median preflight-report shows.
double median(std::vector<double> values);
// The same median of `values`, reordering them in place instead of copying: for callers that take
// millions of medians of small slices (the report's per-rank medians).
double median_in_place(std::span<double> values);

// Linear interpolation between closest ranks (Hyndman & Fan type 7, as numpy's default).
// `sorted` must be sorted ascending and non-empty; q in [0, 1].
double quantile_sorted(std::span<const double> sorted, double q);

// The distribution-free 95% confidence interval of the median of `sorted` (order statistics
// around n/2 +- 1.96 sqrt(n)/2); {low, high}. Needs at least one value.
struct Interval {
  double low, high;
};
Interval median_interval(const std::vector<double>& sorted);

// Work counting, so that tests can guard cost by counting work rather than timing it: the
// number of elements ordered by median(), summarize() and the callers that report their own
// sorts. Counted only where preflight_common is built with PREFLIGHT_COUNT_WORK (the ci preset);
// elsewhere count_ordered_elements does nothing and work_counted() is false.
void count_ordered_elements(std::size_t elements);
std::uint64_t ordered_elements_counted();
bool work_counted();

}  // namespace preflight
