// The step on a GPU: one compute stream, one communication stream, an event per bucket
// (step_schedule.hpp). Built with CUDA; cuda_schedule_none.cpp without.
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <stdexcept>

#include "gpu/stream_bound.hpp"
#include "step/step_schedule.hpp"

namespace preflight::step {
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw std::runtime_error(fmt::format("step: {}: {}", what, cudaGetErrorString(e)));
}

gpu::StreamBound* bound(Operation& op) {
  return dynamic_cast<gpu::StreamBound*>(&op);
}

class CudaSchedule final : public StepSchedule {
 public:
  CudaSchedule(StepOperations& ops, std::size_t buckets) : ops_(ops), ready_(buckets, nullptr) {
    check(cudaStreamCreateWithFlags(&compute_, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cudaStreamCreateWithFlags(&comm_, cudaStreamNonBlocking), "cudaStreamCreate");
    for (auto& e : ready_)
      check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
    for (auto& g : ops_.gemms) bound(*g)->use_stream(compute_);
    for (auto& c : ops_.comms) {
      if (auto* b = bound(*c))
        b->use_stream(comm_);
      else
        host_comms_ = true;
    }
  }
  ~CudaSchedule() override {
    cudaStreamSynchronize(compute_);
    cudaStreamSynchronize(comm_);
    for (cudaEvent_t e : ready_) cudaEventDestroy(e);
    cudaStreamDestroy(compute_);
    cudaStreamDestroy(comm_);
  }
  CudaSchedule(const CudaSchedule&) = delete;
  CudaSchedule& operator=(const CudaSchedule&) = delete;

  void compute(std::size_t gemm) override { ops_.gemms[gemm]->launch(); }
  // A collective run by the host (MPI) can only start once the gradient exists: the host waits
  // for the event here, where the step counts the wait as compute, not in communicate().
  void gradient_ready(std::size_t bucket) override {
    check(cudaEventRecord(ready_[bucket], compute_), "cudaEventRecord");
    if (host_comms_) check(cudaEventSynchronize(ready_[bucket]), "cudaEventSynchronize");
  }
  // A collective on the communication stream waits there for its bucket's event.
  void communicate(std::size_t bucket, std::size_t op) override {
    Operation& c = *ops_.comms[op];
    if (bound(c) != nullptr)
      check(cudaStreamWaitEvent(comm_, ready_[bucket], 0), "cudaStreamWaitEvent");
    c.launch();
    launched_.push_back(op);
  }
  void wait_compute() override { check(cudaStreamSynchronize(compute_), "compute stream"); }
  // Each collective's own wait: NCCL's polls its asynchronous errors while it waits.
  void wait_communication() override {
    for (std::size_t op : launched_) ops_.comms[op]->wait();
    launched_.clear();
  }

 private:
  StepOperations& ops_;
  cudaStream_t compute_ = nullptr, comm_ = nullptr;
  std::vector<cudaEvent_t> ready_;
  std::vector<std::size_t> launched_;
  bool host_comms_ = false;  // some collective runs on the host, not on comm_
};

}  // namespace

std::unique_ptr<StepSchedule> make_cuda_schedule(StepOperations& ops, std::size_t buckets) {
  if (ops.gemms.empty()) return nullptr;
  for (auto& g : ops.gemms)
    if (bound(*g) == nullptr) return nullptr;
  return std::make_unique<CudaSchedule>(ops, buckets);
}

}  // namespace preflight::step
