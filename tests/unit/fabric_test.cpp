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

std::set<std::vector<int>> named(const PairMatrix& m, bool nodes) {
  std::set<std::vector<int>> out;
  for (const auto& s : isolate(m).suspects)
    if (s.node == nodes) out.insert(s.members);
  return out;
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

TEST(PairIsolation, LatencyIsWorseWhenHigher) {
  auto m =
      matrix(4, 5e-6, [](int a, int b, int, double v) { return a == 3 || b == 3 ? v * 4 : v; });
  m.higher_is_better = false;
  EXPECT_EQ(named(m, true), (std::set<std::vector<int>>{{3}}));
}

}  // namespace
