// The lateness analysis's leave-one-out medians (analysis/leave_one_out.hpp) against the median of
// the others taken the plain way, bit for bit, on random groups with ties.
#include "analysis/leave_one_out.hpp"

#include <gtest/gtest.h>

#include <random>

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

}  // namespace
}  // namespace preflight::report
