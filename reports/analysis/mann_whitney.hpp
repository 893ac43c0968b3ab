// Mann-Whitney U (Wilcoxon rank-sum) test: is one sample stochastically larger than another?
// It assumes nothing about the distributions, which suits timings (skewed, with outliers).
#pragma once

#include <vector>

namespace preflight::report {

struct MannWhitney {
  double u = 0;        // U of the first sample
  double z = 0;        // normal approximation, tie-corrected, with continuity correction
  double p_value = 1;  // two-sided
};

// Both samples need at least one value; NaNs must be removed by the caller.
MannWhitney mann_whitney(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace preflight::report
