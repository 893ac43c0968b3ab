// The step's order of work through a recorded schedule (step/step_schedule.hpp): the order the
// step asks for is the order the CUDA schedule turns into streams and events (every GEMM on one
// compute stream; an event per bucket recorded there once the backward pass has made its
// gradient; the bucket's collectives on one communication stream behind that event). Checked
// here on the CPU with operations that only count, for the GPU path too.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "step/step_operation.hpp"

namespace preflight::step {
namespace {

// Counts launches and waits; does no work.
class CountingOp final : public Operation {
 public:
  void fill() override {}
  void run() override { ++launches; }
  void wait() override { ++waits; }
  std::uint64_t count_wrong() override { return 0; }
  void corrupt_result() override {}
  int launches = 0, waits = 0;
};

struct Step {
  std::unique_ptr<StepOperation> op;
  std::vector<CountingOp*> gemms, comms;
  std::vector<std::string> log;
};

// Forward: GEMMs 0 and 1; backward: GEMM 2 twice (2 FLOP in all), then GEMM 3 (2 FLOP); three
// buckets of one collective each.
Step make_step(std::int64_t accumulation, bool overlap) {
  StepPlan plan;
  plan.forward = {{0, 1, 1, false}, {1, 1, 1, false}};
  plan.backward = {{2, 2, 2, true}, {3, 1, 2, true}};
  plan.buckets = {{{0}}, {{1}}, {{2}}};
  plan.accumulation = accumulation;
  plan.overlap = overlap;
  Step s;
  std::vector<std::unique_ptr<Operation>> gemms, comms;
  for (int i = 0; i < 4; ++i) {
    auto g = std::make_unique<CountingOp>();
    s.gemms.push_back(g.get());
    gemms.push_back(std::move(g));
  }
  for (int i = 0; i < 3; ++i) {
    auto c = std::make_unique<CountingOp>();
    s.comms.push_back(c.get());
    comms.push_back(std::move(c));
  }
  s.op =
      std::make_unique<StepOperation>(std::move(plan), std::move(gemms), std::move(comms), nullptr);
  s.op->record_schedule(&s.log);
  return s;
}

TEST(StepSchedule, BucketsGoOutBehindTheGradientThatMadeThemAndTheLastAfterTheLastGemm) {
  Step s = make_step(2, true);
  s.op->run();
  const std::vector<std::string> expected = {
      // micro-batch 1 of 2: no bucket (the gradient is complete only in the last)
      "compute 0", "compute 1", "compute 2", "compute 2", "compute 3",
      // micro-batch 2: bucket 0 once half the backward FLOPs are done (2 of 4 > 4/3), bucket 1
      // after the last backward GEMM; each bucket's event before its collective
      "compute 0", "compute 1", "compute 2", "compute 2", "ready 0", "comm 0 0", "compute 3",
      "ready 1", "comm 1 1",
      // the last bucket only when every GEMM is done
      "wait compute", "ready 2", "comm 2 2", "wait comm"};
  EXPECT_EQ(s.log, expected);
  // The host schedule ran each call and waited for each.
  EXPECT_EQ(s.gemms[2]->launches, 4);
  for (auto* c : s.comms) EXPECT_EQ(c->launches, 1);
  for (auto* c : s.comms) EXPECT_EQ(c->waits, 1);
}

TEST(StepSchedule, EveryCollectiveFollowsItsBucketsEventAndComputeNeverWaitsForCommunication) {
  Step s = make_step(3, true);
  s.op->run();
  std::vector<bool> ready(3, false);
  bool compute_waited = false;
  for (const auto& line : s.log) {
    if (line.rfind("ready ", 0) == 0) ready[std::stoul(line.substr(6))] = true;
    if (line.rfind("comm ", 0) == 0) {
      EXPECT_TRUE(ready[std::stoul(line.substr(5, 1))])
          << "a collective before its event: " << line;
    }
    if (line == "wait comm") {
      EXPECT_TRUE(compute_waited) << "communication waited first";
    }
    if (line == "wait compute") compute_waited = true;
  }
  EXPECT_EQ(std::count(s.log.begin(), s.log.end(), "wait comm"), 1);
}

TEST(StepSchedule, WithoutOverlapEveryBucketGoesAfterTheLastGemm) {
  Step s = make_step(1, false);
  s.op->run();
  const auto waited = std::find(s.log.begin(), s.log.end(), "wait compute");
  ASSERT_NE(waited, s.log.end());
  for (auto it = s.log.begin(); it != waited; ++it)
    EXPECT_EQ(it->rfind("compute ", 0), 0u) << "before the compute wait: " << *it;
  EXPECT_EQ(std::vector<std::string>(waited, s.log.end()),
            (std::vector<std::string>{"wait compute", "ready 0", "comm 0 0", "ready 1", "comm 1 1",
                                      "ready 2", "comm 2 2", "wait comm"}));
}

}  // namespace
}  // namespace preflight::step
