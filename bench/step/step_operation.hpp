// One rank's synthetic training step: every micro-batch's GEMMs (forward, then backward),
// the gradient in buckets through the comm backend (during the last backward pass with
// overlap, after it without), and the time of each part that nothing hid.
#pragma once

#include <memory>
#include <vector>

#include "harness/run/case.hpp"
#include "preflight/common/step/model.hpp"
#include "step/data_feed.hpp"
#include "step/step_schedule.hpp"

namespace preflight::step {

// A GEMM of the step: which of the rank's operations runs it, how often, in which pass.
struct GemmCall {
  std::size_t op = 0;
  std::int64_t count = 1;
  double flops = 0;  // of all `count` calls
  bool backward = false;
};

// A bucket: its collectives (one all-reduce, or a reduce-scatter and an all-gather), by index
// into the rank's comm operations.
struct BucketCalls {
  std::vector<std::size_t> ops;
};

struct StepPlan {
  std::vector<GemmCall> forward, backward;  // in the order they run
  std::vector<BucketCalls> buckets;         // in the order the backward pass fills them
  std::int64_t accumulation = 1;
  bool overlap = true;
};

// The step's order of work goes through a StepSchedule (step_schedule.hpp): two CUDA streams
// and an event per bucket where the GEMMs run on a GPU, the host's order where they do not.
class StepOperation final : public Operation {
 public:
  // `feed` may be null: no data feed.
  StepOperation(StepPlan plan, std::vector<std::unique_ptr<Operation>> gemms,
                std::vector<std::unique_ptr<Operation>> comms, std::unique_ptr<DataFeed> feed);
  // From now on, also writes what the step asks of its schedule into `log`, one line per call
  // (RecordedSchedule): what the tests read.
  void record_schedule(std::vector<std::string>* log);
  // The data feed's next images put in their cache state, untimed.
  void before_iteration() override;
  void fill() override;
  void run() override;
  std::uint64_t count_wrong() override;
  void corrupt_result() override;
  std::vector<double> iteration_counters() override;

 private:
  double send_bucket(std::size_t b);
  void run_pass(const std::vector<GemmCall>& calls, bool fill_buckets);

  StepPlan plan_;
  // Declared before ops_, so destroyed after them: a GEMM waits on the schedule's stream as it
  // goes. Made in the constructor's body, from ops_.
  std::unique_ptr<StepSchedule> schedule_;
  StepOperations ops_;
  std::unique_ptr<DataFeed> feed_;
  std::size_t next_bucket_ = 0;
  double comm_in_compute_s_ = 0;  // launches of buckets made inside the compute phase
  double compute_s_ = 0, comm_exposed_s_ = 0, data_exposed_s_ = 0, data_cpu_share_ = 0;
};

}  // namespace preflight::step
