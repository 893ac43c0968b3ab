// The node-pair schedule: every pair of N nodes once, in rounds of disjoint pairs that run at
// the same time (the circle method of round-robin tournaments: N-1 rounds for even N, N rounds
// for odd N, where each round one node sits out).
#pragma once

#include <utility>
#include <vector>

namespace preflight::fabric {

using NodePair = std::pair<int, int>;  // first < second
using Round = std::vector<NodePair>;

std::vector<Round> round_robin(int nodes);

}  // namespace preflight::fabric
