// The memory family's backends, one file each: STREAM's loops on the CPU (cpu_stream.cpp) and
// the GPU's copies (cuda_copy.cpp, or cuda_copy_none.cpp without CUDA).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "cpu/stream.hpp"
#include "harness/case.hpp"

namespace preflight::memory {

std::unique_ptr<Operation> make_cpu_stream(kernels::StreamKernel kernel, std::size_t elements,
                                           int threads, std::uint64_t seed);

// What the GPU backend measures: device memory (a triad kernel, a device-to-device copy) and
// the host link (copies from and to pinned host memory).
enum class GpuCopy { kHbmTriad, kDeviceToDevice, kHostToDevice, kDeviceToHost };
std::string_view gpu_copy_name(GpuCopy c);
int gpu_copy_arrays(GpuCopy c);  // bytes counted per byte of an array (see docs/compute.md)

// "" when this rank has a GPU for the cuda backend, else why not.
std::string cuda_unavailable(int local_rank);
std::string cuda_pci_bus(int local_rank);
std::unique_ptr<Operation> make_cuda_copy(GpuCopy copy, int local_rank, std::size_t elements,
                                          std::uint64_t seed);

}  // namespace preflight::memory
