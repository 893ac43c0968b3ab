#include "analysis/mann_whitney.hpp"

#include <gtest/gtest.h>

#include <random>

namespace preflight::report {
namespace {

TEST(MannWhitney, TextbookExampleWithTies) {
  // By hand: ranks of a = 1,2,3,4,5.5,7.5,9.5,11.5 (sum 44), U = 44 - 8*9/2 = 8; mean 32;
  // ties 4 x (2^3 - 2) = 24; variance 64/12 * (17 - 24/240) = 90.13; z = (24 - 0.5)/9.494 = 2.475;
  // two-sided p = erfc(2.475 / sqrt 2) = 0.0133.
  const MannWhitney r = mann_whitney({1, 2, 3, 4, 5, 6, 7, 8}, {5, 6, 7, 8, 9, 10, 11, 12});
  EXPECT_DOUBLE_EQ(r.u, 8.0);
  EXPECT_NEAR(r.p_value, 0.0133, 0.0005);
  EXPECT_LT(r.z, 0);
}

TEST(MannWhitney, SameDistributionIsNotSignificant) {
  std::mt19937 rng(7);
  std::lognormal_distribution<double> time(0, 0.1);
  std::vector<double> a, b;
  for (int i = 0; i < 200; ++i) a.push_back(time(rng)), b.push_back(time(rng));
  EXPECT_GT(mann_whitney(a, b).p_value, 0.05);
}

TEST(MannWhitney, ShiftIsSignificant) {
  std::mt19937 rng(7);
  std::lognormal_distribution<double> time(0, 0.1);
  std::vector<double> a, b;
  for (int i = 0; i < 100; ++i) a.push_back(time(rng)), b.push_back(1.2 * time(rng));
  const MannWhitney r = mann_whitney(a, b);
  EXPECT_LT(r.p_value, 1e-6);
  EXPECT_LT(r.z, 0);  // a is smaller
}

TEST(MannWhitney, AllEqualIsNoEvidence) {
  EXPECT_DOUBLE_EQ(mann_whitney({3, 3, 3}, {3, 3}).p_value, 1.0);
}

}  // namespace
}  // namespace preflight::report
