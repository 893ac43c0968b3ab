#include "gpu/gpu_info.hpp"

namespace preflight {

GpuInfo query_gpu(int) {
  GpuInfo info;
  info.note = "preflight was built without CUDA";
  return info;
}

}  // namespace preflight
