#include "analysis/median.hpp"

#include <algorithm>
#include <cmath>

namespace preflight::report {

double median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  const auto middle = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), middle, v.end());
  if (v.size() % 2) return *middle;
  return (*middle + *std::max_element(v.begin(), middle)) / 2;
}

}  // namespace preflight::report
