#include "harness/env/environment.hpp"

#include <mpi.h>

#include <fmt/format.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string_view>

#include "gpu/gpu_info.hpp"
#include "harness/env/rdma_devices.hpp"
#include "harness/run/mpi_strings.hpp"

namespace preflight {

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
  }
  return "unknown";
}

namespace {

std::string kernel_release() {
  utsname u{};
  return uname(&u) == 0 ? std::string(u.sysname) + " " + u.release : "unknown";
}

std::uint64_t memory_bytes() {
  struct sysinfo s {};
  return sysinfo(&s) == 0 ? static_cast<std::uint64_t>(s.totalram) * s.mem_unit : 0;
}

std::string mpi_library() {
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(version, &length);
  std::string v(version, static_cast<std::size_t>(length));
  const auto end = v.find_first_of(",\n");  // Open MPI appends its release details
  return end == std::string::npos ? v : v.substr(0, end);
}

nlohmann::json to_json(const RankEnvironment& e) {
  return {{"rank", e.rank},
          {"host", e.host},
          {"node", e.node},
          {"node_name", e.node_name},
          {"local_rank", e.local_rank},
          {"cpu_model", e.cpu_model},
          {"cpu_cores", e.cpu_cores},
          {"memory_bytes", e.memory_bytes},
          {"kernel", e.kernel},
          {"mpi_library", e.mpi_library},
          {"gpu_count", e.gpu_count},
          {"gpu_model", e.gpu_model},
          {"gpu_uuid", e.gpu_uuid},
          {"gpu_driver", e.gpu_driver},
          {"cuda_runtime", e.cuda_runtime},
          {"nccl_version", e.nccl_version},
          {"gpu_note", e.gpu_note},
          {"gpu_pci_bus_id", e.gpu_pci_bus_id},
          {"gpu_memory_bytes", e.gpu_memory_bytes},
          {"gpu_nvlinks", e.gpu_nvlinks},
          {"nccl_built_version", e.nccl_built_version},
          {"nccl_env", e.nccl_env},
          {"rdma_ports", e.rdma_ports},
          {"rdma_port_count", e.rdma_port_count},
          {"rdma_port_gbps", e.rdma_port_gbps}};
}

RankEnvironment from_json(const nlohmann::json& j) {
  RankEnvironment e;
  j.at("rank").get_to(e.rank);
  j.at("host").get_to(e.host);
  j.at("node").get_to(e.node);
  j.at("node_name").get_to(e.node_name);
  j.at("local_rank").get_to(e.local_rank);
  j.at("cpu_model").get_to(e.cpu_model);
  j.at("cpu_cores").get_to(e.cpu_cores);
  j.at("memory_bytes").get_to(e.memory_bytes);
  j.at("kernel").get_to(e.kernel);
  j.at("mpi_library").get_to(e.mpi_library);
  j.at("gpu_count").get_to(e.gpu_count);
  j.at("gpu_model").get_to(e.gpu_model);
  j.at("gpu_uuid").get_to(e.gpu_uuid);
  j.at("gpu_driver").get_to(e.gpu_driver);
  j.at("cuda_runtime").get_to(e.cuda_runtime);
  j.at("nccl_version").get_to(e.nccl_version);
  j.at("gpu_note").get_to(e.gpu_note);
  j.at("gpu_pci_bus_id").get_to(e.gpu_pci_bus_id);
  j.at("gpu_memory_bytes").get_to(e.gpu_memory_bytes);
  j.at("gpu_nvlinks").get_to(e.gpu_nvlinks);
  j.at("nccl_built_version").get_to(e.nccl_built_version);
  j.at("nccl_env").get_to(e.nccl_env);
  j.at("rdma_ports").get_to(e.rdma_ports);
  j.at("rdma_port_count").get_to(e.rdma_port_count);
  j.at("rdma_port_gbps").get_to(e.rdma_port_gbps);
  return e;
}

}  // namespace

std::string nccl_environment(char** variables) {
  std::vector<std::string> found;
  for (char** v = variables; v != nullptr && *v != nullptr; ++v)
    if (std::string_view(*v).starts_with("NCCL_")) found.emplace_back(*v);
  std::sort(found.begin(), found.end());
  std::string out;
  for (const auto& f : found) out += (out.empty() ? "" : " ") + f;
  return out;
}

RankEnvironment local_environment(const RankContext& ctx) {
  RankEnvironment e;
  e.rank = ctx.rank;
  e.host = ctx.host;
  e.node = ctx.node;
  e.node_name = ctx.node_names[static_cast<std::size_t>(ctx.node)];
  e.local_rank = ctx.local_rank;
  e.cpu_model = cpu_model();
  e.cpu_cores = sysconf(_SC_NPROCESSORS_ONLN);
  e.memory_bytes = memory_bytes();
  e.kernel = kernel_release();
  e.mpi_library = mpi_library();
  const GpuInfo gpu = query_gpu(ctx.local_rank);
  e.gpu_count = gpu.count;
  e.gpu_model = gpu.model;
  e.gpu_uuid = gpu.uuid;
  e.gpu_driver = gpu.driver;
  e.cuda_runtime = gpu.runtime;
  e.nccl_version = gpu.nccl;
  e.gpu_note = gpu.note;
  e.gpu_pci_bus_id = gpu.pci_bus_id;
  e.gpu_memory_bytes = gpu.memory_bytes;
  e.gpu_nvlinks = gpu.nvlinks;
  e.nccl_built_version = gpu.nccl_built;
  e.nccl_env = nccl_environment(environ);
  const auto rdma = rdma_devices();
  e.rdma_ports = active_ports_text(rdma);
  e.rdma_port_count = static_cast<std::int64_t>(active_port_count(rdma));
  e.rdma_port_gbps = fastest_port_gbps(rdma);
  return e;
}

std::vector<RankEnvironment> gather_environment(const RankContext& ctx) {
  std::vector<RankEnvironment> all;
  for (const auto& text : gather_strings(ctx.world, to_json(local_environment(ctx)).dump(), 0))
    all.push_back(from_json(nlohmann::json::parse(text)));
  return all;
}

void print_environment(const std::vector<RankEnvironment>& env) {
  fmt::print("{:>5} {:<20} {:>4} {:>5} {:<28} {:>5} {:>8} {:<22} {:<16} {}\n", "rank", "host",
             "node", "local", "cpu", "cores", "mem(GiB)", "kernel", "mpi", "gpu");
  for (const auto& e : env) {
    const std::string gpu =
        e.gpu_count > 0
            ? fmt::format(
                  "{} {} bus {} {:.0f} GiB (CUDA driver {}, runtime {}, NCCL {}, built "
                  "with {}){}",
                  e.gpu_model, e.gpu_uuid, e.gpu_pci_bus_id,
                  static_cast<double>(e.gpu_memory_bytes) / (1 << 30), e.gpu_driver, e.cuda_runtime,
                  e.nccl_version, e.nccl_built_version, e.nccl_env.empty() ? "" : " " + e.nccl_env)
            : fmt::format("none ({})", e.gpu_note);
    fmt::print("{:>5} {:<20} {:>4} {:>5} {:<28.28} {:>5} {:>8.1f} {:<22.22} {:<16.16} {}\n", e.rank,
               e.host, e.node, e.local_rank, e.cpu_model, e.cpu_cores,
               static_cast<double>(e.memory_bytes) / (1 << 30), e.kernel, e.mpi_library, gpu);
  }
}

}  // namespace preflight
