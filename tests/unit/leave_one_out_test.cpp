// The lateness analysis's leave-one-out medians (analysis/leave_one_out.hpp) against the median of
// the others taken the plain way, bit for bit, on random groups with ties.
#include "analysis/leave_one_out.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include "preflight/common/stats.hpp"

namespace preflight::report {
namespace {

TEST(LeaveOneOutMedian, EveryMemberLeftOutGivesThePlainMedianOfTheOthers) {
  std::mt19937_64 rng(11);
  for (std::size_t n = 2; n <= 40; ++n)
    for (int trial = 0; trial < 20; ++trial) {
      std::uniform_int_distribution<int> coarse(0, trial % 2 == 0 ? 3 : 1000);  // ties, or few
      std::vector<double> values(n);
      for (auto& v : values) v = 1e-6 * (1 + coarse(rng));
      const LeaveOneOutMedian others(values);
      for (std::size_t i = 0; i < n; ++i) {
        std::vector<double> rest;
        for (std::size_t k = 0; k < n; ++k)
          if (k != i) rest.push_back(values[k]);
        EXPECT_EQ(others.without(values[i]), median(rest)) << n << " values, member " << i;
      }
    }
}

TEST(LeaveSomeOutMedian, AnyFewMembersLeftOutGiveThePlainMedianOfTheRest) {
  std::mt19937_64 rng(12);
  for (std::size_t n = 1; n <= 60; ++n)
    for (int trial = 0; trial < 30; ++trial) {
      std::uniform_int_distribution<int> coarse(0, trial % 3 == 0 ? 2 : 1000);  // ties, or few
      std::vector<double> values(n);
      for (auto& v : values) v = 1e-6 * (1 + coarse(rng));
      // Up to 20: past the 16 places it keeps on the stack.
      const std::size_t most = std::uniform_int_distribution<std::size_t>(0, 20)(rng);
      const LeaveSomeOutMedian rest_of(values, most);
      for (int draw = 0; draw < 10; ++draw) {
        // A random set of members (like a node's ranks), at most `most`.
        std::vector<std::size_t> order(n);
        for (std::size_t i = 0; i < n; ++i) order[i] = i;
        std::shuffle(order.begin(), order.end(), rng);
        const std::size_t m = std::min(n, std::uniform_int_distribution<std::size_t>(0, most)(rng));
        std::vector<double> removed, rest;
        for (std::size_t i = 0; i < n; ++i) (i < m ? removed : rest).push_back(values[order[i]]);
        const double got = rest_of.without(removed);
        if (rest.empty())
          EXPECT_TRUE(std::isnan(got)) << n << " values, all left out";
        else
          EXPECT_EQ(got, median(rest)) << n << " values, " << m << " left out of most " << most;
      }
    }
}

TEST(LeaveSomeOutMedian, MoreLeftOutThanMadeForIsRefused) {
  const LeaveSomeOutMedian rest_of({1, 2, 3, 4, 5}, 1);
  std::vector<double> two{1, 2};
  EXPECT_THROW(rest_of.without(two), std::invalid_argument);
}

}  // namespace
}  // namespace preflight::report
