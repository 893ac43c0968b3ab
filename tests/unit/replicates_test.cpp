// The run-to-run comparison with constructed data: the replicate is the repetition (or the run),
// never the iteration; Student's t, the rank-sum test and Benjamini-Hochberg against known
// values.
#include "analysis/replicates.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace preflight::report {
namespace {

TEST(StudentT, KnownValues) {
  // Tables: t(0.975, 1) = 12.706, t(0.975, 4) = 2.776, t(0.995, 10) = 3.169, t(0.975, 1e6) = 1.960.
  EXPECT_NEAR(student_t_quantile(0.975, 1), 12.706, 1e-3);
  EXPECT_NEAR(student_t_quantile(0.975, 4), 2.776, 1e-3);
  EXPECT_NEAR(student_t_quantile(0.995, 10), 3.169, 1e-3);
  EXPECT_NEAR(student_t_quantile(0.975, 1e6), 1.960, 1e-3);
  EXPECT_NEAR(student_t_quantile(0.025, 4), -2.776, 1e-3);
  EXPECT_NEAR(student_t_two_sided_p(2.776, 4), 0.05, 1e-4);
  EXPECT_NEAR(student_t_two_sided_p(3.169, 10), 0.01, 1e-4);
  EXPECT_NEAR(student_t_two_sided_p(0, 7), 1, 1e-12);
  EXPECT_LT(student_t_two_sided_p(50, 3), 1e-4);
}

TEST(RankSum, KnownValues) {
  // R: wilcox.test(1:5, 6:10)$p.value = 0.007937, wilcox.test(c(1,3,5,7,9), c(2,4,6,8,10)) =
  // 0.6905, wilcox.test(1:3, 4:6) = 0.1.
  EXPECT_NEAR(rank_sum_two_sided_p({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}), 0.0079365, 1e-6);
  EXPECT_NEAR(rank_sum_two_sided_p({6, 7, 8, 9, 10}, {1, 2, 3, 4, 5}), 0.0079365, 1e-6);
  EXPECT_NEAR(rank_sum_two_sided_p({1, 3, 5, 7, 9}, {2, 4, 6, 8, 10}), 0.690476, 1e-6);
  EXPECT_NEAR(rank_sum_two_sided_p({1, 2, 3}, {4, 5, 6}), 0.1, 1e-12);
  EXPECT_NEAR(rank_sum_two_sided_p({1, 2, 3}, {1, 2, 3}), 1, 1e-12);
  // Unequal sizes: 1 v 4 separated is 2 / 5; ties count half (U = 10 of 12 here).
  EXPECT_NEAR(rank_sum_two_sided_p({1}, {2, 3, 4, 5}), 0.4, 1e-12);
  EXPECT_NEAR(rank_sum_two_sided_p({1, 2, 2, 3}, {2, 4, 5}), 8.0 / 35, 1e-12);
  // U = 3.5 of 4: P(U <= 3) = 5/6 and P(U >= 4) = 1/6, so p = 1/3.
  EXPECT_NEAR(rank_sum_two_sided_p({1, 2}, {2, 3}), 1.0 / 3, 1e-12);
  EXPECT_NEAR(smallest_rank_sum_p(5, 5), 2.0 / 252, 1e-12);
  EXPECT_NEAR(smallest_rank_sum_p(7, 7), 2.0 / 3432, 1e-12);
  EXPECT_NEAR(smallest_rank_sum_p(1, 1), 1, 1e-12);
  // Large samples go to the normal approximation: no change, and a large one.
  std::vector<double> a, b, c;
  for (int i = 0; i < 120; ++i) {
    a.push_back(i);
    b.push_back(i + 0.5);
    c.push_back(i + 200);
  }
  EXPECT_GT(rank_sum_two_sided_p(a, b), 0.9);
  EXPECT_LT(rank_sum_two_sided_p(a, c), 1e-30);
  // Counted up to 50 x 50 (the count in doubles is exact there to 1e-14): 0.0028083, as counted
  // in integers. Past it (51 x 50) the normal approximation with its continuity correction
  // gives 0.0020210 (0.00200 without) for the exact 0.00182.
  std::vector<double> x(a.begin(), a.begin() + 50), y;
  for (int i = 0; i < 50; ++i) y.push_back(i + 9.5);
  EXPECT_NEAR(rank_sum_two_sided_p(x, y), 0.0028083166, 1e-9);
  y.push_back(59.5);
  EXPECT_NEAR(rank_sum_two_sided_p(x, y), 0.0020210, 1e-6);
  // Ties in the approximation: 30 zeros and 30 ones against 18 and 42, U = 2160 of 3600; with
  // the ties' correction of the variance p = 0.02617 (0.0592 without it).
  std::vector<double> tied_a(30, 0.0), tied_b(18, 0.0);
  tied_a.resize(60, 1.0);
  tied_b.resize(60, 1.0);
  EXPECT_NEAR(rank_sum_two_sided_p(tied_a, tied_b), 0.0261728, 1e-6);
}

TEST(BenjaminiHochberg, StepUp) {
  // m = 4, q = 0.05: thresholds 0.0125, 0.025, 0.0375, 0.05; 0.03 <= 0.0375 makes the first
  // three discoveries though 0.03 alone is above 0.025.
  const auto d = benjamini_hochberg({0.01, 0.03, 0.02, 0.2}, 0.05);
  EXPECT_EQ(d, (std::vector<bool>{true, true, true, false}));
  // Eighty p-values of 0.005 and one of 1e-9: at q = 0.01 a lone 0.005 is no discovery when
  // it is one of 81 tests ...
  std::vector<double> many(80, 0.5);
  many.push_back(0.005);
  EXPECT_FALSE(benjamini_hochberg(many, 0.01).back());
  many.back() = 1e-5;  // ... and 1e-5 is
  EXPECT_TRUE(benjamini_hochberg(many, 0.01).back());
  EXPECT_EQ(benjamini_hochberg({NAN, 0.001}, 0.01), (std::vector<bool>{false, true}));
}

// Three repetitions per run, each the median of many iterations; the iterations themselves do
// not enter the comparison at all.
TEST(CompareReplicates, RepetitionsAreTheUnit) {
  const RunReplicates base = {{100, 104, 98}}, now = {{101, 99, 103}};
  const auto t = compare_replicates(base, now, 0.01);
  EXPECT_EQ(t.level, ReplicateLevel::kRepetitions);
  EXPECT_EQ(t.baseline_n, 3u);
  EXPECT_EQ(t.current_n, 3u);
  EXPECT_TRUE(t.testable);
  EXPECT_GT(t.p_value, 0.5);
  EXPECT_LT(t.ci_low, 0);
  EXPECT_GT(t.ci_high, 0);
  EXPECT_NEAR(t.noise, 0.025, 0.01);  // about the repetitions' CV
}

// A shift in every repetition: as certain as five a side can be (complete separation, 2 / 252),
// which is below 0.01, however much tighter the repetitions were.
TEST(CompareReplicates, ShiftInEveryRepetitionIsSignificant) {
  const RunReplicates base = {{100, 101, 99, 100, 100}}, now = {{120, 121, 119, 120, 121}};
  const auto t = compare_replicates(base, now, 0.01);
  EXPECT_NEAR(t.change, 0.20, 0.01);
  EXPECT_NEAR(t.p_value, 2.0 / 252, 1e-12);
  EXPECT_LT(t.p_value, 0.01);
  const RunReplicates tighter = {{100, 100.01, 99.99, 100, 100}};
  EXPECT_NEAR(compare_replicates(tighter, now, 0.01).p_value, 2.0 / 252, 1e-12);
  EXPECT_GT(t.ci_low, 0.15);
  EXPECT_LT(t.ci_high, 0.25);
}

// Repetitions that disagree with each other (one slow, one fast in each run) leave a shift of
// the pooled median undecided: what varies between repetitions is noise, whatever 300 pooled
// iterations would say.
TEST(CompareReplicates, ShiftBetweenRepetitionsAloneIsNotSignificant) {
  // Seven a side, where complete separation would give 0.00058.
  const RunReplicates base = {{100, 130, 95, 126, 98, 133, 97}},
                      now = {{128, 99, 131, 96, 134, 101, 127}};
  const auto t = compare_replicates(base, now, 0.01);
  EXPECT_GT(t.p_value, 0.05);
  EXPECT_LT(t.ci_low, -0.05);
  EXPECT_GT(t.ci_high, 0.05);
}

TEST(CompareReplicates, OneReplicatePerSideIsNotTestable) {
  const auto t = compare_replicates({{100}}, {{150}}, 0.01);
  EXPECT_FALSE(t.testable);
  EXPECT_TRUE(std::isnan(t.p_value));
  EXPECT_EQ(replicates_to_decide(t, 0.05, 0.01), 0u);
}

// A history of baseline runs: the runs are the replicates, so a shift between launches that the
// repetitions inside each run cannot see is part of the noise.
TEST(CompareReplicates, SeveralBaselineRunsJudgeAtTheLevelOfRuns) {
  const RunReplicates history = {
      {100, 100.5, 99.5}, {110, 110.5, 109.5}, {95, 95.5, 94.5}, {105, 104.5, 105.5}};
  const RunReplicates now = {{112, 112.5, 111.5}};
  const auto t = compare_replicates(history, now, 0.01);
  EXPECT_EQ(t.level, ReplicateLevel::kRuns);
  EXPECT_EQ(t.baseline_n, 4u);
  EXPECT_EQ(t.current_n, 1u);
  EXPECT_GT(t.p_value, 0.05);  // within the launches' spread
  // The same run against the first baseline run alone: its repetitions separate completely, as
  // certain as three a side can be.
  const auto alone = compare_replicates({history[0]}, now, 0.01);
  EXPECT_EQ(alone.level, ReplicateLevel::kRepetitions);
  EXPECT_NEAR(alone.p_value, 0.1, 1e-12);
}

TEST(CompareReplicates, NaNsAndZerosAreDropped) {
  const auto t = compare_replicates({{100, NAN, 102, 0}}, {{101, 99}}, 0.01);
  EXPECT_EQ(t.baseline_n, 2u);
  EXPECT_EQ(t.current_n, 2u);
}

TEST(ReplicatesToDecide, MoreReplicatesForSmallerChangesAndMoreNoise) {
  const auto t = compare_replicates({{100, 104, 98}}, {{101, 99, 103}}, 0.01);
  const std::size_t for_5 = replicates_to_decide(t, 0.05, 0.01);
  const std::size_t for_2 = replicates_to_decide(t, 0.02, 0.01);
  EXPECT_GT(for_5, 3u);  // three were not enough to bound the change within 5%
  EXPECT_GT(for_2, for_5);
  // With that many, the interval's half-width would be under the change.
  const double n = static_cast<double>(for_5);
  EXPECT_LT(student_t_quantile(0.995, 2 * n - 2) * t.noise * std::sqrt(2 / n), std::log(1.05));
  // However small the noise, never fewer than the rank test needs to reach alpha / tests.
  const auto steady = compare_replicates({{100, 100.1, 99.9}}, {{130, 130.1, 129.9}}, 0.01);
  EXPECT_EQ(replicates_to_decide(steady, 0.05, 0.01), 5u);      // 2 / C(10, 5) < 0.01
  EXPECT_EQ(replicates_to_decide(steady, 0.05, 0.01, 36), 8u);  // 2 / C(16, 8) < 0.01 / 36
}

// Many constructed clean comparisons: the false-alarm rate of the test at alpha holds. Six a
// side, where the exact test's level is 8 / 924 = 0.87%.
TEST(CompareReplicates, FalseAlarmRateHoldsOnCleanData) {
  std::mt19937 rng(7);
  std::lognormal_distribution<double> noise(std::log(100.0), 0.05);
  int alarms = 0;
  const int trials = 4000;
  for (int i = 0; i < trials; ++i) {
    RunReplicates a(1), b(1);
    for (int r = 0; r < 6; ++r) {
      a[0].push_back(noise(rng));
      b[0].push_back(noise(rng));
    }
    alarms += compare_replicates(a, b, 0.01).p_value < 0.01;
  }
  EXPECT_LT(alarms, trials * 0.02);  // 0.87% expected; 2% is eight standard errors above
  EXPECT_GT(alarms, trials * 0.003) << "the test does reach alpha on clean data, at its level";
}

}  // namespace
}  // namespace preflight::report
