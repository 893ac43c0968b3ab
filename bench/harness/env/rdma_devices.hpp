// The RDMA devices of this host and their ports (/sys/class/infiniband: InfiniBand, RoCE and EFA
// adapters, what libfabric's verbs and EFA providers and NCCL's IB transport open): which ports
// are down, for the environment checks, and each active port's rate, which every results file
// records so that a reference envelope can be chosen by the NIC and its link rate.
#pragma once

#include <string>
#include <vector>

namespace preflight {

struct RdmaPort {
  std::string port;  // "1"
  double gbps = 0;   // the link rate, Gb/s (from "400 Gb/sec (4X NDR)"); 0 when unreadable
  std::string rate;  // the rate as the kernel states it, e.g. "400 Gb/sec (4X NDR)"
};

struct RdmaDevice {
  std::string name;                     // as /sys/class/infiniband lists it, e.g. mlx5_0
  std::string driver;                   // e.g. mlx5_core, efa
  std::vector<std::string> ports_down;  // "1 (1: DOWN)": port and its state
  std::vector<RdmaPort> active = {};    // ports whose state is ACTIVE (not sent between ranks)
};

// Every RDMA device under `root` (default /sys/class/infiniband), ordered by name; none when
// the directory is absent.
std::vector<RdmaDevice> rdma_devices(const std::string& root = "/sys/class/infiniband");

// "mlx5_0/1 400 Gb/sec (4X NDR), mlx5_1/1 400 Gb/sec (4X NDR)": the active ports; "" for none.
std::string active_ports_text(const std::vector<RdmaDevice>& devices);
// The fastest active port's rate in Gb/s; 0 when no port is active.
double fastest_port_gbps(const std::vector<RdmaDevice>& devices);
// The number of active ports.
std::size_t active_port_count(const std::vector<RdmaDevice>& devices);

}  // namespace preflight
