#include "analysis/leave_one_out.hpp"

#include <algorithm>

#include "preflight/common/stats.hpp"

namespace preflight::report {

LeaveOneOutMedian::LeaveOneOutMedian(std::vector<double> values) : n_(values.size()) {
  count_ordered_elements(n_);
  // The middle order statistics around j = n / 2: s[j - 1], s[j], s[j + 1].
  const std::size_t j = n_ / 2;
  low_ = j == 0 ? 0 : j - 1;
  const auto at = [&](std::size_t k) { return values.begin() + static_cast<std::ptrdiff_t>(k); };
  std::nth_element(values.begin(), at(low_), values.end());
  for (std::size_t k = low_; k < std::min(n_, j + 2); ++k) {
    std::nth_element(at(k), at(k), values.end());  // the least of what is left: s[k]
    middle_[k - low_] = values[k];
  }
}

double LeaveOneOutMedian::without(double v) const {
  const std::size_t left = n_ - 1, j = left / 2;
  // The i-th of the values left is s[i] before the copy of v left out and s[i + 1] from it on;
  // the first copy of v stands at or before i exactly when v <= s[i].
  const auto remaining = [&](std::size_t i) { return v <= s(i) ? s(i + 1) : s(i); };
  if (left % 2 == 1) return remaining(j);
  const double lower = remaining(j - 1), upper = remaining(j);
  return lower + 0.5 * (upper - lower);  // quantile_sorted's middle of two
}

}  // namespace preflight::report
