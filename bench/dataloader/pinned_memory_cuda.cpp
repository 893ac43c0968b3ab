#include <cuda_runtime.h>
#include <fmt/format.h>

#include <cstdint>
#include <stdexcept>

#include "dataloader/pinned_memory.hpp"

namespace preflight::dataloader {

std::string why_batches_not_pinned() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    cudaGetLastError();  // leave no sticky error for the next CUDA call
    return "no GPU (cudaGetDeviceCount)";
  }
  return "";
}

PinnedRegion::PinnedRegion(void* data, std::size_t bytes) : data_(data) {
  if (reinterpret_cast<std::uintptr_t>(data) % kernels::kPageBytes != 0 ||
      bytes != pinnable_bytes(bytes))
    throw std::logic_error("dataloader: a pinned buffer must be whole, page-aligned pages");
  const cudaError_t e = cudaHostRegister(data, bytes, cudaHostRegisterDefault);
  if (e != cudaSuccess)
    throw std::runtime_error(
        fmt::format("dataloader: pinning a {}-byte batch buffer (cudaHostRegister): {}", bytes,
                    cudaGetErrorString(e)));
}

PinnedRegion::~PinnedRegion() {
  cudaHostUnregister(data_);
}

}  // namespace preflight::dataloader
