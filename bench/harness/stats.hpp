// Order statistics of a sample, the way every figure preflight shows is summarised.
#pragma once

#include <cstddef>
#include <span>

namespace preflight {

struct Summary {
  std::size_t count = 0;
  double min = 0, p5 = 0, median = 0, p95 = 0, max = 0, mean = 0;
  double cv = 0;  // sample standard deviation / mean; 0 for fewer than 2 values
};

// NaN values (ranks that took no part) are left out. An empty sample gives count 0 and NaNs.
Summary summarize(std::span<const double> values);

// Linear interpolation between closest ranks (Hyndman & Fan type 7, as numpy's default).
// `sorted` must be sorted ascending and non-empty; q in [0, 1].
double quantile_sorted(std::span<const double> sorted, double q);

}  // namespace preflight
