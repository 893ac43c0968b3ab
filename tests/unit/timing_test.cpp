#include "harness/timing.hpp"

#include <gtest/gtest.h>

#include "harness/usage_error.hpp"

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

TEST(ValidateTiming, NamesTheOption) {
  TimingOptions o;
  o.max_iterations = 2;
  o.min_iterations = 3;
  try {
    validate(o);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--iters"), std::string::npos);
  }
  o = TimingOptions{};
  o.batch_blocks = 0;
  EXPECT_THROW(validate(o), UsageError);
  o = TimingOptions{};
  o.budget_s = 0;
  EXPECT_THROW(validate(o), UsageError);
}

}  // namespace
}  // namespace preflight
