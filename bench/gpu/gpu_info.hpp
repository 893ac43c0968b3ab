// What this rank can see of GPUs. Built against CUDA when the toolkit is present, else a
// version that reports none; both answer the same question.
#pragma once

#include <cstdint>
#include <string>

namespace preflight {

struct GpuInfo {
  int count = 0;      // GPUs visible; 0 when none or no driver
  std::string model;  // of the GPU this rank uses (local rank modulo count)
  std::string uuid;
  std::string driver;      // CUDA driver API version the driver supports, "13.0"
  std::string runtime;     // CUDA runtime preflight was built with
  std::string nccl;        // NCCL library version, where linked (what runs: ncclGetVersion)
  std::string nccl_built;  // the NCCL version preflight was compiled against (nccl.h)
  std::string pci_bus_id;  // of the GPU this rank uses, "0000:18:00.0"
  std::uint64_t memory_bytes = 0;
  int nvlinks = -1;  // active NVLinks of the GPU this rank uses (NVML); -1: not measured
  std::string note;  // why there is no GPU, when there is none
};

GpuInfo query_gpu(int local_rank);

}  // namespace preflight
