// The GPU backend of the memory family: a triad kernel and a device-to-device copy in device
// memory, and copies from and to pinned host memory, timed with CUDA events on the rank's GPU.
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "cuda/stream.hpp"
#include "gpu/event_timer.hpp"
#include "memory/backend.hpp"

namespace preflight::memory {
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw std::runtime_error(fmt::format("{}: {}", what, cudaGetErrorString(e)));
}

int device_of(int local_rank) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) return -1;
  return local_rank % count;
}

double expected(int array, std::size_t j, std::uint64_t seed) {
  return kernels::stream_input(array, j, seed);
}

class CudaCopy final : public AsyncOperation {
 public:
  CudaCopy(GpuCopy copy, int device, std::size_t n, std::uint64_t seed)
      : copy_(copy), n_(n), seed_(seed) {
    check(cudaSetDevice(device), "cudaSetDevice");
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    timer_ = std::make_unique<gpu::EventTimer>(stream_);
    const std::size_t bytes = n_ * sizeof(double);
    for (double** d : {&a_, &b_, &c_}) check(cudaMalloc(d, bytes), "cudaMalloc");
    if (copy_ == GpuCopy::kHostToDevice || copy_ == GpuCopy::kDeviceToHost)
      check(cudaMallocHost(&host_, bytes), "cudaMallocHost (pinned)");
  }
  ~CudaCopy() override {
    cudaStreamSynchronize(stream_);
    for (double* d : {a_, b_, c_}) cudaFree(d);
    if (host_) cudaFreeHost(host_);
    timer_.reset();
    cudaStreamDestroy(stream_);
  }
  // Inputs from the pattern; the output to NaN (all-ones bytes), so an unwritten one fails.
  void fill() override {
    const std::size_t bytes = n_ * sizeof(double);
    kernels::launch_fill(b_, 1, n_, seed_, stream_);
    kernels::launch_fill(c_, 2, n_, seed_, stream_);
    check(cudaMemsetAsync(a_, 0xff, bytes, stream_), "cudaMemset");
    check(cudaStreamSynchronize(stream_), "fill");
    if (host_ && copy_ == GpuCopy::kHostToDevice)
      for (std::size_t j = 0; j < n_; ++j) host_[j] = expected(1, j, seed_);
    if (host_ && copy_ == GpuCopy::kDeviceToHost)
      for (std::size_t j = 0; j < n_; ++j) host_[j] = std::nan("");
  }
  void launch() override {
    const std::size_t bytes = n_ * sizeof(double);
    switch (copy_) {
      case GpuCopy::kHbmTriad:
        return kernels::launch_triad(a_, b_, c_, kernels::kStreamScalar, n_, stream_);
      case GpuCopy::kDeviceToDevice:
        check(cudaMemcpyAsync(a_, b_, bytes, cudaMemcpyDeviceToDevice, stream_), "d2d");
        return;
      case GpuCopy::kHostToDevice:
        check(cudaMemcpyAsync(a_, host_, bytes, cudaMemcpyHostToDevice, stream_), "h2d");
        return;
      case GpuCopy::kDeviceToHost:
        check(cudaMemcpyAsync(host_, b_, bytes, cudaMemcpyDeviceToHost, stream_), "d2h");
        return;
    }
  }
  void wait() override { check(cudaStreamSynchronize(stream_), "copy"); }
  DeviceTimer* device_timer() override { return timer_.get(); }
  std::uint64_t count_wrong() override {
    const std::vector<double> out = output();
    std::uint64_t wrong = 0;
    for (std::size_t j = 0; j < n_; ++j) {
      const double want =
          copy_ == GpuCopy::kHbmTriad
              ? expected(1, j, seed_) + kernels::kStreamScalar * expected(2, j, seed_)
              : expected(1, j, seed_);
      wrong += out[j] == want ? 0 : 1;
    }
    return wrong;
  }
  void corrupt_result() override {
    if (copy_ == GpuCopy::kDeviceToHost) {
      host_[n_ / 2] += 1;
      return;
    }
    double v = 0;
    check(cudaMemcpy(&v, a_ + n_ / 2, sizeof(v), cudaMemcpyDeviceToHost), "corrupt");
    v += 1;
    check(cudaMemcpy(a_ + n_ / 2, &v, sizeof(v), cudaMemcpyHostToDevice), "corrupt");
  }

 private:
  std::vector<double> output() const {
    std::vector<double> out(n_);
    if (copy_ == GpuCopy::kDeviceToHost) {
      std::copy(host_, host_ + n_, out.begin());
      return out;
    }
    check(cudaMemcpy(out.data(), a_, n_ * sizeof(double), cudaMemcpyDeviceToHost), "read back");
    return out;
  }

  GpuCopy copy_;
  std::size_t n_;
  std::uint64_t seed_;
  cudaStream_t stream_{};
  std::unique_ptr<gpu::EventTimer> timer_;
  double *a_ = nullptr, *b_ = nullptr, *c_ = nullptr, *host_ = nullptr;
};

}  // namespace

std::string cuda_unavailable(int local_rank) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  (void)local_rank;
  if (e != cudaSuccess) return fmt::format("no GPU ({})", cudaGetErrorString(e));
  return count == 0 ? "no GPU (none found)" : "";
}

std::string cuda_pci_bus(int local_rank) {
  char bus[32] = {};
  const int device = device_of(local_rank);
  if (device < 0 || cudaDeviceGetPCIBusId(bus, sizeof(bus), device) != cudaSuccess) return "";
  return bus;
}

std::unique_ptr<Operation> make_cuda_copy(GpuCopy copy, int local_rank, std::size_t elements,
                                          std::uint64_t seed) {
  return std::make_unique<CudaCopy>(copy, device_of(local_rank), elements, seed);
}

}  // namespace preflight::memory
