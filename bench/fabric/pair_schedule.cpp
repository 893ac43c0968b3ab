#include "fabric/pair_schedule.hpp"

#include <algorithm>

namespace preflight::fabric {

// Seats 0..M-1 (M even; seat M-1 is a bye for odd N): seat M-1 stays, the others turn one
// place each round, and seat k plays seat M-1-k.
std::vector<Round> round_robin(int nodes) {
  std::vector<Round> rounds;
  if (nodes < 2) return rounds;
  const int seats = nodes + nodes % 2;
  std::vector<int> at(static_cast<std::size_t>(seats));
  for (int s = 0; s < seats; ++s) at[static_cast<std::size_t>(s)] = s;
  for (int r = 0; r < seats - 1; ++r) {
    Round round;
    for (int k = 0; k < seats / 2; ++k) {
      const int a = at[static_cast<std::size_t>(k)];
      const int b = at[static_cast<std::size_t>(seats - 1 - k)];
      if (a < nodes && b < nodes) round.emplace_back(std::min(a, b), std::max(a, b));
    }
    std::sort(round.begin(), round.end());
    rounds.push_back(std::move(round));
    std::rotate(at.begin(), at.begin() + seats - 2, at.begin() + seats - 1);
  }
  return rounds;
}

}  // namespace preflight::fabric
