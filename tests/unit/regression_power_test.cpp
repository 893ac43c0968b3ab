// The regression model with several baseline runs (analysis/replicates.hpp: runs and their
// repetitions, the run-level noise moderated over the comparison's sizes) on simulated runs of
// known shift and noise: its power, its false alarms and how often it calls an unchanged size
// "same", printed and asserted with a fixed seed. Also the empirical-Bayes pieces
// (analysis/variance_prior.hpp) against known values.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "analysis/replicates.hpp"
#include "analysis/variance_prior.hpp"

namespace preflight::report {
namespace {

TEST(VariancePrior, PolygammaKnownValues) {
  // psi(1) = -Euler's gamma, psi(1/2) = -gamma - 2 ln 2, psi'(1) = pi^2/6, psi'(1/2) = pi^2/2,
  // psi''(1) = -2 zeta(3); psi(10.5), psi'(30) and psi''(30) from Abramowitz & Stegun 6.3-6.4
  // identities (recurrence from the values at 1/2 and 1).
  const double pi = std::acos(-1.0), euler = 0.57721566490153286;
  EXPECT_NEAR(digamma(1), -euler, 1e-14);
  EXPECT_NEAR(digamma(0.5), -euler - 2 * std::log(2.0), 1e-14);
  EXPECT_NEAR(trigamma(1), pi * pi / 6, 1e-14);
  EXPECT_NEAR(trigamma(0.5), pi * pi / 2, 1e-13);
  EXPECT_NEAR(tetragamma(1), -2 * 1.2020569031595943, 1e-13);
  double psi = -euler, tri = pi * pi / 6, tetra = -2 * 1.2020569031595943;
  for (int k = 1; k < 30; ++k) {  // psi(k + 1) = psi(k) + 1 / k, and so on
    psi += 1.0 / k;
    tri -= 1.0 / (k * k);
    tetra += 2.0 / (double(k) * k * k);
  }
  EXPECT_NEAR(digamma(30), psi, 1e-13);
  EXPECT_NEAR(trigamma(30), tri, 1e-14);
  EXPECT_NEAR(tetragamma(30), tetra, 1e-15);
  EXPECT_NEAR(digamma(1e6), std::log(1e6) - 0.5e-6, 1e-12);
  EXPECT_TRUE(std::isnan(digamma(0)));
  EXPECT_TRUE(std::isnan(trigamma(-1)));
}

TEST(VariancePrior, TrigammaInverseInvertsTrigamma) {
  for (double y : {1e-4, 0.01, 0.3, 1.0, 2.5, 17.0, 400.0, 1e5}) {
    const double x = trigamma(y);
    EXPECT_NEAR(trigamma_inverse(x) / y, 1, 1e-8) << y;
  }
  EXPECT_TRUE(std::isnan(trigamma_inverse(-1)));
  EXPECT_TRUE(std::isnan(trigamma_inverse(NAN)));
}

// Variances drawn as the model says (each point's sigma^2 from a scaled inverse chi-square on
// d0 = 6 df around 0.0004, its estimate on 2 df): the fit finds both back.
TEST(VariancePrior, FitFindsTheScaledInverseChiSquareBack) {
  std::mt19937 rng(5);
  std::chi_squared_distribution<double> prior_draw(6), sample_draw(2);
  std::vector<double> variances, dfs;
  for (int i = 0; i < 20000; ++i) {
    const double sigma2 = 6 * 0.0004 / prior_draw(rng);
    variances.push_back(sigma2 * sample_draw(rng) / 2);
    dfs.push_back(2);
  }
  const auto prior = fit_variance_prior(variances, dfs);
  EXPECT_NEAR(prior.df, 6, 0.6);
  EXPECT_NEAR(prior.scale / 0.0004, 1, 0.05);
  EXPECT_EQ(prior.points, 20000u);
}

TEST(VariancePrior, EqualVariancesGiveAnInfinitePriorAndEdgesAreHandled) {
  // Estimates that vary less than chance allows: one common variance, d0 infinite.
  // Estimates on 2 df run low on the log scale (E log(chi2_2 / 2) = digamma(1) = -0.577), so
  // the common variance they imply is e^0.577 = 1.78 times theirs.
  const auto equal = fit_variance_prior({1e-4, 1.01e-4, 0.99e-4, 1e-4}, {2, 2, 2, 2});
  EXPECT_TRUE(std::isinf(equal.df));
  EXPECT_NEAR(equal.scale, 1e-4 * std::exp(0.57721566490153286), 1e-7);
  const auto m = moderate(equal, 4e-4, 2, 8);
  EXPECT_NEAR(m.variance, equal.scale, 1e-12);
  EXPECT_EQ(m.df, 8) << "capped at the df of all points together";
  // One point, NaNs, zero df: nothing to fit; the point keeps its own.
  EXPECT_FALSE(fit_variance_prior({1e-4}, {2}).fitted());
  EXPECT_FALSE(fit_variance_prior({1e-4, NAN, 2e-4}, {2, 2, 0}).fitted());
  EXPECT_EQ(moderate(VariancePrior{}, 3e-4, 2, 10).variance, 3e-4);
  EXPECT_EQ(moderate(VariancePrior{}, 3e-4, 2, 10).df, 2);
  // Most variances exactly zero: no scale to speak of, not fitted; a few zeros are fitted.
  EXPECT_FALSE(fit_variance_prior({0, 0, 0, 1e-4}, {2, 2, 2, 2}).fitted());
  const auto some_zero = fit_variance_prior({0, 1e-4, 3e-4, 2e-4, 5e-5}, {2, 2, 2, 2, 2});
  EXPECT_TRUE(some_zero.fitted());
  EXPECT_GT(some_zero.scale, 0);
  // A finite prior: the posterior lies between the point's own and the prior's scale.
  const VariancePrior p{4, 1e-4, 10};
  const auto between = moderate(p, 9e-4, 2, 100);
  EXPECT_NEAR(between.variance, (4 * 1e-4 + 2 * 9e-4) / 6, 1e-15);
  EXPECT_EQ(between.df, 6);
}

// Three baselines whose run means agree closely while each run's repetitions spread 5%: a run's
// mean is no more precise than its repetitions allow, so a 3% change is not flagged, and the
// noise says it was raised to the repetitions' share.
TEST(RegressionModel, ARunMeanIsNoMorePreciseThanItsRepetitions) {
  const RunReplicates base = {
      {100, 105, 95, 104, 96}, {96, 104, 100, 95, 105}, {105, 100, 96, 95, 104}};
  const RunReplicates now = {{103, 108, 98, 107, 99}};
  const auto t = compare_replicates(base, now, 0.01);
  EXPECT_EQ(t.level, ReplicateLevel::kRuns);
  EXPECT_TRUE(t.runs.floored);
  EXPECT_LT(t.runs.own, 0.001);
  EXPECT_NEAR(t.noise, t.runs.repetition / std::sqrt(5.0), 1e-12);
  EXPECT_GT(t.p_value, 0.05);
  EXPECT_NE(describe_noise(t).find("raised to the repetitions' share"), std::string::npos)
      << describe_noise(t);
}

// The current run's own repetitions count: the same run means, its repetitions ten instead of
// one, give a narrower interval.
TEST(RegressionModel, TheCurrentRunsRepetitionsCount) {
  const RunReplicates base = {
      {100, 104, 96, 102, 98}, {101, 105, 97, 103, 99}, {99, 103, 95, 101, 97}};
  const auto one = compare_replicates(base, {{110}}, 0.01);
  const auto ten =
      compare_replicates(base, {{106, 114, 110, 108, 112, 106, 114, 110, 108, 112}}, 0.01);
  EXPECT_NEAR(one.change, ten.change, 1e-3);
  EXPECT_LT(ten.ci_high - ten.ci_low, one.ci_high - one.ci_low);
  EXPECT_EQ(one.current_n, 1u);
}

TEST(RegressionModel, PointsOfMixedLevelsAndEmptyOnesAreEachJudgedAsTheyCan) {
  const std::vector<ReplicatePair> points = {
      {{{100, 101, 99}, {102, 103, 101}}, {{120, 121, 119}}},  // two baselines: runs
      {{{100, 101, 99}}, {{120, 121, 119}}},                   // one: repetitions
      {{{NAN, 0}}, {{120}}},                                   // nothing measured before
      {{{100, 101}, {102, 101}}, {}},                          // nothing now
  };
  const auto t = compare_replicates(points, 0.01);
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[0].level, ReplicateLevel::kRuns);
  EXPECT_TRUE(t[0].testable);
  EXPECT_EQ(t[0].runs.prior_df, 0) << "one point at the level of runs: nothing to moderate with";
  EXPECT_EQ(t[1].level, ReplicateLevel::kRepetitions);
  EXPECT_NEAR(t[1].p_value, 0.1, 1e-12);
  EXPECT_FALSE(t[2].testable);
  EXPECT_FALSE(t[3].testable);
  // Every run of identical values: zero noise on both levels, a change is certain, none is 1.
  const auto exact = compare_replicates({{100, 100}, {100, 100}}, {{110, 110}}, 0.01);
  EXPECT_EQ(exact.p_value, 0);
  EXPECT_EQ(compare_replicates({{100, 100}, {100, 100}}, {{100, 100}}, 0.01).p_value, 1);
}

// --- Simulated comparisons -------------------------------------------------------------------

// Per size, a launch effect shared by a run's repetitions and a repetition's own noise, given
// as the SDs (of the logarithm, about the CV) the report shows: `run` the SD of a run's mean of
// 5 repetitions ("run-to-run noise"), `repetition` the SD of one repetition about its run's mean;
// the launch's own SD is then sqrt(run^2 - repetition^2 / 5). 3 baseline runs, the current 1.
struct Scenario {
  std::vector<double> run, repetition;  // per size
  double shift = 0;                     // of the current run, every size (1 + shift)
};

constexpr int kSizes = 12, kBaselines = 3, kRepetitions = 5, kTrials = 2000;
constexpr double kAlpha = 0.01, kMinChange = 0.05;

Scenario uniform(double run, double repetition, double shift) {
  return {std::vector<double>(kSizes, run), std::vector<double>(kSizes, repetition), shift};
}

// Run-level noise spread evenly from `low` to `high` over the sizes, the repetitions' SD
// `repetition` times it (or fixed at -repetition when negative).
Scenario spread(double low, double high, double repetition, double shift) {
  Scenario s;
  for (int i = 0; i < kSizes; ++i) {
    const double run = low + (high - low) * i / (kSizes - 1);
    s.run.push_back(run);
    s.repetition.push_back(repetition < 0 ? -repetition : run * repetition);
  }
  s.shift = shift;
  return s;
}

struct Outcome {
  double every_size_slower = 0;  // share of comparisons with every size flagged slower
  double sizes_flagged = 0;      // share of sizes flagged (slower or faster): the power
  double any_flagged = 0;        // share of comparisons with any size flagged
  double any_discovery = 0;      // ... with any size a discovery (before min_change)
  double sizes_same = 0;         // share of sizes called same
};

// How the sizes of a comparison are judged: `together` false, every size alone (its own
// run-level variance only, on 2 df, as the t test on run means but for the floor);
// `two_stage` false, plain Benjamini-Hochberg.
struct Method {
  bool together = true, two_stage = true;
};

Outcome simulate(const Scenario& s, unsigned seed, Method method = {}) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> unit(0, 1);
  Outcome o;
  for (int trial = 0; trial < kTrials; ++trial) {
    std::vector<ReplicatePair> points(kSizes);
    for (std::size_t p = 0; p < kSizes; ++p) {
      const double launch_sd = std::sqrt(
          std::max(0.0, s.run[p] * s.run[p] - s.repetition[p] * s.repetition[p] / kRepetitions));
      auto run = [&](double offset) {
        const double launch = std::log(1e-3 * double(p + 1)) + offset + launch_sd * unit(rng);
        std::vector<double> reps;
        for (int r = 0; r < kRepetitions; ++r)
          reps.push_back(std::exp(launch + s.repetition[p] * unit(rng)));
        return reps;
      };
      for (int b = 0; b < kBaselines; ++b) points[p].baseline.push_back(run(0));
      points[p].current.push_back(run(std::log1p(s.shift)));
    }
    std::vector<ReplicateTest> tests;
    if (method.together) {
      tests = compare_replicates(points, kAlpha);
    } else {
      for (const auto& p : points)
        tests.push_back(compare_replicates(p.baseline, p.current, kAlpha));
    }
    std::vector<double> p_values;
    for (const auto& t : tests) p_values.push_back(t.p_value);
    const auto discoveries = method.two_stage ? two_stage_benjamini_hochberg(p_values, kAlpha)
                                              : benjamini_hochberg(p_values, kAlpha);
    int slower = 0, flagged = 0, same = 0, discovered = 0;
    for (std::size_t p = 0; p < kSizes; ++p) {
      const auto shift = judge_shift(tests[p], discoveries[p], kMinChange);
      slower += shift == Shift::kHigher;
      flagged += shift == Shift::kHigher || shift == Shift::kLower;
      same += shift == Shift::kNone;
      discovered += discoveries[p];
    }
    constexpr double n = kTrials;
    o.every_size_slower += (slower == kSizes) / n;
    o.sizes_flagged += double(flagged) / kSizes / n;
    o.any_flagged += (flagged > 0) / n;
    o.any_discovery += (discovered > 0) / n;
    o.sizes_same += double(same) / kSizes / n;
  }
  return o;
}

void print(const char* what, const Outcome& o) {
  std::printf(
      "  %-52s every size slower %5.3f, sizes flagged %5.3f, any flagged %5.3f, any "
      "discovery %5.3f, sizes same %5.3f\n",
      what, o.every_size_slower, o.sizes_flagged, o.any_flagged, o.any_discovery, o.sizes_same);
}

std::string label(const char* format, double a, double b) {
  char out[96];
  std::snprintf(out, sizeof out, format, a * 100, b * 100);
  return out;
}

// A 20% slowdown at every one of 12 sizes: flagged at nearly every size up to 3% run-to-run
// noise (the SD of a run's mean), at every size of a comparison in nearly all up to 2%; each
// size judged alone (the t test on run means, 2 df, as before) finds none.
TEST(RegressionModel, PowerAgainstThreeBaselines) {
  std::printf(
      "  %d sizes, %d baselines x %d repetitions against 1 x %d, %d comparisons each, "
      "every size +20%%:\n",
      kSizes, kBaselines, kRepetitions, kRepetitions, kTrials);
  std::vector<Outcome> at;
  unsigned seed = 17;
  for (double noise : {0.01, 0.02, 0.03, 0.04, 0.05}) {
    at.push_back(simulate(uniform(noise, noise, 0.2), seed++));
    print(label("run-to-run %.0f%%, repetitions %.0f%%", noise, noise).c_str(), at.back());
  }
  print("run-to-run and repetitions 1-5% over the sizes",
        simulate(spread(0.01, 0.05, 1, 0.2), seed++));
  const auto plain = simulate(uniform(0.03, 0.03, 0.2), 19, {true, false});
  print("run-to-run 3%, repetitions 3%, plain Benjamini-Hochberg", plain);
  const auto alone = simulate(uniform(0.03, 0.03, 0.2), 19, {false, true});
  print("run-to-run 3%, repetitions 3%, each size alone", alone);
  EXPECT_GE(at[2].sizes_flagged, 0.95) << "the power at 3% run-to-run noise";
  EXPECT_GE(at[2].every_size_slower, 0.9);
  EXPECT_GE(at[1].every_size_slower, 0.99);
  EXPECT_LT(alone.every_size_slower, 0.05) << "the t test on run means alone has not the power";
  EXPECT_GT(at[2].every_size_slower, plain.every_size_slower + 0.1)
      << "the second stage takes back what plain BH loses where most sizes changed";
}

// Nothing changed: any size flagged is a false alarm. The two-stage Benjamini-Hochberg at alpha
// holds the chance of any false alarm near alpha when nothing changed, where the moderated t is
// calibrated: where every size's noise is alike (asserted at alpha plus three standard errors of
// 2000 comparisons), and about where it differs fivefold over the sizes or launches vary far more
// than repetitions (a prior fitted to unlike variances: asserted at twice alpha).
TEST(RegressionModel, FalseAlarmsWithoutAShift) {
  std::printf(
      "  %d sizes, %d baselines x %d repetitions against 1 x %d, %d comparisons each, "
      "no change:\n",
      kSizes, kBaselines, kRepetitions, kRepetitions, kTrials);
  struct Case {
    std::string what;
    Scenario s;
    double most;  // the false-alarm rate asserted
  };
  const double alike = kAlpha + 3 * std::sqrt(kAlpha * (1 - kAlpha) / kTrials);
  const Case cases[] = {
      {"run-to-run 1%, repetitions 1%", uniform(0.01, 0.01, 0), alike},
      {"run-to-run 3%, repetitions 3%", uniform(0.03, 0.03, 0), alike},
      {"run-to-run 3%, repetitions 0.5% (tight runs apart)", uniform(0.03, 0.005, 0), alike},
      {"run-to-run 1.3%, repetitions 3% (no launch effect)",
       uniform(0.03 / std::sqrt(5.0), 0.03, 0), alike},
      {"run-to-run and repetitions 1-5% over the sizes", spread(0.01, 0.05, 1, 0), 2 * kAlpha},
      {"run-to-run 0.5-10% over the sizes, repetitions 1%", spread(0.005, 0.1, -0.01, 0),
       2 * kAlpha},
  };
  unsigned seed = 30;
  for (const auto& c : cases) {
    const auto o = simulate(c.s, seed++);
    print(c.what.c_str(), o);
    EXPECT_LE(o.any_discovery, c.most) << c.what;
    EXPECT_LE(o.any_flagged, c.most) << c.what;
  }
}

// Nothing changed, and the noise is low: a size is called same when its change's 99% interval
// lies within +-5%. With one current run against three, the interval's half-width is at least
// 2.58 x sqrt(1 + 1/3) times the run-to-run noise, so above 1.6% a size is called same only where
// its noise happens to be estimated below what it is, by any model; at 1% most are.
TEST(RegressionModel, SameWithoutAShiftAtLowNoise) {
  std::printf(
      "  %d sizes, %d baselines x %d repetitions against 1 x %d, %d comparisons each, "
      "no change:\n",
      kSizes, kBaselines, kRepetitions, kRepetitions, kTrials);
  unsigned seed = 40;
  std::vector<Outcome> at;
  for (const auto& [run, repetition] : std::vector<std::pair<double, double>>{
           {0.01, 0.01}, {0.01, 0.02}, {0.015, 0.015}, {0.02, 0.02}}) {
    at.push_back(simulate(uniform(run, repetition, 0), seed++));
    print(label("run-to-run %.1f%%, repetitions %.1f%%", run, repetition).c_str(), at.back());
  }
  const auto spread_out = simulate(spread(0.01, 0.02, 1, 0), seed++);
  print("run-to-run and repetitions 1-2% over the sizes", spread_out);
  EXPECT_GE(at[0].sizes_same, 0.5);
  EXPECT_GE(at[1].sizes_same, 0.5);
  EXPECT_LT(at[3].sizes_same, 0.05) << "2% is beyond what one run against three can bound";
}

}  // namespace
}  // namespace preflight::report
