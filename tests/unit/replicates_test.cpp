// The run-to-run comparison with constructed data: the replicate is the repetition (or the run),
// never the iteration; Student's t and Benjamini-Hochberg against known values.
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

TEST(CompareReplicates, ShiftInEveryRepetitionIsSignificant) {
  const RunReplicates base = {{100, 101, 99, 100, 100}}, now = {{120, 121, 119, 120, 121}};
  const auto t = compare_replicates(base, now, 0.01);
  EXPECT_NEAR(t.change, 0.20, 0.01);
  EXPECT_LT(t.p_value, 1e-6);
  EXPECT_GT(t.ci_low, 0.15);
  EXPECT_LT(t.ci_high, 0.25);
}

// Repetitions that disagree with each other (one slow, one fast in each run) leave a shift of
// the pooled median undecided: what varies between repetitions is noise, whatever 300 pooled
// iterations would say.
TEST(CompareReplicates, ShiftBetweenRepetitionsAloneIsNotSignificant) {
  const RunReplicates base = {{100, 130, 95}}, now = {{128, 99, 131}};
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
  // The same run against the first baseline run alone looks certain: its repetitions are tight.
  const auto alone = compare_replicates({history[0]}, now, 0.01);
  EXPECT_LT(alone.p_value, 1e-4);
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
}

// Many constructed clean comparisons: the false-alarm rate of the test at alpha holds.
TEST(CompareReplicates, FalseAlarmRateHoldsOnCleanData) {
  std::mt19937 rng(7);
  std::lognormal_distribution<double> noise(std::log(100.0), 0.05);
  int alarms = 0;
  const int trials = 4000;
  for (int i = 0; i < trials; ++i) {
    RunReplicates a(1), b(1);
    for (int r = 0; r < 3; ++r) {
      a[0].push_back(noise(rng));
      b[0].push_back(noise(rng));
    }
    alarms += compare_replicates(a, b, 0.01).p_value < 0.01;
  }
  EXPECT_LT(alarms, trials * 0.02);  // 1% expected; 2% is four standard errors above
}

}  // namespace
}  // namespace preflight::report
