// Isolation from a node x node matrix of pair figures (the fabric family's sweep), with no need
// for a healthy majority:
//   - a pair is slow against the best the fabric showed (a pair that reached a speed proves both
//     its nodes and its path can), and, where a reference envelope applies, below its floor too;
//     only where even the pair's best iterations (time_p5) are that far off, in every pass, so
//     that a busy machine's jitter names nobody;
//   - a node slow with every partner is a node fault; a node that reached normal speed with any
//     partner is cleared (its NIC and port can do it);
//   - a pair slow while both its nodes are fine with others is a link or path fault;
//   - every pair below the envelope's floor is the fabric as a whole (a switch, its firmware, a
//     setting every node shares), not a node.
// Two of four nodes slow leave one good pair: the two are named, the other two cleared by it.
// Pure: the pair-matrix plug-in feeds it, the unit tests plant faults in it.
#pragma once

#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace preflight::report::plugins {

struct PairMatrix {
  std::vector<std::string> nodes;  // names, index = node
  // (a, b), a < b -> the pair's figure in each pass over the schedule (NaN: not measured).
  std::map<std::pair<int, int>, std::vector<double>> figures;
  // The same pairs and passes: the figure at the pair's best iterations (its time_p5), the best
  // the pair can claim to have reached; a pair without it is judged by its figure alone.
  std::map<std::pair<int, int>, std::vector<double>> best_iterations;
  bool higher_is_better = true;
  std::string unit;
  // The reference envelope's figure for this test, where one applies (NaN: none).
  double floor = std::numeric_limits<double>::quiet_NaN();
  double typical = std::numeric_limits<double>::quiet_NaN();
  std::string reference;  // the envelope's name
};

struct IsolationOptions {
  // A pair is slow at this many times worse than the best pair's level, even at its own best
  // iterations, in every pass. On 4 emulated hosts of a busy 2-core VM (two pairs' four ranks on
  // two cores) clean pairs' medians were up to 3.2x apart, their best iterations within 1.2x of
  // the best pair's level; a host throttled to 200 Mbit/s was 20-90x off (docs/fabric.md).
  double slow_factor = 2.5;
};

enum class SuspectKind { kNode, kLink, kFabric };
const char* name_of(SuspectKind kind);  // "host", "link", "fabric": the JSON suspects' kinds

struct IsolatedSuspect {
  SuspectKind kind = SuspectKind::kNode;
  std::vector<int> members;  // the node, the pair's two nodes, or every node (fabric)
  std::vector<std::string> evidence;
};

struct Isolation {
  // The best the fabric showed: the best pair's level held in every pass (its worst pass).
  double best = std::numeric_limits<double>::quiet_NaN();
  std::string best_pair;
  std::vector<IsolatedSuspect> suspects;
  // Pairs slow in one pass and not when retested: not named, listed so the retest is visible.
  std::vector<std::string> cleared;
};

Isolation isolate(const PairMatrix& m, const IsolationOptions& o = {});

}  // namespace preflight::report::plugins
