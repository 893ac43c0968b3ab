// The GPU backend of the memory family: a triad kernel and a device-to-device copy in device
// memory, copies from and to pinned host memory, timed with CUDA events on the rank's GPU, and
// peer copies from one GPU's memory to another's, timed on the source GPU.
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

// Elements of a copy's output that are not input array 1's pattern.
std::uint64_t count_not_copied(const std::vector<double>& out, std::uint64_t seed) {
  std::uint64_t wrong = 0;
  for (std::size_t j = 0; j < out.size(); ++j) wrong += out[j] == expected(1, j, seed) ? 0 : 1;
  return wrong;
}

// Adds 1 to element j of a device array (any device: CUDA addresses them all).
void add_one(double* device_array, std::size_t j) {
  double v = 0;
  check(cudaMemcpy(&v, device_array + j, sizeof(v), cudaMemcpyDefault), "corrupt");
  v += 1;
  check(cudaMemcpy(device_array + j, &v, sizeof(v), cudaMemcpyDefault), "corrupt");
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
      case GpuCopy::kPeer:  // two devices: CudaPeerCopy
        throw std::logic_error("a peer copy is a CudaPeerCopy");
    }
  }
  void wait() override { check(cudaStreamSynchronize(stream_), "copy"); }
  DeviceTimer* device_timer() override { return timer_.get(); }
  std::uint64_t count_wrong() override {
    const std::vector<double> out = output();
    if (copy_ != GpuCopy::kHbmTriad) return count_not_copied(out, seed_);
    std::uint64_t wrong = 0;
    for (std::size_t j = 0; j < n_; ++j)
      wrong +=
          out[j] == expected(1, j, seed_) + kernels::kStreamScalar * expected(2, j, seed_) ? 0 : 1;
    return wrong;
  }
  void corrupt_result() override {
    if (copy_ == GpuCopy::kDeviceToHost) {
      host_[n_ / 2] += 1;
      return;
    }
    add_one(a_, n_ / 2);
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

// A copy from device from_'s memory to device to_'s (cudaMemcpyPeerAsync), on a stream of from_,
// timed with CUDA events there. With peer access (NVLink, or PCIe peer to peer) the copy engines
// move the data directly; without, CUDA stages it through host memory.
class CudaPeerCopy final : public AsyncOperation {
 public:
  CudaPeerCopy(int from, int to, std::size_t n, std::uint64_t seed)
      : from_(from), to_(to), n_(n), seed_(seed) {
    check(cudaSetDevice(to_), "cudaSetDevice (destination)");
    check(cudaMalloc(&dst_, bytes()), "cudaMalloc (destination)");
    check(cudaSetDevice(from_), "cudaSetDevice (source)");
    if (cuda_peer_access(from_, to_)) {
      const cudaError_t e = cudaDeviceEnablePeerAccess(to_, 0);
      if (e == cudaErrorPeerAccessAlreadyEnabled)
        (void)cudaGetLastError();  // enabled by an earlier point: fine, and not an error to keep
      else
        check(e, "cudaDeviceEnablePeerAccess");
    }
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    timer_ = std::make_unique<gpu::EventTimer>(stream_);
    check(cudaMalloc(&src_, bytes()), "cudaMalloc (source)");
  }
  ~CudaPeerCopy() override {
    cudaStreamSynchronize(stream_);
    cudaFree(src_);
    cudaFree(dst_);
    timer_.reset();
    cudaStreamDestroy(stream_);
  }
  // The source from the pattern, the destination to NaN (all-ones bytes).
  void fill() override {
    check(cudaSetDevice(from_), "cudaSetDevice (source)");
    kernels::launch_fill(src_, 1, n_, seed_, stream_);
    check(cudaMemsetAsync(dst_, 0xff, bytes(), stream_), "cudaMemset (destination)");
    check(cudaStreamSynchronize(stream_), "fill");
  }
  void launch() override {
    check(cudaMemcpyPeerAsync(dst_, to_, src_, from_, bytes(), stream_), "p2p");
  }
  void wait() override { check(cudaStreamSynchronize(stream_), "p2p"); }
  DeviceTimer* device_timer() override { return timer_.get(); }
  std::uint64_t count_wrong() override {
    std::vector<double> out(n_);
    check(cudaMemcpy(out.data(), dst_, bytes(), cudaMemcpyDefault), "read back");
    return count_not_copied(out, seed_);
  }
  void corrupt_result() override { add_one(dst_, n_ / 2); }

 private:
  std::size_t bytes() const { return n_ * sizeof(double); }

  int from_, to_;
  std::size_t n_;
  std::uint64_t seed_;
  cudaStream_t stream_{};
  std::unique_ptr<gpu::EventTimer> timer_;
  double *src_ = nullptr, *dst_ = nullptr;
};

}  // namespace

int cuda_device_count() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

bool cuda_peer_access(int from, int to) {
  int can = 0;
  return cudaDeviceCanAccessPeer(&can, from, to) == cudaSuccess && can != 0;
}

std::unique_ptr<Operation> make_cuda_peer_copy(int from, int to, std::size_t elements,
                                               std::uint64_t seed) {
  return std::make_unique<CudaPeerCopy>(from, to, elements, seed);
}

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

std::string cuda_device_name(int local_rank) {
  cudaDeviceProp prop{};
  const int device = device_of(local_rank);
  if (device < 0 || cudaGetDeviceProperties(&prop, device) != cudaSuccess) return "";
  return prop.name;
}

std::unique_ptr<Operation> make_cuda_copy(GpuCopy copy, int local_rank, std::size_t elements,
                                          std::uint64_t seed) {
  return std::make_unique<CudaCopy>(copy, device_of(local_rank), elements, seed);
}

}  // namespace preflight::memory
