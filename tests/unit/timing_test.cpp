#include "harness/config/timing.hpp"

#include <gtest/gtest.h>

#include "preflight/common/usage_error.hpp"

#include <yaml-cpp/yaml.h>

namespace preflight {
namespace {

TEST(DecideIterations, FitsTheBudgetWithinBounds) {
  TimingOptions o;
  o.min_iterations = 5;
  o.max_iterations = 100;
  o.budget_s = 0.1;
  EXPECT_EQ(decide_iterations(o, 0.001), 100);   // 100 fit exactly
  EXPECT_EQ(decide_iterations(o, 0.0001), 100);  // more fit: capped
  EXPECT_EQ(decide_iterations(o, 0.004), 25);
  EXPECT_EQ(decide_iterations(o, 1.0), 5);    // slow: the minimum still runs
  EXPECT_EQ(decide_iterations(o, 0.0), 100);  // no estimate: the maximum
}

TimingOptions timing_from(const std::string& yaml) {
  return read_timing(ConfigNode(YAML::Load(yaml), "t.yaml", "timing"), TimingOptions{});
}

TEST(ReadTiming, ReadsEveryKey) {
  const TimingOptions o = timing_from(
      "{warmup: 2, min_iters: 3, max_iters: 40, budget: 50ms, precision: 0.02, batch_blocks: 4, "
      "timeout: 2m, case_budget: 1h}");
  EXPECT_EQ(o.warmup, 2);
  EXPECT_EQ(o.min_iterations, 3);
  EXPECT_EQ(o.max_iterations, 40);
  EXPECT_DOUBLE_EQ(o.budget_s, 0.05);
  EXPECT_DOUBLE_EQ(o.precision, 0.02);
  EXPECT_EQ(o.batch_blocks, 4);
  EXPECT_DOUBLE_EQ(o.timeout_s, 120);
  EXPECT_DOUBLE_EQ(o.case_budget_s, 3600);
  EXPECT_DOUBLE_EQ(timing_from("{}").case_budget_s, 0);  // no limit unless asked
}

TEST(ReadTiming, NamesTheKeyAndItsLine) {
  try {
    timing_from("warmup: 2\nmax_iters: 2\nmin_iters: 5\n");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("t.yaml:2:12: timing.max_iters"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(timing_from("{batch_blocks: 0}"), UsageError);
  EXPECT_THROW(timing_from("{budget: 0s}"), UsageError);
  EXPECT_THROW(timing_from("{warmpu: 3}"), UsageError);
  EXPECT_THROW(timing_from("{precision: 2}"), UsageError);
  EXPECT_THROW(timing_from("{case_budget: 100ms}"), UsageError);
}

TEST(MedianInterval, BracketsTheMedian) {
  std::vector<double> v;
  for (int i = 1; i <= 100; ++i) v.push_back(i);
  const Interval ci = median_interval(v);
  // n = 100: ranks 40 and 61 (1-based)
  EXPECT_DOUBLE_EQ(ci.low, 40);
  EXPECT_DOUBLE_EQ(ci.high, 61);
  const Interval one = median_interval({7});
  EXPECT_DOUBLE_EQ(one.low, 7);
  EXPECT_DOUBLE_EQ(one.high, 7);
}

}  // namespace
}  // namespace preflight
