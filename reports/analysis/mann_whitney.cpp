#include "analysis/mann_whitney.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace preflight::report {

MannWhitney mann_whitney(const std::vector<double>& a, const std::vector<double>& b) {
  const double n1 = static_cast<double>(a.size()), n2 = static_cast<double>(b.size());
  std::vector<std::pair<double, int>> all;
  all.reserve(a.size() + b.size());
  for (double x : a) all.emplace_back(x, 0);
  for (double x : b) all.emplace_back(x, 1);
  std::sort(all.begin(), all.end());
  // Average ranks over ties; the tie term corrects the variance.
  double rank_sum_a = 0, ties = 0;
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i;
    while (j < all.size() && all[j].first == all[i].first) ++j;
    const double average_rank = (static_cast<double>(i + j) + 1) / 2;  // ranks i+1 .. j
    for (std::size_t k = i; k < j; ++k)
      if (all[k].second == 0) rank_sum_a += average_rank;
    const double t = static_cast<double>(j - i);
    ties += t * t * t - t;
    i = j;
  }
  MannWhitney r;
  r.u = rank_sum_a - n1 * (n1 + 1) / 2;
  const double n = n1 + n2;
  const double mean = n1 * n2 / 2;
  const double variance = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1)));
  if (variance <= 0) return r;  // every value equal: no evidence of a difference
  const double distance = std::max(0.0, std::abs(r.u - mean) - 0.5);
  r.z = std::copysign(distance / std::sqrt(variance), r.u - mean);
  r.p_value = std::erfc(distance / std::sqrt(variance) / std::sqrt(2.0));
  return r;
}

}  // namespace preflight::report
