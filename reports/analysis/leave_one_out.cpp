#include "analysis/leave_one_out.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <span>
#include <stdexcept>
#include <vector>

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

LeaveSomeOutMedian::LeaveSomeOutMedian(std::vector<double> values, std::size_t most)
    : n_(values.size()), most_(most) {
  count_ordered_elements(n_);
  const std::size_t j = n_ / 2, reach = std::min(most, n_) + 2;
  low_ = j > reach ? j - reach : 0;
  const std::size_t high = std::min(n_, j + reach);
  const auto at = [&](std::size_t k) { return values.begin() + static_cast<std::ptrdiff_t>(k); };
  std::nth_element(values.begin(), at(low_), values.end());
  std::partial_sort(at(low_), at(high), values.end());
  middle_.assign(at(low_), at(high));
}

double LeaveSomeOutMedian::without(std::span<double> removed) const {
  if (removed.size() > most_)
    throw std::invalid_argument("LeaveSomeOutMedian: more values left out than it was made for");
  if (removed.size() >= n_) return std::nan("");
  const std::size_t left = n_ - removed.size();
  // Each value left out takes the place of one copy of it in the order: below the middle (a
  // value under it, or a copy of its least beyond the middle's own), in the middle (the first
  // copy not taken), or above (past every place the median can reach).
  std::sort(removed.begin(), removed.end());
  std::size_t below = 0;
  // The places taken in the middle, ascending: on the stack for as many as a node has ranks.
  constexpr std::size_t kOnStack = 16;
  std::array<std::size_t, kOnStack> on_stack{};
  std::vector<std::size_t> on_heap(removed.size() > kOnStack ? removed.size() : 0);
  const std::span<std::size_t> room =
      on_heap.empty() ? std::span<std::size_t>(on_stack) : std::span<std::size_t>(on_heap);
  std::size_t taken = 0;
  const auto places = [&] { return room.first(taken); };
  for (const double v : removed) {
    if (v < middle_.front()) {
      ++below;
      continue;
    }
    auto k = static_cast<std::size_t>(std::lower_bound(middle_.begin(), middle_.end(), v) -
                                      middle_.begin());
    if (taken > 0 && middle_[room[taken - 1]] == v) k = std::max(k, room[taken - 1] + 1);
    if (k < middle_.size() && middle_[k] == v)
      room[taken++] = k;
    else if (v == middle_.front())
      ++below;
  }
  // The i-th value left: step i past every place taken at or before it.
  const auto ith = [&](std::size_t i) {
    std::size_t k = i + below - low_;
    for (const std::size_t p : places())
      if (p <= k) ++k;
    return middle_[k];
  };
  if (left % 2 == 1) return ith(left / 2);
  const double lower = ith(left / 2 - 1), upper = ith(left / 2);
  return lower + 0.5 * (upper - lower);  // quantile_sorted's middle of two
}

}  // namespace preflight::report
