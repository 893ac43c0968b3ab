#include "preflight/common/closest_name.hpp"

#include <algorithm>

namespace preflight {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::string closest_key(const std::string& key, const std::vector<std::string>& allowed) {
  std::string best;
  std::size_t best_distance = 3;  // at most two edits away
  for (const auto& a : allowed) {
    const std::size_t d = edit_distance(key, a);
    if (d < best_distance) {
      best_distance = d;
      best = a;
    }
  }
  return best;
}

}  // namespace preflight
