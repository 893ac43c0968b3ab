// The fabric family's pair schedule and the pair-matrix plug-in's isolation rule, with faults
// planted in made-up matrices (and none).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "fabric/pair_schedule.hpp"
#include "plugins/pair_isolation.hpp"

namespace {

using preflight::fabric::round_robin;
using preflight::report::plugins::isolate;
using preflight::report::plugins::PairMatrix;
using preflight::report::plugins::SuspectKind;

TEST(PairSchedule, EveryPairOnceInDisjointRounds) {
  for (int n = 2; n <= 9; ++n) {
    const auto rounds = round_robin(n);
    EXPECT_EQ(static_cast<int>(rounds.size()), n % 2 == 0 ? n - 1 : n) << n << " nodes";
    std::set<std::pair<int, int>> seen;
    for (const auto& round : rounds) {
      std::set<int> busy;
      for (const auto& [a, b] : round) {
        EXPECT_LT(a, b);
        EXPECT_TRUE(busy.insert(a).second && busy.insert(b).second) << "a node twice in a round";
        EXPECT_TRUE(seen.insert({a, b}).second) << a << "-" << b << " twice";
      }
      EXPECT_EQ(static_cast<int>(round.size()), n / 2);
    }
    EXPECT_EQ(static_cast<int>(seen.size()), n * (n - 1) / 2) << n << " nodes";
  }
  EXPECT_TRUE(round_robin(1).empty());
}

// n nodes, every pair `good` in both passes, with a little spread, except as `figure` says.
PairMatrix matrix(int n, double good, double (*figure)(int, int, int, double) = nullptr) {
  PairMatrix m;
  for (int i = 0; i < n; ++i) m.nodes.push_back(fmt::format("h{}", i));
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b)
      for (int pass = 0; pass < 2; ++pass) {
        const double spread = 1 + 0.05 * ((a * 7 + b * 3 + pass) % 5 - 2);  // +-10%
        m.figures[{a, b}].push_back(figure ? figure(a, b, pass, good * spread) : good * spread);
      }
  m.unit = "GB/s";
  return m;
}

std::set<std::vector<int>> named(const PairMatrix& m, SuspectKind kind) {
  std::set<std::vector<int>> out;
  for (const auto& s : isolate(m).suspects)
    if (s.kind == kind) out.insert(s.members);
  return out;
}

std::set<std::vector<int>> named(const PairMatrix& m, bool nodes) {
  return named(m, nodes ? SuspectKind::kNode : SuspectKind::kLink);
}

// Nodes whose every pair is divided by `factor`.
PairMatrix with_bad_nodes(int n, const std::set<int>& bad, double factor = 10) {
  auto m = matrix(n, 1.0);
  for (auto& [pair, values] : m.figures)
    if (bad.count(pair.first) || bad.count(pair.second))
      for (auto& v : values) v /= factor;
  return m;
}

TEST(PairIsolation, CleanMatrixNamesNoOne) {
  for (int n : {2, 3, 4, 8, 16}) EXPECT_TRUE(isolate(matrix(n, 1.0)).suspects.empty()) << n;
}

TEST(PairIsolation, SlowNodeIsNamedAloneNotItsLinks) {
  for (int n : {3, 4, 8}) {
    const auto m =
        matrix(n, 1.0, [](int a, int b, int, double v) { return a == 2 || b == 2 ? v / 8 : v; });
    EXPECT_EQ(named(m, true), (std::set<std::vector<int>>{{2}})) << n << " nodes";
    EXPECT_TRUE(named(m, false).empty()) << n << " nodes";
  }
}

TEST(PairIsolation, SlowLinkIsNamedNotItsNodes) {
  const auto m =
      matrix(4, 1.0, [](int a, int b, int, double v) { return a == 1 && b == 2 ? v / 3 : v; });
  EXPECT_TRUE(named(m, true).empty());
  EXPECT_EQ(named(m, false), (std::set<std::vector<int>>{{1, 2}}));
}

TEST(PairIsolation, SeveralFaultsEachNamed) {
  const auto m = matrix(8, 1.0, [](int a, int b, int, double v) {
    if (a == 5 || b == 5 || a == 6 || b == 6) return v / 4;  // two slow nodes
    if (a == 0 && b == 3) return v / 3;                      // and a slow link
    return v;
  });
  EXPECT_EQ(named(m, true), (std::set<std::vector<int>>{{5}, {6}}));
  EXPECT_EQ(named(m, false), (std::set<std::vector<int>>{{0, 3}}));
}

TEST(PairIsolation, RetestClearsAPairSlowOnce) {
  const auto m = matrix(4, 1.0, [](int a, int b, int pass, double v) {
    return a == 0 && b == 1 && pass == 0 ? v / 5 : v;
  });
  const auto iso = isolate(m);
  EXPECT_TRUE(iso.suspects.empty());
  EXPECT_EQ(iso.cleared.size(), 1u);
}

// No healthy majority needed: the reference is the best pair, not the median node. Two of four
// nodes slow leave one good pair (h0-h2), which clears both its nodes; with the median node's
// median pair as the reference (before), nothing was named.
TEST(PairIsolation, HalfTheNodesSlowAreEachNamed) {
  EXPECT_EQ(named(with_bad_nodes(4, {1, 3}), true), (std::set<std::vector<int>>{{1}, {3}}));
  EXPECT_TRUE(named(with_bad_nodes(4, {1, 3}), false).empty());
  EXPECT_EQ(named(with_bad_nodes(8, {0, 2, 4, 6}), true),
            (std::set<std::vector<int>>{{0}, {2}, {4}, {6}}));
  EXPECT_TRUE(named(with_bad_nodes(8, {0, 2, 4, 6}), false).empty());
  // Three of four: one good node has no good partner, so nothing proves a pair slow against
  // another; without a reference floor the matrix cannot tell (named: nothing, not a wrong node).
  EXPECT_TRUE(isolate(with_bad_nodes(4, {1, 2, 3})).suspects.empty());
}

TEST(PairIsolation, EveryNodeSlowIsTheFabricAgainstTheReference) {
  auto m = with_bad_nodes(4, {0, 1, 2, 3});
  // Peers alone: every pair alike, nothing to name.
  EXPECT_TRUE(isolate(m).suspects.empty());
  // Against an envelope's floor: the fabric, not four nodes.
  m.floor = 0.5;
  m.typical = 1.0;
  m.reference = "site";
  const auto iso = isolate(m);
  ASSERT_EQ(iso.suspects.size(), 1u);
  EXPECT_EQ(iso.suspects.front().kind, SuspectKind::kFabric);
  EXPECT_EQ(iso.suspects.front().members.size(), 4u);
  // Three of four slow against the floor: every pair below it, the fabric too (the data cannot
  // tell three bad nodes from a bad fabric).
  auto three = with_bad_nodes(4, {1, 2, 3});
  three.floor = 0.5;
  EXPECT_EQ(named(three, SuspectKind::kFabric).size(), 1u);
  // One slow node against the floor: that node alone.
  auto one = with_bad_nodes(4, {2});
  one.floor = 0.5;
  EXPECT_EQ(named(one, true), (std::set<std::vector<int>>{{2}}));
  EXPECT_TRUE(named(one, SuspectKind::kFabric).empty());
}

// Below a floor that a busy machine's spread reaches, but not slow against the best pair: not
// named (issue 33 trials: a healthy pair at 1.2x a site reference's latency floor and 1.6x the
// best pair's was named a link in 2 of 5 runs); the figure's own acceptance check still fails.
TEST(PairIsolation, APairJustBelowTheFloorButNearTheBestIsNotNamed) {
  auto m = matrix(4, 75e-6);
  m.higher_is_better = false;
  m.figures[{0, 2}] = {120e-6, 117e-6};
  m.floor = 98.5e-6;
  m.typical = 72.5e-6;
  m.reference = "site";
  EXPECT_TRUE(isolate(m).suspects.empty());
  // The same pair 10x the best: below the floor and slow against the best: a link.
  m.figures[{0, 2}] = {750e-6, 760e-6};
  EXPECT_EQ(named(m, false), (std::set<std::vector<int>>{{0, 2}}));
}

TEST(PairIsolation, BadLinkBesideABadNodeAreBothNamed) {
  auto m = with_bad_nodes(5, {4});
  for (auto& v : m.figures[{0, 1}]) v /= 5;
  EXPECT_EQ(named(m, true), (std::set<std::vector<int>>{{4}}));
  EXPECT_EQ(named(m, false), (std::set<std::vector<int>>{{0, 1}}));
}

// A busy machine's jitter: a pair whose median is 3x the best pair's but whose best iterations
// reach the best pair's level is not named (issue 33: a healthy link ranked first at 0.54 ms
// against 0.17 ms). A pair that is slow even at its best iterations is.
TEST(PairIsolation, JitterWithinAPairsOwnSpreadNamesNobody) {
  auto m = matrix(4, 0.17e-3);
  m.higher_is_better = false;
  for (auto& [pair, values] : m.figures)
    m.best_iterations[pair] = std::vector<double>(values.size(), 0.15e-3);
  m.figures[{1, 2}] = {0.54e-3, 0.6e-3};
  EXPECT_TRUE(isolate(m).suspects.empty());
  m.best_iterations[{1, 2}] = {0.5e-3, 0.52e-3};
  EXPECT_EQ(named(m, false), (std::set<std::vector<int>>{{1, 2}}));
}

TEST(PairIsolation, LatencyIsWorseWhenHigher) {
  auto m =
      matrix(4, 5e-6, [](int a, int b, int, double v) { return a == 3 || b == 3 ? v * 4 : v; });
  m.higher_is_better = false;
  EXPECT_EQ(named(m, true), (std::set<std::vector<int>>{{3}}));
}

}  // namespace
