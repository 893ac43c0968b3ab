// The harness's back-to-back phase as a GPU operation sees it (one rank, MPI_COMM_SELF): a block
// is one launch_batch() call, made ready by prepare_batch() outside the timed region (a CUDA
// graph of the whole block, as nccl-tests -G captures its loop); and an operation's series
// (telemetry, interval rates) are taken after that phase, so they cover it.
#include <gtest/gtest.h>
#include <mpi.h>

#include <string>

#include "harness/config/plan.hpp"
#include "harness/run/runner.hpp"
#include "preflight/schema/telemetry.hpp"

namespace preflight {
namespace {

RankContext self_context() {
  int started = 0;
  MPI_Initialized(&started);
  if (!started) MPI_Init(nullptr, nullptr);  // finalised by operation_timing_test.cpp's environment
  RankContext ctx;
  ctx.world = MPI_COMM_SELF;
  ctx.host = "test";
  ctx.node_of_rank = {0};
  ctx.local_rank_of_rank = {0};
  ctx.host_of_rank = {"test"};
  ctx.node_names = {"test"};
  return ctx;
}

TimingOptions fixed_timing(int warmup, int iterations, int blocks) {
  TimingOptions t;
  t.warmup = warmup;
  t.min_iterations = iterations;
  t.max_iterations = iterations;
  t.budget_s = 3600;
  t.batch_blocks = blocks;
  return t;
}

// Logs L launch, W wait, P<n> prepare_batch, B<n> launch_batch; its one series is the number of
// launches it had run when series() was asked for.
class GraphLikeOperation final : public AsyncOperation {
 public:
  explicit GraphLikeOperation(std::string& log) : log_(log) {}
  void fill() override {}
  void launch() override {
    log_ += 'L';
    ++launched_;
  }
  void wait() override { log_ += 'W'; }
  void prepare_batch(int ops) override { log_.append(1, 'P').append(std::to_string(ops)); }
  void launch_batch(int ops) override {
    log_.append(1, 'B').append(std::to_string(ops));
    launched_ += ops;
  }
  std::uint64_t count_wrong() override { return 0; }
  void corrupt_result() override {}
  std::vector<std::vector<double>> series() override { return {{static_cast<double>(launched_)}}; }

 private:
  std::string& log_;
  int launched_ = 0;
};

constexpr preflight::schema::FamilySchema kDeclaration{.name = "test"};

class SeriesCase final : public Case {
 public:
  explicit SeriesCase(std::string& log) : log_(log) {}
  std::string name() const override { return "graph-like"; }
  std::string backend() const override { return "test"; }
  std::vector<Param> params() const override { return {}; }
  const std::vector<int>& group_of_rank() const override { return groups_; }
  std::size_t point_count() const override { return 1; }
  std::vector<Param> point_columns(std::size_t, int) const override { return {}; }
  std::vector<Metric> metrics(std::size_t, int, double) const override { return {}; }
  std::vector<CounterSpec> series() const override {
    return {{&schema::telemetry::kGpuSmMhzSeries, 0.1, nullptr}};
  }
  std::unique_ptr<Operation> make_operation(std::size_t) override {
    return std::make_unique<GraphLikeOperation>(log_);
  }
  const preflight::schema::FamilySchema& declaration() const override { return kDeclaration; }
  preflight::schema::OwnMeaning own_meaning() const override { return {}; }

 private:
  std::string& log_;
  std::vector<int> groups_{0};
};

TEST(BatchPhase, BlocksArePreparedUntimedThenLaunchedAsOneBatch) {
  const RankContext ctx = self_context();
  std::string log;
  SeriesCase c(log);
  const PointResult p = run_point(c, 0, ctx, fixed_timing(2, 6, 2), RunControls{}, 0, nullptr);
  ASSERT_EQ(p.batch_ops, 3);
  // The check launches once; warm-up and timed iterations are one launch_batch(1) each, waited;
  // then the blocks' batch is prepared once and each block is one launch_batch(3).
  std::string expected = "LW";
  for (int i = 0; i < 2 + 6; ++i) expected += "B1W";
  expected += "P3B3WB3W";
  EXPECT_EQ(log, expected);
}

TEST(BatchPhase, SeriesAreTakenAfterTheBackToBackBlocks) {
  const RankContext ctx = self_context();
  std::string log;
  SeriesCase c(log);
  const PointResult p = run_point(c, 0, ctx, fixed_timing(2, 6, 2), RunControls{}, 0, nullptr);
  ASSERT_EQ(p.series.size(), 1u);
  ASSERT_EQ(p.series[0].size(), 1u);
  // 1 check + 2 warm-up + 6 timed + 2 blocks of 3: had the series stopped before the blocks,
  // it would say 9.
  EXPECT_DOUBLE_EQ(p.series[0][0], 1 + 2 + 6 + 2 * 3);
}

// The dry run's estimate (device-check.sh prints it before it starts): each size point's budget
// twice, for the timed iterations and the back-to-back blocks; a case no longer than its
// case_budget.
TEST(BatchPhase, PlanTimingIsEachPointsBudgetTwice) {
  std::string log;
  auto c = std::make_shared<SeriesCase>(log);  // one size point
  TimingOptions t = fixed_timing(1, 5, 2);
  t.budget_s = 0.2;
  std::vector<PlannedCase> plan = {{c, "a", "default", 0, nullptr, t},
                                   {c, "a", "default", 1, nullptr, t}};
  EXPECT_DOUBLE_EQ(timing_seconds(plan), 2 * 2 * 0.2);
  plan[1].timing.case_budget_s = 0.1;
  EXPECT_DOUBLE_EQ(timing_seconds(plan), 2 * 0.2 + 0.1);
}

}  // namespace
}  // namespace preflight
