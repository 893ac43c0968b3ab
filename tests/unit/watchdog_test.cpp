// The watchdog's decisions and messages, without threads or MPI: a hang is no progress, not a
// long case; a case's budget is reported as a budget; a rank that rank 0 does not answer names
// rank 0 and does not claim the operation hung.
#include <gtest/gtest.h>

#include "harness/run/watchdog.hpp"

namespace preflight {
namespace {

RankContext four_ranks_two_hosts() {
  RankContext ctx;
  ctx.size = 4;
  ctx.rank = 3;
  ctx.host = "hostB";
  ctx.host_of_rank = {"hostA", "hostA", "hostB", "hostB"};
  return ctx;
}

TEST(WatchdogAction, ALongCaseThatKeepsCompletingOperationsIsNotAHang) {
  // 40 s into a case whose last operation completed 0.05 s ago, with a 2 s timeout.
  EXPECT_EQ(watchdog_action(0.05, 40, 2, 0), WatchdogAction::kNone);
  EXPECT_EQ(watchdog_action(2.0, 2.5, 2, 0), WatchdogAction::kNoProgress);
}

TEST(WatchdogAction, TheBudgetBoundsAProgressingCaseAndZeroIsNoLimit) {
  EXPECT_EQ(watchdog_action(0.1, 30, 5, 30), WatchdogAction::kCaseBudget);
  EXPECT_EQ(watchdog_action(0.1, 29.9, 5, 30), WatchdogAction::kNone);
  EXPECT_EQ(watchdog_action(0.1, 1e6, 5, 0), WatchdogAction::kNone);
  // No progress is a hang even inside the budget.
  EXPECT_EQ(watchdog_action(6, 7, 5, 30), WatchdogAction::kNoProgress);
}

TEST(WatchdogJudge, ARankAwayFromMpiIsNamedWithItsHostAndTheLackOfProgressSaid) {
  const RankContext ctx = four_ranks_two_hosts();
  std::vector<RankReport> reports(4);
  for (int r : {0, 1, 3}) reports[static_cast<std::size_t>(r)] = {r, 7, 1, Phase::kBarrier, 5.1};
  const TimeoutVerdict v = judge(7, 5, reports, ctx, "all-reduce");
  EXPECT_EQ(v.reason, TimeoutReason::kNoProgress);
  EXPECT_EQ(v.not_arrived, std::vector<int>{2});
  EXPECT_NE(v.message.find("made no progress for its 5 s timeout"), std::string::npos) << v.message;
  EXPECT_NE(v.message.find("rank(s) 2 (hostB) did not arrive"), std::string::npos) << v.message;
  EXPECT_EQ(v.message.find("ran past"), std::string::npos) << v.message;
}

TEST(WatchdogJudge, EveryRankInsideMpiIsAHungOperation) {
  const RankContext ctx = four_ranks_two_hosts();
  std::vector<RankReport> reports;
  for (int r = 0; r < 4; ++r) reports.push_back({r, 2, 0, Phase::kOperation, 5});
  const TimeoutVerdict v = judge(2, 5, reports, ctx, "x");
  EXPECT_TRUE(v.not_arrived.empty());
  EXPECT_NE(v.message.find("the operation itself hung"), std::string::npos) << v.message;
}

TEST(WatchdogJudge, ARankZeroThatWasStoppedIsNamedNotAHungOperation) {
  // Rank 0 stopped, then resumed by the launcher's teardown: every report, its own included,
  // says "inside MPI", but rank 0's watchdog did not run for 8 s.
  const RankContext ctx = four_ranks_two_hosts();
  std::vector<RankReport> reports;
  for (int r = 0; r < 4; ++r) reports.push_back({r, 1, 0, Phase::kOperation, 8, 0});
  reports[0].frozen_s = 8.1;
  const TimeoutVerdict v = judge(1, 5, reports, ctx, "x");
  EXPECT_EQ(v.not_arrived, std::vector<int>{0});
  EXPECT_NE(v.message.find("rank 0 (hostA) was stopped or frozen for 8.1 s"), std::string::npos)
      << v.message;
  EXPECT_EQ(v.message.find("the operation itself hung"), std::string::npos) << v.message;
}

TEST(WatchdogJudge, ABudgetIsReportedAsALongCaseNotAHang) {
  const TimeoutVerdict v = judge_budget(4, 30, {0, 4, 2, Phase::kOperation, 0.04}, "big");
  EXPECT_EQ(v.reason, TimeoutReason::kCaseBudget);
  EXPECT_EQ(v.limit_s, 30);
  EXPECT_TRUE(v.not_arrived.empty());
  EXPECT_NE(v.message.find("ran past its 30 s budget while still making progress"),
            std::string::npos)
      << v.message;
  EXPECT_NE(v.message.find("not a hang"), std::string::npos) << v.message;
  EXPECT_EQ(v.message.find("hung"), std::string::npos) << v.message;
  EXPECT_STREQ(name_of(v.reason), "case_budget");
}

TEST(WatchdogJudge, ARankThatRankZeroDoesNotAnswerNamesRankZeroAndClaimsNoHang) {
  const RankContext ctx = four_ranks_two_hosts();
  const std::string m = root_silent_message({3, 5, 2, Phase::kBarrier, 5.2}, ctx, 5, 3);
  EXPECT_NE(m.find("rank 0 (hostA) did not answer"), std::string::npos) << m;
  EXPECT_NE(m.find("rank 3 (hostB)"), std::string::npos) << m;
  EXPECT_NE(m.find("waiting in a barrier"), std::string::npos) << m;
  EXPECT_EQ(m.find("the operation itself hung"), std::string::npos) << m;
}

}  // namespace
}  // namespace preflight
