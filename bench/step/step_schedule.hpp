// How the step's work is ordered on its device: what a training framework does with two streams.
// Every GEMM goes on one compute stream in program order; when the backward pass has produced a
// bucket's gradient, an event is recorded there (gradient_ready); the bucket's collectives go on
// one communication stream, each bucket after waiting for its event (communicate). Compute never
// waits for communication within the step, and a bucket never starts before its gradient exists:
// the overlap measured is the overlap a framework could get, no more.
//
// StepOperation (step_operation.hpp) says what to do through this interface; a schedule does
// it: on the host (CPU GEMMs, or MPI: each call complete when it returns), with CUDA streams and
// events (cuda_schedule.cpp), or recorded (RecordedSchedule: the order the step asked for, what
// tests/unit/step_schedule_test.cpp checks on the CPU for the CUDA path too).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "harness/run/case.hpp"

namespace preflight::step {

class StepSchedule {
 public:
  virtual ~StepSchedule() = default;
  // GEMM number `gemm` (an index into the step's GEMM operations), once, on the compute stream.
  virtual void compute(std::size_t gemm) = 0;
  // Everything computed so far has made bucket `bucket`'s gradient.
  virtual void gradient_ready(std::size_t bucket) = 0;
  // Collective number `op` of bucket `bucket`, on the communication stream, after the bucket's
  // gradient_ready.
  virtual void communicate(std::size_t bucket, std::size_t op) = 0;
  // Returns when every GEMM queued so far is done.
  virtual void wait_compute() = 0;
  // Returns when every collective queued so far is done.
  virtual void wait_communication() = 0;
};

// The step's operations, in the order the schedule's indices refer to.
struct StepOperations {
  std::vector<std::unique_ptr<Operation>> gemms, comms;
};

// Each call on the host, in order: launch() and, at a wait, wait() on every operation launched
// since. An asynchronous operation still runs on its own stream here; use it where the GEMMs run
// on the CPU (any collective then completes or runs beside them as its backend does).
class HostSchedule final : public StepSchedule {
 public:
  explicit HostSchedule(StepOperations& ops) : ops_(ops) {}
  void compute(std::size_t gemm) override;
  void gradient_ready(std::size_t) override {}
  void communicate(std::size_t bucket, std::size_t op) override;
  void wait_compute() override;
  void wait_communication() override;

 private:
  StepOperations& ops_;
  std::vector<std::size_t> gemms_launched_, comms_launched_;
};

// One compute stream and one communication stream of the GPU the step's GEMMs run on, and an
// event per bucket; nullptr where not every GEMM is queued on a CUDA stream (gpu::StreamBound)
// or preflight was built without CUDA. `buckets`: how many buckets the step has.
std::unique_ptr<StepSchedule> make_cuda_schedule(StepOperations& ops, std::size_t buckets);

// What the step asked for, in order, one line each ("compute 3", "ready 0", "comm 0 1", "wait
// compute", "wait comm"), passed on to `inner` (which may be null: record only).
class RecordedSchedule final : public StepSchedule {
 public:
  RecordedSchedule(std::unique_ptr<StepSchedule> inner, std::vector<std::string>* log)
      : inner_(std::move(inner)), log_(log) {}
  void compute(std::size_t gemm) override;
  void gradient_ready(std::size_t bucket) override;
  void communicate(std::size_t bucket, std::size_t op) override;
  void wait_compute() override;
  void wait_communication() override;

 private:
  std::unique_ptr<StepSchedule> inner_;
  std::vector<std::string>* log_;
};

}  // namespace preflight::step
