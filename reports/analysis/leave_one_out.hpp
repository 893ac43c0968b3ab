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
#include <span>
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

// The medians of a set of values with a few members left out at a time, at most `most`: a
// node's peers are all ranks but its own (analysis/soak.cpp). Leaving out m values moves the
// median at most m places, so the order statistics within m + 2 of the middle, in order, answer
// for every such set: O(n log most) once, O(m log m) a set. Sorting all the values, and a search
// in them per member left out, cost a day's soak of 8,000 ranks a sixth of its report.
class LeaveSomeOutMedian {
 public:
  // `values`: none NaN.
  LeaveSomeOutMedian(std::vector<double> values, std::size_t most);
  // The median of the values left when one copy of each of `removed` is left out, bit for bit
  // what preflight::median of them gives; NaN when none is left. `removed`: members' values, at
  // most `most` of them (more: std::invalid_argument), sorted here in place (a soak asks for
  // every node at every point of every round: a copy each was an allocation each).
  double without(std::span<double> removed) const;

 private:
  std::size_t n_ = 0, most_ = 0, low_ = 0;
  std::vector<double> middle_;  // s[low_], s[low_ + 1], ... in order
};

}  // namespace preflight::report
