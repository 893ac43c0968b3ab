// The medians of a group's values with each member left out in turn, in O(n) for the group: the
// lateness analysis (analysis/outliers.cpp) divides each rank's time by its group peers'.
//
// With the values in order s[0..n-1], leaving out one copy of v leaves the same values whichever
// copy goes, and the median of the n - 1 left moves by at most one place around the middle: three
// order statistics answer for every member. No copy of the others per member (which made the
// lateness quadratic in a group's ranks: 13 minutes at 16,384 ranks) nor a sort.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

namespace preflight::report {

class LeaveOneOutMedian {
 public:
  // `values`: the group's, at least 2, none NaN.
  explicit LeaveOneOutMedian(std::vector<double> values);
  // The median of the others when one member of value `v` is left out, bit for bit what
  // preflight::median of them gives.
  double without(double v) const;

 private:
  double s(std::size_t i) const { return middle_[i - low_]; }
  std::size_t n_ = 0, low_ = 0;
  std::array<double, 3> middle_{};  // s[low_], s[low_ + 1], s[low_ + 2] (those that exist)
};

}  // namespace preflight::report
