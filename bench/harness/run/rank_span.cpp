#include "harness/run/rank_span.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "preflight/common/stats.hpp"

namespace preflight {

IterationSpan span_of(const double* starts, const double* seconds,
                      const std::vector<int>& members) {
  double first_start = kNaN, last_start = kNaN, last_finish = kNaN;
  for (int r : members) {
    const double start = starts[r], finish = start + seconds[r];
    if (std::isnan(finish)) continue;
    first_start = std::isnan(first_start) ? start : std::min(first_start, start);
    last_start = std::isnan(last_start) ? start : std::max(last_start, start);
    last_finish = std::isnan(last_finish) ? finish : std::max(last_finish, finish);
  }
  return {last_finish - first_start, last_start - first_start};
}

std::vector<IterationSpan> iteration_spans(const SampleView& view) {
  if (view.starts == nullptr)
    throw std::logic_error("iteration_spans: the case's samples have no starts (measures_span())");
  std::vector<IterationSpan> out;
  for (std::size_t i = 0; i < view.iterations; ++i)
    out.push_back(span_of(view.starts->data() + i * view.ranks, view.times->data() + i * view.ranks,
                          *view.members));
  return out;
}

std::vector<double> rank_rates(const SampleView& view, const std::vector<double>& counter,
                               double scale) {
  std::vector<double> out;
  for (int r : *view.members) {
    std::vector<double> rates;
    for (std::size_t i = 0; i < view.iterations; ++i) {
      const std::size_t at = i * view.ranks + static_cast<std::size_t>(r);
      rates.push_back(counter[at] / (*view.times)[at] / scale);
    }
    const double rate = median(rates);
    if (!std::isnan(rate)) out.push_back(rate);
  }
  return out;
}

void relative_to_first(std::vector<double>& starts, std::size_t ranks) {
  for (std::size_t row = 0; ranks > 0 && row + ranks <= starts.size(); row += ranks) {
    double first = kNaN;
    for (std::size_t r = 0; r < ranks; ++r) {
      const double start = starts[row + r];
      if (!std::isnan(start) && (std::isnan(first) || start < first)) first = start;
    }
    for (std::size_t r = 0; r < ranks; ++r) starts[row + r] -= first;
  }
}

}  // namespace preflight
