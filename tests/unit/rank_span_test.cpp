// Spans across ranks on one clock (harness/run/rank_span.hpp) and the clock offsets that put the
// ranks' stamps on rank 0's clock (harness/run/clock_sync.hpp): the arithmetic, without MPI.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "harness/run/clock_sync.hpp"
#include "harness/run/rank_span.hpp"
#include "preflight/common/stats.hpp"

namespace preflight {
namespace {

// Rank 1 leaves the barrier 0.5 s after rank 0; both read for 1 s: the span is 1.5 s, not the
// slowest rank's own 1 s, and the release spread is 0.5 s. Rank 2 idled (NaN) and takes no part.
TEST(RankSpan, LastFinishLessFirstStartOnOneClock) {
  const std::vector<double> starts = {0.0, 0.5, kNaN}, times = {1.0, 1.0, kNaN};
  const IterationSpan s = span_of(starts.data(), times.data(), {0, 1, 2});
  EXPECT_DOUBLE_EQ(s.span_s, 1.5);
  EXPECT_DOUBLE_EQ(s.release_spread_s, 0.5);
  // The late rank finishing first does not shorten it: the span ends at the last finish.
  const std::vector<double> late_but_quick = {0.0, 0.5}, quick = {2.0, 0.25};
  const IterationSpan q = span_of(late_but_quick.data(), quick.data(), {0, 1});
  EXPECT_DOUBLE_EQ(q.span_s, 2.0);
  EXPECT_DOUBLE_EQ(q.release_spread_s, 0.5);
  // Released together: the span is the slowest rank's own time, the spread 0.
  const std::vector<double> together = {3.0, 3.0};
  EXPECT_DOUBLE_EQ(span_of(together.data(), quick.data(), {0, 1}).span_s, 2.0);
  EXPECT_DOUBLE_EQ(span_of(together.data(), quick.data(), {0, 1}).release_spread_s, 0.0);
  // Nobody ran: NaN, never 0.
  EXPECT_TRUE(std::isnan(span_of(starts.data(), times.data(), {2}).span_s));
}

TEST(RankSpan, IterationSpansOfAViewUseItsMembersOnly) {
  // 2 iterations x 3 ranks; the group is ranks 0 and 2.
  const std::vector<double> starts = {0.0, 9.0, 0.25, 0.1, 0.0, 0.0};
  const std::vector<double> times = {1.0, 5.0, 1.0, 1.0, 5.0, 2.0};
  const std::vector<std::vector<double>> counters;
  const std::vector<int> members = {0, 2};
  SampleView view{3, 2, &members, &times, &counters, &starts};
  const auto spans = iteration_spans(view);
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_DOUBLE_EQ(spans[0].span_s, 1.25);
  EXPECT_DOUBLE_EQ(spans[0].release_spread_s, 0.25);
  EXPECT_DOUBLE_EQ(spans[1].span_s, 2.0);
  EXPECT_DOUBLE_EQ(spans[1].release_spread_s, 0.1);
  view.starts = nullptr;  // a case that does not measure spans has none to give
  EXPECT_THROW(iteration_spans(view), std::logic_error);
}

TEST(RankSpan, StartsAreWrittenAfterEachIterationsFirst) {
  std::vector<double> starts = {100.5, 100.25, kNaN, 7.0, 9.0, kNaN};
  relative_to_first(starts, 3);
  EXPECT_DOUBLE_EQ(starts[0], 0.25);
  EXPECT_DOUBLE_EQ(starts[1], 0.0);
  EXPECT_TRUE(std::isnan(starts[2]));
  EXPECT_DOUBLE_EQ(starts[3], 0.0);
  EXPECT_DOUBLE_EQ(starts[4], 2.0);
}

// A remote clock 5 s ahead, the message 1 ms each way: rank 0 sends at 10.000 (its clock), the
// other reads 15.001 (its clock) on arrival, rank 0 hears back at 10.002.
TEST(ClockSync, OffsetIsRemoteLessTheRoundTripsMidpoint) {
  EXPECT_NEAR(offset_from_ping(10.000, 15.001, 10.002), 5.0, 1e-12);
  EXPECT_NEAR(offset_from_ping(10.000, 4.001, 10.002), -6.0, 1e-12);  // a clock behind
  // An asymmetric trip (2 ms out, 0 back) errs by half the round trip at most.
  EXPECT_NEAR(offset_from_ping(10.000, 15.002, 10.002), 5.0, 0.002 / 2 + 1e-12);
}

TEST(ClockSync, RanksOnRankZerosKernelShareItsClock) {
  const std::vector<ClockOffset> measured = {
      {0, 0},           // rank 0
      {2e-6, 10e-6},    // its kernel, within half the round trip: the same clock, offset 0
      {3600.5, 40e-6},  // another host: the measured offset, right to within 20 us
      {0.3, 10e-6},     // its kernel, but 0.3 s off: a shifted clock (time namespace), measured
  };
  const RankClocks clocks = rank_clocks(measured, {true, true, false, true});
  EXPECT_EQ(clocks.offset_s, (std::vector<double>{0, 0, 3600.5, 0.3}));
  EXPECT_DOUBLE_EQ(clocks.error_s[0], 0);
  EXPECT_DOUBLE_EQ(clocks.error_s[1], 0);
  EXPECT_DOUBLE_EQ(clocks.error_s[2], 20e-6);
  EXPECT_DOUBLE_EQ(clocks.error_s[3], 5e-6);
}

}  // namespace
}  // namespace preflight
