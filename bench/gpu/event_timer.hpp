// A DeviceTimer of CUDA events on one stream (harness/run/case.hpp): what an asynchronous GPU
// operation gives the harness so that it times the work, not the launch. CUDA builds only.
#pragma once

#include <cuda_runtime.h>

#include "harness/run/case.hpp"

namespace preflight::gpu {

class EventTimer final : public DeviceTimer {
 public:
  explicit EventTimer(cudaStream_t s) : stream_(s) {
    cudaEventCreate(&start_);
    cudaEventCreate(&stop_);
  }
  ~EventTimer() override {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  void start() override { cudaEventRecord(start_, stream_); }
  void stop() override { cudaEventRecord(stop_, stream_); }
  double seconds() override {
    float ms = 0;
    cudaEventSynchronize(stop_);
    cudaEventElapsedTime(&ms, start_, stop_);
    return ms / 1e3;
  }

 private:
  cudaStream_t stream_;
  cudaEvent_t start_{}, stop_{};
};

}  // namespace preflight::gpu
