// Where each rank ran: host, node, CPU, memory, kernel, MPI, GPU and library versions.
// Every result file records this so that a regression can be traced to what changed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/run/rank_context.hpp"

namespace preflight {

struct RankEnvironment {
  std::int64_t rank = 0;
  std::string host;
  std::int64_t node = 0;
  std::string node_name;
  std::int64_t local_rank = 0;
  std::string cpu_model;
  std::int64_t cpu_cores = 0;
  std::uint64_t memory_bytes = 0;
  std::string kernel;
  std::string mpi_library;
  std::int64_t gpu_count = 0;
  std::string gpu_model, gpu_uuid, gpu_driver, cuda_runtime, nccl_version;
  std::string gpu_pci_bus_id;
  std::uint64_t gpu_memory_bytes = 0;
  std::int64_t gpu_nvlinks = -1;  // active NVLinks (NVML); -1: not measured
  std::string nccl_built_version;
  std::string nccl_env;  // NCCL_* of this rank's environment, "NAME=VALUE NAME=VALUE"
  std::string gpu_note;  // why there is no GPU; not recorded, shown by `preflight env`
  // The host's active RDMA ports (harness/env/rdma_devices.hpp): "mlx5_0/1 400 Gb/sec (4X NDR)",
  // their count, and the fastest one's rate in Gb/s (0: none).
  std::string rdma_ports;
  std::int64_t rdma_port_count = 0;
  double rdma_port_gbps = 0;
};

RankEnvironment local_environment(const RankContext& ctx);

// The CPU's model name (/proc/cpuinfo), "unknown" where it says none.
std::string cpu_model();

// The NCCL_* entries of an environment block (environ), sorted, "NAME=VALUE NAME=VALUE".
std::string nccl_environment(char** variables);

// Collective; rank 0 gets every rank's environment in rank order, the others nothing.
std::vector<RankEnvironment> gather_environment(const RankContext& ctx);

// The table `preflight env` prints, one line per rank.
void print_environment(const std::vector<RankEnvironment>& env);

}  // namespace preflight
