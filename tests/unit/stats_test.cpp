#include "preflight/common/stats.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace preflight {
namespace {

TEST(Summarize, OrderStatisticsMatchNumpyLinearInterpolation) {
  // numpy: percentile([5,1,4,2,3,10,7,6,9,8], [5,50,95]) = [1.45, 5.5, 9.55]
  const std::vector<double> v = {5, 1, 4, 2, 3, 10, 7, 6, 9, 8};
  const Summary s = summarize(v);
  EXPECT_EQ(s.count, 10u);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 10);
  EXPECT_NEAR(s.p5, 1.45, 1e-12);
  EXPECT_NEAR(s.median, 5.5, 1e-12);
  EXPECT_NEAR(s.p95, 9.55, 1e-12);
  EXPECT_DOUBLE_EQ(s.mean, 5.5);
  // sample standard deviation of 1..10 is sqrt(55/6)
  EXPECT_NEAR(s.cv, std::sqrt(55.0 / 6.0) / 5.5, 1e-12);
}

TEST(Summarize, LeavesOutNaNsOfIdleRanks) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Summary s = summarize(std::vector<double>{nan, 2, nan, 4});
  EXPECT_EQ(s.count, 2u);
  EXPECT_DOUBLE_EQ(s.median, 3);
}

TEST(Summarize, EmptyAndSingle) {
  const Summary empty = summarize(std::vector<double>{});
  EXPECT_EQ(empty.count, 0u);
  EXPECT_TRUE(std::isnan(empty.median));
  const Summary one = summarize(std::vector<double>{7});
  EXPECT_DOUBLE_EQ(one.median, 7);
  EXPECT_DOUBLE_EQ(one.p5, 7);
  EXPECT_DOUBLE_EQ(one.cv, 0);
}

}  // namespace
}  // namespace preflight
