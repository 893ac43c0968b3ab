#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "gpu/gpu_info.hpp"
#include "gpu/nvml.hpp"

#ifdef PREFLIGHT_HAVE_NCCL
#include <nccl.h>
#endif

namespace preflight {
namespace {

std::string cuda_version(int v) {
  return fmt::format("{}.{}", v / 1000, (v % 1000) / 10);
}

std::string uuid_text(const cudaUUID_t& id) {
  std::string s = "GPU-";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    s += fmt::format("{:02x}", static_cast<unsigned char>(id.bytes[i]));
  }
  return s;
}

}  // namespace

GpuInfo query_gpu(int local_rank) {
  GpuInfo info;
  int runtime = 0;
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess) info.runtime = cuda_version(runtime);
#ifdef PREFLIGHT_HAVE_NCCL
  int nccl = 0;
  if (ncclGetVersion(&nccl) == ncclSuccess)
    info.nccl = fmt::format("{}.{}.{}", nccl / 10000, (nccl % 10000) / 100, nccl % 100);
  info.nccl_built = fmt::format("{}.{}.{}", NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH);
#endif
  int driver = 0;
  if (cudaDriverGetVersion(&driver) == cudaSuccess && driver > 0)
    info.driver = cuda_version(driver);
  // Without a GPU (or without a driver) this fails, e.g. "driver insufficient": no GPU.
  const cudaError_t status = cudaGetDeviceCount(&info.count);
  if (status != cudaSuccess || info.count == 0) {
    info.count = 0;
    info.note = status != cudaSuccess ? cudaGetErrorString(status) : "no CUDA device";
    cudaGetLastError();  // clear the sticky error so later CUDA calls start clean
    return info;
  }
  const int device = local_rank % info.count;
  cudaDeviceProp props{};
  if (cudaGetDeviceProperties(&props, device) == cudaSuccess) {
    info.model = props.name;
    info.uuid = uuid_text(props.uuid);
    info.memory_bytes = props.totalGlobalMem;
  }
  char bus[32] = {};
  if (cudaDeviceGetPCIBusId(bus, sizeof(bus), device) == cudaSuccess) info.pci_bus_id = bus;
  if (const gpu::Nvml nvml; nvml.available() && !info.pci_bus_id.empty())
    if (const int index = nvml.index_of_pci_bus(info.pci_bus_id); index >= 0)
      info.nvlinks = nvml.active_nvlinks(static_cast<unsigned>(index));
  return info;
}

}  // namespace preflight
