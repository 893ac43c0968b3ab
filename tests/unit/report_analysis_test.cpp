// The report's analyses on synthetic results: the alpha-beta fit recovers the model it was made
// from, scaling efficiency and its finding, acceptance verdicts on either side of and across a
// threshold, instance winners per dollar, and the report's exit code.
#include <gtest/gtest.h>

#include <unistd.h>
#include <random>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include "analysis/acceptance.hpp"
#include "analysis/case_view.hpp"
#include "analysis/instances.hpp"
#include "analysis/regression.hpp"
#include "analysis/report.hpp"
#include "analysis/report_text.hpp"
#include "analysis/scaling.hpp"
#include "plugins/alpha_beta.hpp"
#include "plugins/plugins.hpp"
#include "reader/v1_adapter.hpp"

namespace preflight::report {
namespace {

struct PointSpec {
  double size, seconds, busbw;
  double ci_low = 0, ci_high = 0;  // of the time; 0: the time itself
  double iterations = 50;
};

Column numbers(std::vector<double> v, std::string unit = "", std::string better = "") {
  Column c;
  c.numbers = std::move(v);
  c.unit = std::move(unit);
  c.better = std::move(better);
  return c;
}

std::string fmt_index(int i) {
  char text[8];
  std::snprintf(text, sizeof text, "%06d", i);
  return text;
}

CaseData make_case(int index, const std::string& collective, const std::string& topology,
                   double ranks, double ladder_nodes, const std::vector<PointSpec>& points) {
  CaseData c;
  c.index = index;
  c.group_name = fmt_index(index);
  c.name = collective + " float32 out-of-place " + topology;
  c.family = "comm";
  c.backend = "mpi";
  c.status = "ok";
  c.params = {{"collective", collective}, {"topology", topology},
              {"layout", topology},       {"ladder_nodes", std::to_string(ladder_nodes)},
              {"benchmark", "b"},         {"variant", ""},
              {"repetition", "0"},        {"group_count", "1"},
              {"wrong_elements", "0"}};
  std::vector<double> point, group, group_ranks, iterations, time, low, high, size, busbw;
  for (std::size_t p = 0; p < points.size(); ++p) {
    const auto& s = points[p];
    point.push_back(static_cast<double>(p));
    group.push_back(-1);
    group_ranks.push_back(ranks);
    iterations.push_back(s.iterations);
    time.push_back(s.seconds);
    low.push_back(s.ci_low > 0 ? s.ci_low : s.seconds);
    high.push_back(s.ci_high > 0 ? s.ci_high : s.seconds);
    size.push_back(s.size);
    busbw.push_back(s.busbw);
    c.iteration_times.push_back(
        std::vector<double>(static_cast<std::size_t>(s.iterations), s.seconds));
  }
  c.stats = {{"point", numbers(point)},
             {"group", numbers(group)},
             {"group_ranks", numbers(group_ranks, "ranks")},
             {"iterations", numbers(iterations, "iterations")},
             {"time_median", numbers(time, "s")},
             {"time_cv", numbers(std::vector<double>(points.size(), 0.01))},
             {"median_ci_low", numbers(low, "s")},
             {"median_ci_high", numbers(high, "s")},
             {"size_bytes", numbers(size, "B")},
             {"busbw", numbers(busbw, "GB/s", "higher")}};
  return c;
}

RunData make_run(std::vector<CaseData> cases) {
  RunData run;
  run.path = "synthetic.h5";
  run.status = "complete";
  run.world_size = 8;
  run.node_count = 8;
  run.cases = std::move(cases);
  // As the reader does for a version-1 file: the declarations the family's table gives.
  for (auto& c : run.cases) declare_v1(c, run.node_count);
  return run;
}

std::string write_temp(const std::string& text) {
  char path[] = "/tmp/preflight-rules-XXXXXX";
  const int fd = mkstemp(path);
  close(fd);
  std::ofstream(path) << text;
  return path;
}

TEST(AlphaBetaFit, RecoversTheRingModelOfAllreduce) {
  const double alpha = 5e-6, beta = 1 / 20e9;
  std::vector<CaseData> cases;
  int index = 0;
  for (double n : {2.0, 4.0, 8.0}) {
    std::vector<PointSpec> points;
    for (double size = 8; size <= 64 * 1024 * 1024; size *= 16) {
      const double t = 2 * (n - 1) * alpha + 2 * (n - 1) / n * size * beta;
      points.push_back({size, t, size / t * 2 * (n - 1) / n / 1e9});
    }
    cases.push_back(make_case(index++, "allreduce", "ladder", n, n, points));
  }
  const auto run = make_run(cases);
  const auto fits = plugins::alpha_beta_fits(run, "r");
  ASSERT_EQ(fits.size(), 1u);
  EXPECT_NEAR(fits[0].alpha_s / alpha, 1, 1e-6);
  EXPECT_NEAR(fits[0].beta_s_per_byte / beta, 1, 1e-6);
  EXPECT_LT(fits[0].median_rel_error, 1e-9);
  // 16 nodes of one rank: ring 2*15 steps; tree 2*4 steps, 2*S*beta.
  const auto& p = fits[0].predictions.front();
  EXPECT_EQ(p.nodes, 16);
  EXPECT_NEAR(p.ring_s, 30 * alpha + 2 * 15.0 / 16 * p.size * beta, 1e-12);
  EXPECT_NEAR(p.tree_s, 8 * alpha + 2 * p.size * beta, 1e-12);
}

TEST(Scaling, EfficiencyAgainstTheFirstMultiNodeStepAndItsFinding) {
  std::vector<CaseData> cases;
  const double large = 64.0 * 1024 * 1024;
  int index = 0;
  for (auto [nodes, bw] : {std::pair{1.0, 0.0}, {2.0, 10.0}, {4.0, 9.0}, {8.0, 6.0}})
    cases.push_back(make_case(index++, "allreduce", "ladder", nodes, nodes, {{large, 0.01, bw}}));
  const auto run = make_run(cases);
  const auto series = scaling_series(run, "r");
  ASSERT_EQ(series.size(), 1u);
  ASSERT_EQ(series[0].points.size(), 3u) << "the one-rank step has no bus bandwidth";
  EXPECT_EQ(series[0].band, "large");
  EXPECT_EQ(series[0].reference_nodes, 2);
  EXPECT_DOUBLE_EQ(series[0].points[1].efficiency, 0.9);
  EXPECT_DOUBLE_EQ(series[0].points[2].efficiency, 0.6);
  std::vector<RunReport> runs{{&run, "r", {}}};
  const auto findings = find_bottlenecks(runs, series);
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(findings[0].stage, Stage::kCommunication);
  EXPECT_NE(findings[0].title.find("falls to 60% of its 2-node value at 8 nodes"),
            std::string::npos)
      << findings[0].title;
}

TEST(Scaling, NoFindingWhenEfficiencyHolds) {
  std::vector<CaseData> cases;
  int index = 0;
  for (double nodes : {2.0, 4.0, 8.0})
    cases.push_back(make_case(index++, "allreduce", "ladder", nodes, nodes, {{1e8, 0.01, 10}}));
  const auto run = make_run(cases);
  // The series must be there, efficiency 1 at every step: "no finding" is about it.
  const auto series = scaling_series(run, "r");
  ASSERT_EQ(series.size(), 1u);
  ASSERT_EQ(series[0].points.size(), 3u);
  for (const auto& p : series[0].points) EXPECT_DOUBLE_EQ(p.efficiency, 1.0) << p.nodes;
  std::vector<RunReport> runs{{&run, "r", {}}};
  for (const auto& f : find_bottlenecks(runs, series))
    EXPECT_NE(f.stage, Stage::kCommunication) << f.title;
}

// One case, one size, busbw 10 GB/s with a given interval (as a time interval, time 1 s).
RunData run_with_interval(double bw_low, double bw_high, double iterations = 50) {
  PointSpec p{1e9, 1, 10, 10 / bw_high, 10 / bw_low, iterations};
  return make_run({make_case(0, "allreduce", "world", 8, 0, {p})});
}

CheckVerdict judge_with(const std::string& rules_text, const RunData& run) {
  const auto path = write_temp(rules_text);
  const auto rules = read_rules(path);
  std::remove(path.c_str());
  const auto checks = evaluate(rules, run, "r", {}, 0.01);
  EXPECT_EQ(checks.size(), 1u);
  return checks.empty() ? CheckVerdict::kInconclusive : checks[0].verdict;
}

const char* kRule =
    "rules:\n  - name: bw\n    where: {collective: allreduce}\n    metric: busbw\n    expect: "
    "10\n    tolerance: 10%\n";

TEST(Acceptance, PassFailAndInconclusiveAroundTheThreshold) {
  EXPECT_EQ(judge_with(kRule, run_with_interval(9.5, 10.5)), CheckVerdict::kPass);
  EXPECT_EQ(judge_with(kRule, run_with_interval(7.0, 8.5)), CheckVerdict::kFail);
  EXPECT_EQ(judge_with(kRule, run_with_interval(8.5, 9.5)), CheckVerdict::kInconclusive);
  EXPECT_EQ(judge_with(kRule, run_with_interval(9.5, 10.5, 5)), CheckVerdict::kInconclusive)
      << "too few samples";
}

TEST(Acceptance, LowerIsBetterForTimes) {
  const char* rule =
      "rules:\n  - name: latency\n    metric: time_median\n    expect: 1.2\n    tolerance: 0\n";
  EXPECT_EQ(judge_with(rule, run_with_interval(9.5, 10.5)), CheckVerdict::kPass);  // 0.95-1.05 s
  const char* strict =
      "rules:\n  - name: latency\n    metric: time_median\n    expect: 0.5\n    tolerance: 0\n";
  EXPECT_EQ(judge_with(strict, run_with_interval(9.5, 10.5)), CheckVerdict::kFail);
}

// Neither a pass nor a verdict: "not measured", a warning that leaves the exit code alone.
TEST(Acceptance, ARuleThatMatchesNothingIsAWarningNotAPass) {
  const char* rule =
      "rules:\n  - name: bw\n    where: {collective: alltoall}\n    metric: busbw\n    expect: 1\n";
  EXPECT_EQ(judge_with(rule, run_with_interval(9.5, 10.5)), CheckVerdict::kNotMeasured);
}

// A rule for a family the run holds, naming a metric or an attribute none of its cases has, is
// a typo: refused (exit 2) with the nearest name. For a family the run did not measure, or with
// no family given, it matches nothing, and the check says what no case has.
TEST(Acceptance, MisspeltNamesAreRefusedWithTheNearest) {
  const auto run = run_with_interval(9.5, 10.5);
  const auto evaluate_text = [&](const std::string& text) {
    const auto path = write_temp(text);
    const auto rules = read_rules(path);
    std::remove(path.c_str());
    return evaluate(rules, run, "r", {}, 0.01);
  };
  const auto refused = [&](const std::string& text, const std::string& needle) {
    try {
      evaluate_text(text);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const RulesError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  refused("rules:\n  - {name: bw, where: {family: comm}, metric: bus_bw, expect: 1}\n",
          "rule 'bw': no comm case in synthetic.h5 has the metric 'bus_bw' (did you mean "
          "'busbw'?)");
  refused("rules:\n  - {where: {family: comm, colective: allreduce}, metric: busbw, expect: 1}\n",
          "the attribute 'colective' (did you mean 'collective'?)");
  const auto other_family =
      evaluate_text("rules:\n  - {where: {family: storage}, metric: agg_bw, expect: 1}\n");
  ASSERT_EQ(other_family.size(), 1u);
  // Matching nothing is a warning (not measured), not an inconclusive verdict (issue 33).
  EXPECT_EQ(other_family[0].verdict, CheckVerdict::kNotMeasured);
  const auto no_family = evaluate_text("rules:\n  - {metric: bus_bw, expect: 1}\n");
  ASSERT_EQ(no_family.size(), 1u);
  EXPECT_EQ(no_family[0].verdict, CheckVerdict::kNotMeasured);
  EXPECT_NE(no_family[0].reason.find("no case has the metric 'bus_bw' (did you mean 'busbw'?)"),
            std::string::npos)
      << no_family[0].reason;
}

TEST(Acceptance, BadRulesNameTheLineAndKey) {
  const auto expect_error = [](const std::string& text, const std::string& needle) {
    const auto path = write_temp(text);
    try {
      read_rules(path);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const RulesError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
    std::remove(path.c_str());
  };
  expect_error("rules:\n  - metric: busbw\n    expct: 3\n", ":3:5: unknown key 'expct'");
  expect_error("rules:\n  - metric: busbw\n", "needs exactly one of 'expect");
  expect_error("rules:\n  - metric: busbw\n    expect: fast\n", "'expect' must be a number");
  expect_error("rules:\n  - metric: busbw\n    expect: 1\n    tolerance: 150%\n", "below 100%");
  // A bare 10 is not read as 1000% and refused as such: the message says how to write it.
  expect_error("rules:\n  - metric: busbw\n    expect: 1\n    tolerance: 10\n",
               "'tolerance: 10' is a fraction of the expected value (1000%); write 10% for");
  expect_error("rules:\n  - metric: busbw\n    expect: 1\n    band: huge\n",
               "small, medium or large");
  expect_error("rules:\n  - metric: busbw\n    expect: 1\n    sizes: [1Q]\n", "unknown unit");
  // A list's bad element: its position in the list, at its own line and column.
  expect_error("rules:\n  - metric: busbw\n    expect: 1\n    sizes: [8, 64K, 1Q]\n",
               ":4:21: sizes[2]: expected a size in bytes such as 8, 64K, 1M or 2GiB, found '1Q'");
  expect_error("rules: [\n", "not valid YAML");
}

// A run whose case ran once per time given (repetitions 0, 1, ...), each repetition `iterations`
// iterations of exactly that time, busbw 1 GB/s over it.
RunData repetitions_run(const std::vector<double>& times, double size = 1e6, int iterations = 300) {
  std::vector<CaseData> cases;
  for (std::size_t r = 0; r < times.size(); ++r) {
    auto c = make_case(static_cast<int>(r), "allreduce", "world", 8, 0,
                       {{size, times[r], size / times[r] / 1e9, 0, 0, double(iterations)}});
    c.params["repetition"] = std::to_string(r);
    cases.push_back(c);
  }
  return make_run(cases);
}

// Five repetitions around `level`, 1% apart: the fewest with which the rank test of one run
// against another can reach p < 0.01 (2 / C(10, 5) = 0.0079) at a lone size.
RunData steady_run(double level, double size = 1e6) {
  return repetitions_run({level, level * 1.01, level * 0.99, level * 1.005, level * 0.995}, size);
}

TEST(Instances, WinnerPerDollar) {
  // Five repetitions each: 10 GB/s for 2/h against 8 GB/s for 1/h, 1% apart between repetitions.
  const auto a = steady_run(0.1, 1e9), b = steady_run(0.125, 1e9);
  Catalogue cat;
  cat.path = "prices.yaml";
  cat.instances = {{"fast", {"fast", 2.0, ""}}, {"cheap", {"cheap", 1.0, ""}}};
  const auto cmp = compare_instances({&a, &b}, {"fast", "cheap"}, cat, 0.01, 0.05);
  ASSERT_EQ(cmp.rows.size(), 1u);
  EXPECT_EQ(cmp.rows[0].winner, 1) << "8 GB/s for 1/h beats 10 GB/s for 2/h";
  EXPECT_NEAR(cmp.rows[0].cells[0].per_dollar, 5, 0.01);
  EXPECT_NEAR(cmp.rows[0].cells[1].per_dollar, 8, 0.01);
  EXPECT_TRUE(cmp.rows[0].clear);
  EXPECT_EQ(cmp.wins, (std::vector<int>{0, 1}));
  EXPECT_THROW(compare_instances({&a, &b}, {"fast", "unknown"}, cat, 0.01, 0.05), CatalogueError);
}

// An instance that wins on average but whose repetitions spread over the runner-up's does not
// win clearly.
TEST(Instances, ANoisyWinIsNoClearWin) {
  // Seven repetitions each, enough for a clear win had the noisy one's all been faster.
  const auto steady = repetitions_run({0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1}, 1e9);
  const auto noisy = repetitions_run({0.07, 0.13, 0.085, 0.095, 0.075, 0.12, 0.08}, 1e9);
  Catalogue cat;
  cat.instances = {{"steady", {"steady", 1.0, ""}}, {"noisy", {"noisy", 1.0, ""}}};
  const auto cmp = compare_instances({&steady, &noisy}, {"steady", "noisy"}, cat, 0.01, 0.05);
  ASSERT_EQ(cmp.rows.size(), 1u);
  EXPECT_EQ(cmp.rows[0].winner, 1);
  EXPECT_FALSE(cmp.rows[0].clear);
}

// Repetitions that disagree with each other while every one is internally steady: pooled, the
// 1800 iterations of each run would make any shift of their median look certain (a rank test on
// them gives p < 1e-30); judged by their repetitions (six a side, enough for p 0.0022 had they
// separated), nothing is flagged.
TEST(Regression, ShiftsBetweenRepetitionsAloneFlagNothing) {
  const auto base = repetitions_run({1.0, 1.1, 0.95, 1.08, 0.97, 1.12}),
             now = repetitions_run({1.1, 0.96, 1.12, 0.99, 1.09, 0.95});
  const auto r = compare_runs({&base}, now, RegressionOptions{});
  ASSERT_EQ(r.points.size(), 1u);
  EXPECT_NE(r.points[0].verdict, Verdict::kSlower);
  EXPECT_NE(r.points[0].verdict, Verdict::kFaster);
  EXPECT_GT(r.points[0].test.p_value, 0.5);
  EXPECT_EQ(r.points[0].test.baseline_n, 6u);
  EXPECT_EQ(r.points[0].test.current_n, 6u);
  EXPECT_EQ(r.points[0].test.level, ReplicateLevel::kRepetitions);
  EXPECT_GT(r.points[0].test.noise, 0.05);
}

TEST(Regression, AShiftInEveryRepetitionIsFlagged) {
  const auto base = steady_run(1.0), now = steady_run(1.2);
  const auto r = compare_runs({&base}, now, RegressionOptions{});
  ASSERT_EQ(r.points.size(), 1u);
  EXPECT_EQ(r.points[0].verdict, Verdict::kSlower);
  EXPECT_NEAR(r.points[0].test.change, 0.2, 0.01);
  EXPECT_TRUE(r.points[0].discovery);
  const auto faster = compare_runs({&now}, base, RegressionOptions{});
  EXPECT_EQ(faster.points[0].verdict, Verdict::kFaster);
  // The same shift smaller than min_change is not flagged, however certain.
  const auto steady = steady_run(1.0), small = steady_run(1.03);
  const auto r3 = compare_runs({&steady}, small, RegressionOptions{});
  EXPECT_TRUE(r3.points[0].discovery);
  EXPECT_EQ(r3.points[0].verdict, Verdict::kSame);
}

TEST(Regression, TooFewRepetitionsAreUndecidedWithTheCountNeeded) {
  // One repetition a side: no estimate of the run-to-run noise at all.
  const auto one = repetitions_run({1.0}), other = repetitions_run({2.5});
  const auto r = compare_runs({&one}, other, RegressionOptions{});
  ASSERT_EQ(r.points.size(), 1u);
  EXPECT_EQ(r.points[0].verdict, Verdict::kUndecided);
  Report report;
  report.regressions.push_back({{}, nullptr, r});
  EXPECT_EQ(report.exit_code(), 3);
  // Two noisy repetitions a side: undecided, with how many would bound a 5% change.
  const auto a = repetitions_run({1.0, 1.08}), b = repetitions_run({1.04, 0.97});
  const auto two = compare_runs({&a}, b, RegressionOptions{});
  EXPECT_EQ(two.points[0].verdict, Verdict::kUndecided);
  EXPECT_GT(two.points[0].needed, 2u);
  // Three steady repetitions a side, 20% apart: separated completely, and still only p 0.1, the
  // most three a side can show; five would decide.
  const auto three = repetitions_run({1.0, 1.01, 0.99}), later = repetitions_run({1.2, 1.21, 1.19});
  const auto r3 = compare_runs({&three}, later, RegressionOptions{});
  EXPECT_EQ(r3.points[0].verdict, Verdict::kUndecided);
  EXPECT_NEAR(r3.points[0].test.p_value, 0.1, 1e-12);
  EXPECT_EQ(r3.points[0].needed, 5u);
}

// Runs of many sizes, `repetitions` each, every size's repetitions spread by `spread` (log SD)
// around its time; `shifted` sizes (the first ones) `by` slower in every repetition of `now`.
std::pair<RunData, RunData> many_sizes(int sizes, int repetitions, double spread, int shifted,
                                       double by, unsigned seed) {
  std::mt19937 rng(seed);
  std::lognormal_distribution<double> noise(0, spread);
  auto run = [&](double factor, int tight) {
    std::vector<CaseData> cases;
    for (int r = 0; r < repetitions; ++r) {
      std::vector<PointSpec> points;
      for (int s = 0; s < sizes; ++s) {
        const double level = 1e-3 * (s + 1) * (s < shifted ? factor : 1);
        // The shifted sizes as a launch can get them: steady, 0.1% apart.
        const double t = s < tight ? level * (1 + 0.001 * (r % 3)) : level * noise(rng);
        const double size = double(1 << 10) * (s + 1);
        points.push_back({size, t, size / t / 1e9, 0, 0, 50});
      }
      auto c = make_case(r, "allreduce", "world", 8, 0, points);
      c.params["repetition"] = std::to_string(r);
      cases.push_back(c);
    }
    return make_run(cases);
  };
  auto base = run(1, shifted);
  return {std::move(base), run(1 + by, shifted)};
}

// What one launch can do to one size: 30% off, its repetitions tight. Two runs cannot tell that
// from a change at that size (the t test gives p < 1e-20); among 36 sizes the rank test's 0.0079
// (5 a side) is no discovery. 20% at eight sizes together, 7 a side (0.00058 each, under
// 8 x 0.01 / 36), is.
TEST(Regression, OneSizeOffInOneLaunchIsNotFlaggedButAShiftAtManySizesIs) {
  auto [base, now] = many_sizes(36, 5, 0.1, 1, 0.3, 11);
  const auto lone = compare_runs({&base}, now, RegressionOptions{});
  ASSERT_EQ(lone.points.size(), 36u);
  EXPECT_EQ(lone.count(Verdict::kSlower), 0u);
  EXPECT_NEAR(lone.points[0].test.p_value, 2.0 / 252, 1e-12);
  EXPECT_FALSE(lone.points[0].discovery);
  EXPECT_EQ(lone.points[0].verdict, Verdict::kUndecided);
  EXPECT_GE(lone.points[0].needed, 8u) << "2 / C(16, 8) is the first below 0.01 / 36";
  auto [base7, now7] = many_sizes(36, 7, 0.1, 8, 0.2, 12);
  const auto band = compare_runs({&base7}, now7, RegressionOptions{});
  EXPECT_EQ(band.count(Verdict::kSlower), 8u);
  for (int s = 0; s < 8; ++s) EXPECT_EQ(band.points[s].verdict, Verdict::kSlower) << s;
}

// A history of baseline runs, each steady inside but apart from the others: the spread between
// the runs is the noise a change must exceed.
TEST(Regression, AHistoryOfBaselinesSetsTheNoise) {
  const auto r1 = steady_run(1.0), r2 = steady_run(1.1), r3 = steady_run(0.95);
  const auto now = steady_run(1.12);
  const auto against_one = compare_runs({&r1}, now, RegressionOptions{});
  EXPECT_EQ(against_one.points[0].verdict, Verdict::kSlower);  // tight repetitions, 12% apart
  const auto against_history = compare_runs({&r1, &r2, &r3}, now, RegressionOptions{});
  EXPECT_EQ(against_history.points[0].test.level, ReplicateLevel::kRuns);
  EXPECT_EQ(against_history.points[0].test.baseline_n, 3u);
  EXPECT_NE(against_history.points[0].verdict, Verdict::kSlower);
  // Far beyond the history's spread it is flagged again.
  const auto much = steady_run(3.0);
  EXPECT_EQ(compare_runs({&r1, &r2, &r3}, much, RegressionOptions{}).points[0].verdict,
            Verdict::kSlower);
}

// A run of 12 sizes and 5 repetitions, each size's time its level x the run's launch factor at
// that size (lognormal, SD `launch`) x `factor`, the repetitions 1% apart about it.
RunData launched_run(std::mt19937& rng, double launch, double factor) {
  std::lognormal_distribution<double> launch_noise(0, launch);
  std::vector<double> launched;
  for (int s = 0; s < 12; ++s) launched.push_back(launch_noise(rng));
  std::vector<CaseData> cases;
  for (int r = 0; r < 5; ++r) {
    std::vector<PointSpec> points;
    for (int s = 0; s < 12; ++s) {
      const double t = 1e-3 * (s + 1) * launched[s] * factor * (1 + 0.01 * (r - 2));
      const double size = double(1 << 10) * (s + 1);
      points.push_back({size, t, size / t / 1e9, 0, 0, 50});
    }
    auto c = make_case(r, "allreduce", "world", 8, 0, points);
    c.params["repetition"] = std::to_string(r);
    cases.push_back(c);
  }
  return make_run(cases);
}

// Three baselines whose launches differ by 2% at each size: a run 20% slower at every size is
// slower at every size (each size's t test on 3 v 1 run means alone, at df 2, the model before,
// flagged 3 of the 12), and a run like the baselines flags nothing; against launches
// 0.5% apart most sizes are same. The evidence says what noise each size was judged against.
TEST(Regression, AHistoryOfBaselinesJudgesRunsWithTheirRepetitions) {
  std::mt19937 rng(21);
  const auto b1 = launched_run(rng, 0.02, 1), b2 = launched_run(rng, 0.02, 1),
             b3 = launched_run(rng, 0.02, 1);
  const auto slow = launched_run(rng, 0.02, 1.2), like = launched_run(rng, 0.02, 1);
  const auto r = compare_runs({&b1, &b2, &b3}, slow, RegressionOptions{});
  ASSERT_EQ(r.points.size(), 12u);
  EXPECT_EQ(r.count(Verdict::kSlower), 12u);
  for (const auto& p : r.points) {
    EXPECT_EQ(p.test.level, ReplicateLevel::kRuns);
    EXPECT_GT(p.test.df, 2) << "moderated over the 12 sizes";
    EXPECT_GT(p.test.runs.prior_df, 0);
    EXPECT_EQ(p.test.runs.repetition_df, 16) << "4 runs of 5 repetitions";
  }
  EXPECT_NE(regression_evidence(r.points[0]).find("run-to-run noise"), std::string::npos)
      << regression_evidence(r.points[0]);
  EXPECT_NE(regression_evidence(r.points[0]).find("moderated over 12 points"), std::string::npos)
      << regression_evidence(r.points[0]);
  const auto like_them = compare_runs({&b1, &b2, &b3}, like, RegressionOptions{});
  EXPECT_EQ(like_them.count(Verdict::kSlower) + like_them.count(Verdict::kFaster), 0u);
  // Same needs the 99% interval within +-5%, about 2.6 x 1.15 times the run-to-run noise
  // wide: with launches 0.5% apart (a run's mean 0.9% with its repetitions) most sizes are same.
  const auto q1 = launched_run(rng, 0.005, 1), q2 = launched_run(rng, 0.005, 1),
             q3 = launched_run(rng, 0.005, 1), quiet = launched_run(rng, 0.005, 1);
  const auto same = compare_runs({&q1, &q2, &q3}, quiet, RegressionOptions{});
  EXPECT_EQ(same.count(Verdict::kSlower) + same.count(Verdict::kFaster), 0u);
  EXPECT_GE(same.count(Verdict::kSame), 6u);
}

// Eighty sizes compared at once, none changed, repetitions noisy: the false discovery rate over
// all of them keeps a run from one false alarm per comparison. Ten repetitions, so that the
// rank test could reach 0.01 / 80 at a lone size (2 / C(20, 10) = 1.1e-5).
TEST(Regression, ManySizesAtOnceRaiseNoFalseAlarm) {
  std::mt19937 rng(3);
  std::lognormal_distribution<double> noise(0, 0.03);
  int alarmed = 0;
  for (int trial = 0; trial < 50; ++trial) {
    auto run = [&] {
      std::vector<CaseData> cases;
      for (int r = 0; r < 10; ++r) {
        std::vector<PointSpec> points;
        for (int s = 0; s < 80; ++s) {
          const double t = 1e-3 * (s + 1) * noise(rng);
          points.push_back({double(1 << 10) * (s + 1), t, 1, 0, 0, 50});
        }
        auto c = make_case(r, "allreduce", "world", 8, 0, points);
        c.params["repetition"] = std::to_string(r);
        cases.push_back(c);
      }
      return make_run(cases);
    };
    const auto a = run(), b = run();
    const auto r = compare_runs({&a}, b, RegressionOptions{});
    ASSERT_EQ(r.points.size(), 80u);
    alarmed += r.count(Verdict::kSlower) + r.count(Verdict::kFaster) > 0;
  }
  EXPECT_LE(alarmed, 2) << "of 50 comparisons of 80 unchanged sizes";
}

TEST(Regression, PointsAreMatchedBySizeNotPosition) {
  auto twice = [](std::vector<PointSpec> points) {
    auto a = make_case(0, "allreduce", "world", 8, 0, points);
    auto b = a;
    b.params["repetition"] = "1";
    return make_run({a, b});
  };
  const auto base = twice({{65536, 1.0, 1}, {1048576, 2.0, 1}});
  const auto now = twice({{4096, 0.5, 1}, {65536, 1.0, 1}});
  const auto r = compare_runs({&base}, now, RegressionOptions{});
  ASSERT_EQ(r.points.size(), 1u);
  EXPECT_EQ(r.points[0].size, "65536");
  EXPECT_EQ(r.points[0].verdict, Verdict::kSame);
  ASSERT_EQ(r.unmatched.size(), 2u);  // 4 KiB only now, 1 MiB only before
}

// Every case of the run as the harness measured its hosts' load: shares others took.
RunData with_host_load(RunData run, double stolen, double foreign) {
  for (auto& c : run.cases) {
    c.host_cpu_stolen = stolen;
    c.host_cpu_foreign = foreign;
    c.host_cpu_s = 10;
  }
  return run;
}

TEST(HostLoad, PooledOverTheCasesByTheirCpuTime) {
  auto run = with_host_load(repetitions_run({1.0, 1.0}), 0.01, 0.0);
  run.cases[1].host_cpu_stolen = 0.04;
  run.cases[1].host_cpu_foreign = 0.02;
  run.cases[1].host_cpu_s = 30;
  const auto load = run_host_load(run);
  EXPECT_EQ(load.cases_measured, 2u);
  EXPECT_DOUBLE_EQ(load.stolen, (0.01 * 10 + 0.04 * 30) / 40);
  EXPECT_DOUBLE_EQ(load.foreign, 0.02 * 30 / 40);
  EXPECT_NE(describe(load).find("hypervisor 3.2%"), std::string::npos) << describe(load);
  run.cases[0].host_cpu_foreign = -0.1;  // tick rounding beyond what the other case used
  EXPECT_DOUBLE_EQ(run_host_load(run).foreign, 0) << "pooled below zero is none";
  EXPECT_FALSE(run_host_load(repetitions_run({1.0})).measured()) << "a file from before";
  EXPECT_EQ(describe(run_host_load(repetitions_run({1.0}))), "not measured");
}

// A run measured while a neighbour took the hosts' CPU is slower in every repetition, and its
// repetitions agree with each other: only the hosts' load tells it from a regression.
TEST(Regression, ARunOnBusierHostsIsWithheldNotFlagged) {
  const auto base = with_host_load(steady_run(1.0), 0.002, 0.001);
  const auto busy = with_host_load(steady_run(1.3), 0.07, 0.01);
  const auto r = compare_runs({&base}, busy, RegressionOptions{});
  ASSERT_EQ(r.points.size(), 1u);
  EXPECT_EQ(r.points[0].verdict, Verdict::kUndecided);
  EXPECT_TRUE(r.points[0].withheld);
  EXPECT_NE(r.withheld.find("no baseline"), std::string::npos) << r.withheld;
  ASSERT_EQ(r.environment.size(), 1u) << "the hosts' load is named as what changed";
  EXPECT_NE(r.environment[0].current.find("8.0%"), std::string::npos) << r.environment[0].current;
  // The same shift on hosts as quiet as the baseline's, or unmeasured, is flagged.
  const auto quiet = with_host_load(steady_run(1.3), 0.004, 0.0);
  EXPECT_EQ(compare_runs({&base}, quiet, {}).points[0].verdict, Verdict::kSlower);
  EXPECT_TRUE(compare_runs({&base}, quiet, {}).withheld.empty());
  const auto unmeasured = steady_run(1.3);
  EXPECT_EQ(compare_runs({&base}, unmeasured, {}).points[0].verdict, Verdict::kSlower);
  // Equally busy hosts on both sides are the same state: judged.
  const auto busy_base = with_host_load(steady_run(1.0), 0.07, 0.0);
  EXPECT_EQ(compare_runs({&busy_base}, busy, {}).points[0].verdict, Verdict::kSlower);
  // In a history, the baseline measured on busier hosts is left out and the others judge.
  const auto base2 = with_host_load(steady_run(1.02), 0.003, 0.0),
             base3 = with_host_load(steady_run(0.99), 0.001, 0.0);
  const auto history = compare_runs({&base, &busy_base, &base2, &base3}, quiet, {});
  ASSERT_EQ(history.notes.size(), 1u);
  EXPECT_NE(history.notes[0].find("left out"), std::string::npos);
  EXPECT_EQ(history.points[0].test.baseline_n, 3u);
  EXPECT_EQ(history.points[0].verdict, Verdict::kSlower);
}

TEST(Acceptance, BaselineRulesAreNotJudgedAgainstABusierHost) {
  const auto path = write_temp("rules:\n  - {metric: busbw, baseline: true, tolerance: 5%}\n");
  const auto rules = read_rules(path);
  std::remove(path.c_str());
  const auto base = with_host_load(steady_run(1.0), 0.002, 0.0);
  const auto busy = with_host_load(steady_run(1.25), 0.06, 0.0);
  const auto checks = evaluate(rules, busy, "now", {&base}, 0.01);
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].verdict, CheckVerdict::kInconclusive);
  EXPECT_NE(checks[0].reason.find("not judged"), std::string::npos) << checks[0].reason;
  const auto quiet = with_host_load(steady_run(1.25), 0.002, 0.0);
  EXPECT_EQ(evaluate(rules, quiet, "now", {&base}, 0.01)[0].verdict, CheckVerdict::kFail);
}

// A rule relative to the baseline judges a case's repetitions against the baseline's.
TEST(Acceptance, BaselineRulesJudgeRepetitions) {
  const char* rule = "rules:\n  - {metric: busbw, baseline: true, tolerance: 5%}\n";
  const auto path = write_temp(rule);
  const auto rules = read_rules(path);
  std::remove(path.c_str());
  const auto base = steady_run(1.0);
  auto verdict = [&](const RunData& now) {
    const auto checks = evaluate(rules, now, "now", {&base}, 0.01);
    EXPECT_EQ(checks.size(), 1u) << "one check for the case's five repetitions";
    return checks.empty() ? CheckVerdict::kInconclusive : checks[0].verdict;
  };
  EXPECT_EQ(verdict(steady_run(1.25)), CheckVerdict::kFail);  // 20% less busbw
  EXPECT_EQ(verdict(repetitions_run({1.0, 1.005, 0.995, 1.002, 0.998})), CheckVerdict::kPass);
  EXPECT_EQ(verdict(steady_run(0.8)), CheckVerdict::kPass);  // better
  EXPECT_EQ(verdict(repetitions_run({1.0, 1.3, 0.9, 1.2, 0.95})), CheckVerdict::kInconclusive);
  // Three repetitions a side cannot fail it: 20% less in every one is p 0.1 at best.
  const auto three = repetitions_run({1.0, 1.01, 0.99});
  const auto checks = evaluate(rules, repetitions_run({1.25, 1.26, 1.24}), "now", {&three}, 0.01);
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].verdict, CheckVerdict::kInconclusive);
  EXPECT_NE(checks[0].reason.find("about 5 repetitions per side"), std::string::npos)
      << checks[0].reason;
  EXPECT_THROW(evaluate(rules, base, "now", {}, 0.01), RulesError);
}

// A baseline rule is judged with the whole comparison, as the regression judges its sizes: one
// launch's shift at the one size it picks is no failure among 36 (alone it would be), while a
// change at eight sizes fails it.
TEST(Acceptance, BaselineRulesAreJudgedWithTheWholeComparison) {
  const auto path = write_temp("rules:\n  - {metric: busbw, baseline: true, sizes: [1K]}\n");
  const auto rules = read_rules(path);
  std::remove(path.c_str());
  auto verdict = [&](const std::pair<RunData, RunData>& runs) {
    const auto checks = evaluate(rules, runs.second, "now", {&runs.first}, 0.01);
    EXPECT_EQ(checks.size(), 1u);
    return checks.empty() ? CheckVerdict::kPass : checks[0].verdict;
  };
  EXPECT_EQ(verdict(many_sizes(36, 7, 0.1, 1, 0.3, 11)), CheckVerdict::kInconclusive);
  EXPECT_EQ(verdict(many_sizes(1, 7, 0.1, 1, 0.3, 11)), CheckVerdict::kFail);
  EXPECT_EQ(verdict(many_sizes(36, 7, 0.1, 8, 0.2, 12)), CheckVerdict::kFail);
}

// A baseline rule against a history of baselines has the regression's power: busbw 20% lower at
// every size fails it (the model before left 9 of the 12 sizes inconclusive); against quiet
// baselines a run like them passes (most sizes: where the change's interval reaches past the
// tolerance, it is inconclusive).
TEST(Acceptance, BaselineRulesAgainstAHistoryJudgeRunsWithTheirRepetitions) {
  const auto path = write_temp("rules:\n  - {metric: busbw, baseline: true, tolerance: 5%}\n");
  const auto rules = read_rules(path);
  std::remove(path.c_str());
  std::mt19937 rng(21);
  const auto b1 = launched_run(rng, 0.02, 1), b2 = launched_run(rng, 0.02, 1),
             b3 = launched_run(rng, 0.02, 1);
  const auto slow = launched_run(rng, 0.02, 1.2);
  const auto failed = evaluate(rules, slow, "now", {&b1, &b2, &b3}, 0.01);
  ASSERT_EQ(failed.size(), 12u);
  for (const auto& k : failed) {
    EXPECT_EQ(k.verdict, CheckVerdict::kFail) << k.reason;
    EXPECT_NE(k.reason.find("run-to-run noise"), std::string::npos) << k.reason;
  }
  // A pass needs the interval's worse end within 5%: with one run against three it is about
  // 2.6 x 1.15 times the run-to-run noise wide, so the launches here differ by 0.5%.
  const auto q1 = launched_run(rng, 0.005, 1), q2 = launched_run(rng, 0.005, 1),
             q3 = launched_run(rng, 0.005, 1), quiet = launched_run(rng, 0.005, 1);
  const auto passed = evaluate(rules, quiet, "now", {&q1, &q2, &q3}, 0.01);
  ASSERT_EQ(passed.size(), 12u);
  const auto count = [&](CheckVerdict v) {
    return std::count_if(passed.begin(), passed.end(),
                         [&](const Check& k) { return k.verdict == v; });
  };
  EXPECT_EQ(count(CheckVerdict::kFail), 0);
  EXPECT_GE(count(CheckVerdict::kPass), 9);
}

// A storage case: agg_bw 1 GB/s from 10 iterations of 1 GB in 1 s, latency counters per iteration.
RunData storage_run(const std::string& cache, double resident) {
  auto c = make_case(0, "read", "", 4, 0, {{1e6, 1.0, 1}});
  c.family = "storage";
  c.params["cache_state"] = cache;
  c.params["fs_type"] = "ext4";
  c.stats.erase("size_bytes");
  c.stats["block_bytes"] = numbers({1 << 20}, "B");
  c.stats["agg_bw"] = numbers({1.0}, "GB/s", "higher");
  c.stats["lat_p99"] = numbers({0.004}, "s", "lower");
  c.stats["resident_before_max"] = numbers({resident});
  c.iteration_times[0].assign(10, 1.0);
  c.iteration_totals["bytes"] = {std::vector<double>(10, 1e9)};
  for (int i = 0; i < 10; ++i)
    c.iteration_totals["bytes"][0][static_cast<std::size_t>(i)] = 1e9 * (0.9 + 0.02 * i);
  c.iteration_counters["lat_p99"] = {
      {0.001, 0.002, 0.003, 0.004, 0.004, 0.004, 0.005, 0.006, 0.007, 0.008}};
  c.stats["iterations"] = numbers({10});
  return make_run({c});
}

TEST(Acceptance, StorageIntervalsComeFromPerIterationValues) {
  // agg_bw per iteration 0.9 .. 1.08 GB/s: an expectation of 1.0 +- 0% straddles it.
  EXPECT_EQ(judge_with("rules:\n  - {metric: agg_bw, expect: 1.0, tolerance: 0}\n",
                       storage_run("evicted", 0)),
            CheckVerdict::kInconclusive);
  EXPECT_EQ(judge_with("rules:\n  - {metric: agg_bw, expect: 0.5}\n", storage_run("evicted", 0)),
            CheckVerdict::kPass);
  // p99 latency 1 .. 8 ms per iteration: 4 ms expected straddles; 50 ms passes.
  EXPECT_EQ(judge_with("rules:\n  - {metric: lat_p99, expect: 0.004, tolerance: 0}\n",
                       storage_run("evicted", 0)),
            CheckVerdict::kInconclusive);
  EXPECT_EQ(judge_with("rules:\n  - {metric: lat_p99, expect: 0.05}\n", storage_run("evicted", 0)),
            CheckVerdict::kPass);
}

TEST(Acceptance, StorageReadsFromMemoryAreNotJudged) {
  const char* rule = "rules:\n  - {metric: agg_bw, expect: 0.5}\n";
  EXPECT_EQ(judge_with(rule, storage_run("warm", 1)), CheckVerdict::kInconclusive);
  EXPECT_EQ(judge_with(rule, storage_run("evicted", 0.5)), CheckVerdict::kInconclusive);
  EXPECT_EQ(judge_with(rule, storage_run("evicted", std::nan(""))), CheckVerdict::kInconclusive);
  EXPECT_EQ(judge_with("rules:\n  - {metric: agg_bw, expect: 0.5, where: {cache_state: warm}}\n",
                       storage_run("warm", 1)),
            CheckVerdict::kPass)
      << "unless the rule asks for warm reads";
}

TEST(Instances, OnlyWhatEveryInstanceRanAndUnlikeJobsWarned) {
  auto a = make_run({make_case(0, "allreduce", "world", 8, 0, {{1e9, 0.1, 10}}),
                     make_case(1, "allgather", "world", 8, 0, {{1e9, 0.1, 10}})});
  auto b = make_run({make_case(0, "allreduce", "world", 8, 0, {{1e9, 0.1, 10}})});
  b.world_size = 16;
  Catalogue cat;
  cat.instances = {{"x", {"x", 1.0, ""}}, {"y", {"y", 1.0, ""}}};
  const auto cmp = compare_instances({&a, &b}, {"x", "y"}, cat, 0.01, 0.05);
  ASSERT_EQ(cmp.rows.size(), 1u) << "allgather ran on x only";
  EXPECT_EQ(cmp.warnings.size(), 1u);
  EXPECT_EQ(cmp.clear_wins[0] + cmp.clear_wins[1], 0) << "identical times are no clear win";
}

TEST(Report, ExitCodeFailBeforeInconclusiveBeforePass) {
  Report r;
  EXPECT_EQ(r.exit_code(), 0);
  r.checks.resize(2);
  r.checks[0].verdict = CheckVerdict::kPass;
  r.checks[1].verdict = CheckVerdict::kInconclusive;
  EXPECT_EQ(r.exit_code(), 3);
  r.checks[0].verdict = CheckVerdict::kFail;
  EXPECT_EQ(r.exit_code(), 1);
}

// A family the report has never heard of, declared as a v2 file declares it: the generic code
// follows the declarations alone.
CaseData widget_case(int index, double ranks, double nodes, double rate, double iterations) {
  CaseData c;
  c.index = index;
  c.group_name = fmt_index(index);
  c.family = "widgets";
  c.name = "spin fast " + std::to_string(static_cast<int>(ranks)) + " ranks";
  c.status = "ok";
  c.params = {{"benchmark", "w"}, {"repetition", "0"}, {"group_count", "1"}};
  c.stats = {{"point", numbers({0, 1})},
             {"group", numbers({-1, -1})},
             {"group_ranks", numbers({ranks, ranks})},
             {"iterations", numbers({iterations, iterations})},
             {"time_median", numbers({1, 1}, "s")},
             {"batch", numbers({32, 64}, "items")},
             {"spins", numbers({rate * ranks, rate * ranks}, "spins/s")}};
  c.stats["spins"].direction = schema::Direction::kHigher;
  c.stats["spins"].kind = schema::Kind::kWorkRate;
  c.stats["spins"].headline = true;
  c.stats["time_median"].direction = schema::Direction::kLower;
  c.meaning.stage = schema::Stage::kCompute;
  c.meaning.x_axis = "batch";
  c.meaning.bands = schema::Bands::kEachPoint;
  c.meaning.scaling = schema::Scaling::kAggregate;
  c.meaning.subject = "spin fast";
  c.meaning.series = "ranks";
  c.meaning.span_nodes = static_cast<std::int64_t>(nodes);
  c.meaning.peer_slow = true;
  c.meaning.min_samples = 20;
  c.meaning.quality = {"no_such_rule"};
  c.iteration_times = {std::vector<double>(static_cast<std::size_t>(iterations), 1.0),
                       std::vector<double>(static_cast<std::size_t>(iterations), 1.0)};
  return c;
}

TEST(Declarations, AnUnknownFamilyIsAnalysedFromItsDeclarationsAlone) {
  RunData run;
  run.path = "w.h5";
  run.status = "complete";
  run.world_size = 8;
  run.node_count = 2;
  // Per rank 10, 9, 6 spins/s at 2, 4, 8 ranks on 2 nodes: an aggregate that saturates.
  run.cases = {widget_case(0, 2, 2, 10, 50), widget_case(1, 4, 2, 9, 50),
               widget_case(2, 8, 2, 6, 5)};
  const CaseView v(run.cases[0]);
  EXPECT_EQ(v.primary_metric(), "spins");
  EXPECT_EQ(v.metrics(), std::vector<std::string>{"spins"});
  EXPECT_EQ(v.point_key(1), 64);
  EXPECT_EQ(v.point_label(1), "64 items");
  EXPECT_EQ(v.subject(), "w: spin fast");
  const auto series = scaling_series(run, "w");
  // Each x its own series; only the ranks-per-node curve has two scales (one 4-per-node step).
  ASSERT_EQ(series.size(), 2u);
  const auto per_node = std::find_if(series.begin(), series.end(), [](const ScalingSeries& s) {
    return s.topology.rfind("ranks per node", 0) == 0 && s.band == "64 items";
  });
  ASSERT_NE(per_node, series.end());
  EXPECT_TRUE(per_node->aggregate);
  EXPECT_EQ(per_node->stage, schema::Stage::kCompute);
  ASSERT_EQ(per_node->points.size(), 3u);
  EXPECT_DOUBLE_EQ(per_node->points[2].efficiency, 0.6);

  std::vector<RunData> runs{run};
  ReportInputs in;
  in.runs = &runs;
  in.labels = {"w"};
  const auto report = build_report(in);
  bool compute = false, few = false;
  for (const auto& f : report.findings) {
    compute =
        compute || (f.stage == Stage::kCompute && f.title.find("saturates") != std::string::npos);
    few = few || f.title.rfind("few samples", 0) == 0;
  }
  EXPECT_TRUE(compute) << "the scaling loss is in the declared stage";
  EXPECT_TRUE(few) << "5 iterations is fewer than the declared 20";
  const auto& nm = report.not_measured;
  EXPECT_EQ(std::count(nm.begin(), nm.end(), "compute"), 0);
  EXPECT_EQ(std::count(nm.begin(), nm.end(), "data in"), 1);
  EXPECT_EQ(std::count(nm.begin(), nm.end(),
                       "quality rule no_such_rule: not checked (no report plug-in serves it)"),
            1);
}

TEST(Plugins, OneTableServesTheQualityRule) {
  std::vector<std::string> names;
  int serving = 0;
  for (const auto& p : plugins::all()) {
    names.emplace_back(p.name);
    serving += p.quality_rule == schema::kQualityServedFromMemory && p.point_quality != nullptr;
  }
  EXPECT_EQ(names,
            (std::vector<std::string>{"silent-corruption", "alpha-beta", "served-from-memory",
                                      "inter-vs-intra", "checkpoint-interval", "pair-matrix",
                                      "feeds-accelerator", "step-projection"}));
  EXPECT_EQ(serving, 1);
}

TEST(V1Adapter, DeclaresWhatTheV2WriterDeclares) {
  auto run = make_run({make_case(0, "allreduce", "inter", 4, 0, {{1e6, 1.0, 1}})});
  const auto& c = run.cases[0];
  EXPECT_EQ(c.meaning.stage, schema::Stage::kCommunication);
  EXPECT_EQ(c.meaning.x_axis, "size_bytes");
  EXPECT_EQ(c.meaning.scaling, schema::Scaling::kPerRank);
  EXPECT_EQ(c.meaning.series, "inter");
  EXPECT_EQ(c.meaning.span_nodes, 4) << "inter: one rank per node, group 0's ranks";
  EXPECT_TRUE(c.meaning.peer_late);
  EXPECT_EQ(c.meaning.min_samples, 10);
  EXPECT_TRUE(c.stats.at("busbw").headline);
  EXPECT_EQ(c.stats.at("busbw").per_iteration, schema::PerIteration::kInverseTime);
  EXPECT_EQ(c.stats.at("time_median").per_iteration, schema::PerIteration::kTime);
  const auto storage = storage_run("evicted", 0);
  const auto& s = storage.cases[0];
  EXPECT_EQ(s.meaning.work_counter, "bytes");
  EXPECT_EQ(s.meaning.quality, std::vector<std::string>{"served_from_memory"});
  EXPECT_EQ(s.meaning.scaling, schema::Scaling::kAggregate);
  EXPECT_FALSE(s.meaning.peer_late);
  EXPECT_EQ(s.stats.at("agg_bw").per_iteration_source, "bytes");
  EXPECT_TRUE(s.stats.at("agg_bw").headline);
}

// A case attribute read through a declared Attr: present and of the declared type, or nullopt.
// The reader keeps attributes as text, so the type is the text's: a number an older file stored
// as a string still reads as a number, and a whole number with a fraction as an int64.
TEST(CaseView, GetReadsAnAttributeThroughItsDeclaration) {
  CaseData c;
  c.params = {{"whole", "4"},    {"fraction", "0.5"}, {"written_whole", "4.0"},
              {"word", "warm"},  {"empty", ""},       {"not_a_number", "4 nodes"},
              {"negative", "-1"}};
  const CaseView v(c);
  using schema::Attr;
  EXPECT_EQ(v.get(Attr<std::int64_t>{"whole", "", ""}), 4);
  EXPECT_EQ(v.get(Attr<double>{"whole", "", ""}), 4.0);
  EXPECT_EQ(v.get(Attr<std::string>{"whole", "", ""}), "4");
  EXPECT_EQ(v.get(Attr<double>{"fraction", "", ""}), 0.5);
  EXPECT_EQ(v.get(Attr<std::int64_t>{"fraction", "", ""}), std::nullopt) << "not whole";
  EXPECT_EQ(v.get(Attr<std::int64_t>{"written_whole", "", ""}), 4);
  EXPECT_EQ(v.get(Attr<std::uint64_t>{"whole", "", ""}), 4u);
  EXPECT_EQ(v.get(Attr<std::int64_t>{"negative", "", ""}), -1);
  EXPECT_EQ(v.get(Attr<std::uint64_t>{"negative", "", ""}), std::nullopt) << "out of range";
  EXPECT_EQ(v.get(Attr<std::string>{"word", "", ""}), "warm");
  EXPECT_EQ(v.get(Attr<double>{"word", "", ""}), std::nullopt);
  EXPECT_EQ(v.get(Attr<std::int64_t>{"not_a_number", "", ""}), std::nullopt);
  EXPECT_EQ(v.get(Attr<std::string>{"empty", "", ""}), "");
  EXPECT_EQ(v.get(Attr<double>{"empty", "", ""}), std::nullopt);
  EXPECT_EQ(v.get(Attr<std::string>{"absent", "", ""}), std::nullopt);
  EXPECT_TRUE(std::isnan(or_nan(v.get(Attr<double>{"absent", "", ""}))));
  EXPECT_EQ(or_nan(v.get(Attr<std::int64_t>{"whole", "", ""})), 4.0);
  EXPECT_EQ(attribute_text(v.get(Attr<std::int64_t>{"whole", "", ""})), "4");
  EXPECT_EQ(attribute_text(v.get(Attr<std::uint64_t>{"whole", "", ""})), "4");
  EXPECT_EQ(attribute_text(v.get(Attr<std::int64_t>{"absent", "", ""})), "");
}

}  // namespace
}  // namespace preflight::report
