#include "preflight/common/stats.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
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

// median() selects rather than sorts; the figures the report shows must not move by a bit.
TEST(Median, SelectionGivesTheSortedMedianBitForBit) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> time(-9, 1.5);
  for (std::size_t n = 1; n <= 101; ++n) {
    std::vector<double> v(n);
    for (auto& x : v) x = time(rng);
    auto sorted = v;
    std::sort(sorted.begin(), sorted.end());
    const double expected = quantile_sorted(sorted, 0.5);
    EXPECT_EQ(median(v), expected) << n << " values";
  }
}

// Ties, runs of equal values and sorted or reversed input: the selection's partition must keep
// every copy of the pivot on the right side of it.
TEST(Median, SelectionIsExactOnTiesAndOrderedInput) {
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<int> few(0, 3);
  for (std::size_t n = 17; n <= 200; n += 7) {
    for (int shape = 0; shape < 4; ++shape) {
      std::vector<double> v(n);
      for (std::size_t i = 0; i < n; ++i)
        v[i] = shape == 0   ? few(rng)
               : shape == 1 ? static_cast<double>(i)
               : shape == 2 ? static_cast<double>(n - i)
                            : 1.0;
      auto sorted = v;
      std::sort(sorted.begin(), sorted.end());
      EXPECT_EQ(median(v), quantile_sorted(sorted, 0.5)) << n << " values, shape " << shape;
    }
  }
}

// Many equal values among many (a job's ranks all at one timer tick): still linear, and exact.
TEST(Median, SelectionOfManyEqualValues) {
  std::vector<double> v(1 << 20, 2.0);
  for (std::size_t i = 0; i < v.size(); i += 3) v[i] = 1.0;
  EXPECT_EQ(median(v), 2.0);
}

// Organ-pipe input makes a median of three the second-smallest value pass after pass (a review
// traced 4 elements gone a pass at 40 values): the selection must stay linear, counted in the
// elements its passes touch, not timed.
TEST(Median, SelectionOfOrganPipeInputStaysLinear) {
  if (!work_counted()) GTEST_SKIP() << "built without PREFLIGHT_COUNT_WORK (the ci preset has it)";
  const std::size_t n = 1 << 16;
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n / 2; ++i) v[i] = v[n - 1 - i] = static_cast<double>(i + 1);
  auto sorted = v;
  std::sort(sorted.begin(), sorted.end());
  const auto before = ordered_elements_counted();
  EXPECT_EQ(median(v), quantile_sorted(sorted, 0.5));
  EXPECT_LE(ordered_elements_counted() - before, 8 * n);
}

TEST(Median, CountsTheElementsItOrdersWhereCountingIsBuiltIn) {
  if (!work_counted()) GTEST_SKIP() << "built without PREFLIGHT_COUNT_WORK (the ci preset has it)";
  const auto before = ordered_elements_counted();
  median({3, 1, 2, std::nan("")});
  summarize(std::vector<double>{1, 2});
  EXPECT_EQ(ordered_elements_counted() - before, 5u);
}

}  // namespace
}  // namespace preflight
