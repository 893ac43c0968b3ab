// The memory family's backends, one file each: STREAM's loops on the CPU (cpu_stream.cpp) and
// the GPU's copies (cuda_copy.cpp, or cuda_copy_none.cpp without CUDA).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "cpu/stream.hpp"
#include "harness/run/case.hpp"

namespace preflight::memory {

std::unique_ptr<Operation> make_cpu_stream(kernels::StreamKernel kernel, std::size_t elements,
                                           int threads, std::uint64_t seed);

// What the GPU backend measures: device memory (a triad kernel, a device-to-device copy), the
// host link (copies from and to pinned host memory) and the links between a node's GPUs (a
// peer copy from one GPU's memory to another's, each ordered pair alone, as nvbandwidth does).
enum class GpuCopy { kHbmTriad, kDeviceToDevice, kHostToDevice, kDeviceToHost, kPeer };
std::string_view gpu_copy_name(GpuCopy c);
int gpu_copy_arrays(GpuCopy c);  // bytes counted per byte of an array (see docs/compute.md)
// What gpu_copy_arrays counts, in words, and whose convention it is (case attribute
// bytes_counted): d2d counts read and write, as STREAM's copy and CUDA's bandwidthTest do, where
// nvbandwidth counts the bytes copied once.
std::string_view gpu_copy_counting(GpuCopy c);
// The datasheet figure of one GPU's device-memory bandwidth (GB/s), and its source; NaN and why
// not where the part is not in bench/gpu/known_gpus.hpp or the copy is not in device memory.
struct GpuMemoryPeak {
  double gbs = 0;
  std::string source;
};
GpuMemoryPeak gpu_memory_peak(GpuCopy c, const std::string& device_name);

// "" when this rank has a GPU for the cuda backend, else why not.
std::string cuda_unavailable(int local_rank);
std::string cuda_pci_bus(int local_rank);
std::string cuda_device_name(int local_rank);  // cudaDeviceProp::name; "" without a GPU
std::unique_ptr<Operation> make_cuda_copy(GpuCopy copy, int local_rank, std::size_t elements,
                                          std::uint64_t seed);

// GPUs this rank's process sees (0 without CUDA or without a GPU).
int cuda_device_count();
// Whether device `from` can reach device `to`'s memory directly (NVLink or PCIe peer access);
// without it CUDA stages a peer copy through host memory.
bool cuda_peer_access(int from, int to);
// A copy of `elements` doubles from device `from`'s memory to device `to`'s, on a stream of
// `from`, with peer access enabled where cuda_peer_access says it exists.
std::unique_ptr<Operation> make_cuda_peer_copy(int from, int to, std::size_t elements,
                                               std::uint64_t seed);

}  // namespace preflight::memory
