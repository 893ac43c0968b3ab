// The GPU copies' names and byte counts, with or without CUDA.
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

}  // namespace preflight::memory
