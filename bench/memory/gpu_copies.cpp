// The GPU copies' names and byte counts, with or without CUDA.
#include <fmt/format.h>

#include <cmath>

#include "gpu/known_gpus.hpp"
#include "memory/backend.hpp"

namespace preflight::memory {

std::string_view gpu_copy_name(GpuCopy c) {
  switch (c) {
    case GpuCopy::kHbmTriad:
      return "hbm_triad";
    case GpuCopy::kDeviceToDevice:
      return "d2d";
    case GpuCopy::kHostToDevice:
      return "h2d";
    case GpuCopy::kDeviceToHost:
      return "d2h";
    case GpuCopy::kPeer:
      return "p2p";
  }
  return "?";
}

// STREAM's count in device memory (triad reads two arrays and writes one; a device copy reads
// and writes one); a copy over the host link moves each byte across it once, as nvbandwidth
// and the health checks' 48 GB/s count it; so does a peer copy over the link between two GPUs.
int gpu_copy_arrays(GpuCopy c) {
  switch (c) {
    case GpuCopy::kHbmTriad:
      return 3;
    case GpuCopy::kDeviceToDevice:
      return 2;
    default:
      return 1;
  }
}

std::string_view gpu_copy_counting(GpuCopy c) {
  switch (c) {
    case GpuCopy::kHbmTriad:
      return "3 arrays: 2 read, 1 written (STREAM's triad)";
    case GpuCopy::kDeviceToDevice:
      return "2 arrays: the array read and written (STREAM's copy; CUDA's bandwidthTest counts "
             "device-to-device copies so too); nvbandwidth counts the bytes copied once: half this "
             "figure";
    default:
      return "1 array: each byte once across the link (as nvbandwidth)";
  }
}

GpuMemoryPeak gpu_memory_peak(GpuCopy c, const std::string& device_name) {
  const double nan = std::nan("");
  if (c != GpuCopy::kHbmTriad && c != GpuCopy::kDeviceToDevice)
    return {nan, "unknown: a copy over a link, not a device-memory figure"};
  const gpu::DatasheetFigures* part = gpu::known_gpu(device_name);
  if (part == nullptr)
    return {nan, fmt::format("unknown: '{}' is not in preflight's table of datasheet figures "
                             "(bench/gpu/known_gpus.hpp)",
                             device_name)};
  return {part->memory_gbs, fmt::format("{}: {} GB/s per GPU from the {}", part->part,
                                        part->memory_gbs, part->source)};
}

}  // namespace preflight::memory
