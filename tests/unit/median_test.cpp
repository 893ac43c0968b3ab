#include "harness/stats.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace preflight {
namespace {

TEST(Median, OddEvenAndEmpty) {
  EXPECT_DOUBLE_EQ(median({5, 1, 3}), 3);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median({7}), 7);
  EXPECT_TRUE(std::isnan(median({})));
  // NaN values (ranks that took no part) are left out, as in summarize().
  EXPECT_DOUBLE_EQ(median({std::nan(""), 2, 4}), 3);
  EXPECT_TRUE(std::isnan(median({std::nan("")})));
}

TEST(Median, AgreesWithSummarize) {
  const std::vector<double> v = {0.3, 0.1, 0.7, 0.2, 0.9, 0.4};
  EXPECT_DOUBLE_EQ(median(v), summarize(v).median);
}

}  // namespace
}  // namespace preflight
