// The host's RDMA ports as every results file records them (harness/env/rdma_devices.hpp), read
// from a made-up /sys/class/infiniband: active ports with their rates, ports down for the checks.
#include "harness/env/rdma_devices.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace preflight {
namespace {

namespace fs = std::filesystem;

void port(const fs::path& root, const std::string& device, const std::string& number,
          const std::string& state, const std::string& rate) {
  const auto dir = root / device / "ports" / number;
  fs::create_directories(dir);
  std::ofstream(dir / "state") << state << "\n";
  std::ofstream(dir / "rate") << rate << "\n";
}

TEST(RdmaDevices, ActivePortsAndTheirRatesAreRecorded) {
  char name[] = "/tmp/preflight-rdma-XXXXXX";
  const fs::path root = mkdtemp(name);
  port(root, "mlx5_1", "1", "4: ACTIVE", "400 Gb/sec (4X NDR)");
  port(root, "mlx5_0", "1", "4: ACTIVE", "200 Gb/sec (4X HDR)");
  port(root, "mlx5_0", "2", "1: DOWN", "10 Gb/sec (4X SDR)");
  const auto devices = rdma_devices(root.string());
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[0].name, "mlx5_0");
  EXPECT_EQ(devices[0].driver, "unknown");  // no device/driver link here
  EXPECT_EQ(devices[0].ports_down, std::vector<std::string>{"2 (1: DOWN)"});
  EXPECT_EQ(active_ports_text(devices),
            "mlx5_0/1 200 Gb/sec (4X HDR), mlx5_1/1 400 Gb/sec (4X NDR)");
  EXPECT_EQ(active_port_count(devices), 2u);
  EXPECT_DOUBLE_EQ(fastest_port_gbps(devices), 400);
  fs::remove_all(root);
  // No RDMA device: nothing, and rate 0.
  EXPECT_TRUE(rdma_devices(root.string()).empty());
  EXPECT_EQ(active_ports_text({}), "");
  EXPECT_DOUBLE_EQ(fastest_port_gbps({}), 0);
}

}  // namespace
}  // namespace preflight
