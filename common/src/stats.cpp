#include "preflight/common/stats.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <vector>

namespace preflight {

#ifdef PREFLIGHT_COUNT_WORK
namespace {
// A test instrument, not state the program reads: only tests look at it.
std::atomic<std::uint64_t> ordered_elements{0};
}  // namespace

void count_ordered_elements(std::size_t elements) {
  ordered_elements.fetch_add(elements, std::memory_order_relaxed);
}
std::uint64_t ordered_elements_counted() {
  return ordered_elements.load(std::memory_order_relaxed);
}
bool work_counted() {
  return true;
}
#else
void count_ordered_elements(std::size_t) {}
std::uint64_t ordered_elements_counted() {
  return 0;
}
bool work_counted() {
  return false;
}
#endif

double quantile_sorted(std::span<const double> sorted, double q) {
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto lower = static_cast<std::size_t>(std::floor(position));
  const auto upper = std::min(lower + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(lower);
  return sorted[lower] + fraction * (sorted[upper] - sorted[lower]);
}

Summary summarize(std::span<const double> values) {
  std::vector<double> v;
  v.reserve(values.size());
  for (double x : values)
    if (!std::isnan(x)) v.push_back(x);
  Summary s;
  s.count = v.size();
  if (v.empty()) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    s.min = s.p5 = s.median = s.p95 = s.max = s.mean = s.cv = nan;
    return s;
  }
  count_ordered_elements(v.size());
  std::sort(v.begin(), v.end());
  s.min = v.front();
  s.max = v.back();
  s.p5 = quantile_sorted(v, 0.05);
  s.median = quantile_sorted(v, 0.5);
  s.p95 = quantile_sorted(v, 0.95);
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  if (v.size() > 1 && s.mean != 0) {
    double squares = 0;
    for (double x : v) squares += (x - s.mean) * (x - s.mean);
    s.cv = std::sqrt(squares / static_cast<double>(v.size() - 1)) / std::abs(s.mean);
  }
  return s;
}

namespace {

// Sorts values[lo, hi) by shifting, not swapping: a swap of neighbours stores two doubles and
// reloads one of them at once, a store the load cannot be forwarded from (the quarter of the
// report's time at 16,384 ranks that perf showed on one instruction).
void insertion_sort(std::span<double> values, std::size_t lo, std::size_t hi) {
  for (std::size_t i = lo + 1; i < hi; ++i) {
    const double x = values[i];
    std::size_t j = i;
    for (; j > lo && x < values[j - 1]; --j) values[j] = values[j - 1];
    values[j] = x;
  }
}

// Quickselect with Lomuto's partition written without a branch on the comparison (every element
// is swapped, the store index moves by the comparison's result): on the values of one rank's
// iterations the comparisons are unpredictable, and std::nth_element's mispredicted branches
// took a third of the report's time at 65,536 ranks. Afterwards values[k] is the k-th smallest,
// every value before it no larger and every value after it no smaller. No NaNs. A median of three
// can be a poor pivot pass after pass (organ-pipe input: 1, 2, ..., P, P, ..., 2, 1): once the
// passes have touched 4n elements the rest is left to std::nth_element (introselect, bounded), so
// the cost stays linear. Each pass counts the elements it touches (count_ordered_elements).
void select_in_place(std::span<double> values, std::size_t k) {
  std::size_t lo = 0, hi = values.size();  // the k-th lies in [lo, hi)
  const std::size_t budget = 4 * values.size();
  std::size_t touched = 0;
  while (hi - lo > 16) {
    if (touched > budget) {
      count_ordered_elements(hi - lo);
      std::nth_element(values.begin() + static_cast<std::ptrdiff_t>(lo),
                       values.begin() + static_cast<std::ptrdiff_t>(k),
                       values.begin() + static_cast<std::ptrdiff_t>(hi));
      return;
    }
    touched += hi - lo;
    count_ordered_elements(hi - lo);
    // Median of three as the pivot, moved to the end of the range.
    const std::size_t mid = lo + (hi - lo) / 2, last = hi - 1;
    if (values[mid] < values[lo]) std::swap(values[mid], values[lo]);
    if (values[last] < values[lo]) std::swap(values[last], values[lo]);
    if (values[mid] < values[last]) std::swap(values[mid], values[last]);
    const double pivot = values[last];
    std::size_t store = lo;
    for (std::size_t i = lo; i < last; ++i) {
      const double x = values[i];
      values[i] = values[store];
      values[store] = x;
      store += x < pivot ? 1 : 0;
    }
    std::swap(values[store], values[last]);  // the pivot in its sorted place
    if (k <= store) {
      if (k == store) return;
      hi = store;
      continue;
    }
    // A split this uneven may be many copies of the pivot (equal timings, zeros): gather them
    // next to it, or equal values would shrink the range by one element a pass.
    std::size_t equal_end = store + 1;
    if (store - lo < (hi - lo) / 4) {
      for (std::size_t i = store + 1; i < hi; ++i) {
        const double x = values[i];  // no smaller than the pivot here
        values[i] = values[equal_end];
        values[equal_end] = x;
        equal_end += x <= pivot ? 1 : 0;
      }
      if (k < equal_end) return;
    }
    lo = equal_end;
  }
  insertion_sort(values, lo, hi);
}
}  // namespace

double median(std::vector<double> values) {
  return median_in_place(values);
}

double median_in_place(std::span<double> values) {
  const auto end =
      std::remove_if(values.begin(), values.end(), [](double v) { return std::isnan(v); });
  const auto n = static_cast<std::size_t>(end - values.begin());
  if (n == 0) return std::nan("");
  count_ordered_elements(n);
  // A few values (a rank's back-to-back blocks): sorted by insertion, cheaper than a selection's
  // set-up, which millions of such medians pay at 65,536 ranks.
  if (n <= 16) {
    insertion_sort(values, 0, n);
    return quantile_sorted(values.first(n), 0.5);
  }
  // Selection, not a sort: the report takes millions of medians (each rank's, at every size).
  // The result is what quantile_sorted(sorted, 0.5) gives, to the last bit.
  const auto half = n / 2;
  select_in_place(values.first(n), half);
  const double upper = values[half];
  if (n % 2 == 1) return upper;
  const double lower =
      *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(half));
  return lower + 0.5 * (upper - lower);
}

Interval median_interval(const std::vector<double>& sorted) {
  const double n = static_cast<double>(sorted.size());
  const double half_width = 1.96 * std::sqrt(n) / 2;
  const auto clamp_index = [&](double i) {
    return static_cast<std::size_t>(std::clamp(i, 0.0, n - 1));
  };
  // 1-based ranks floor(n/2 - w) and ceil(1 + n/2 + w), as 0-based indices.
  const std::size_t low = clamp_index(std::floor(n / 2 - half_width) - 1);
  const std::size_t high = clamp_index(std::ceil(1 + n / 2 + half_width) - 1);
  return {sorted[low], sorted[high]};
}

}  // namespace preflight
