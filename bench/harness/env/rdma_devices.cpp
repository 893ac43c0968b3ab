#include "harness/env/rdma_devices.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace preflight {
namespace {

namespace fs = std::filesystem;

std::string first_line(const fs::path& p) {
  std::ifstream in(p);
  std::string line;
  std::getline(in, line);
  return line;
}

// "400 Gb/sec (4X NDR)" -> 400; 0 when it does not start with a number.
double rate_gbps(const std::string& rate) {
  char* end = nullptr;
  const double v = std::strtod(rate.c_str(), &end);
  return end != rate.c_str() && v > 0 ? v : 0;
}

}  // namespace

std::vector<RdmaDevice> rdma_devices(const std::string& root) {
  std::vector<RdmaDevice> out;
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return out;
  for (const auto& dev : fs::directory_iterator(root, ec)) {
    RdmaDevice d;
    d.name = dev.path().filename().string();
    d.driver = fs::read_symlink(dev.path() / "device" / "driver", ec).filename().string();
    if (ec) d.driver = "unknown";
    std::vector<fs::path> ports;
    for (const auto& port : fs::directory_iterator(dev.path() / "ports", ec))
      ports.push_back(port.path());
    std::sort(ports.begin(), ports.end());
    for (const auto& port : ports) {
      const std::string state = first_line(port / "state");  // "4: ACTIVE"
      const std::string name = port.filename().string();
      if (state.find("ACTIVE") == std::string::npos) {
        d.ports_down.push_back(name + " (" +
                               (state.empty() ? std::string("state unknown") : state) + ")");
        continue;
      }
      const std::string rate = first_line(port / "rate");
      d.active.push_back({name, rate_gbps(rate), rate});
    }
    out.push_back(std::move(d));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

std::string active_ports_text(const std::vector<RdmaDevice>& devices) {
  std::string out;
  for (const auto& d : devices)
    for (const auto& p : d.active)
      out += fmt::format("{}{}/{} {}", out.empty() ? "" : ", ", d.name, p.port,
                         p.rate.empty() ? std::string("rate unknown") : p.rate);
  return out;
}

double fastest_port_gbps(const std::vector<RdmaDevice>& devices) {
  double fastest = 0;
  for (const auto& d : devices)
    for (const auto& p : d.active) fastest = std::max(fastest, p.gbps);
  return fastest;
}

std::size_t active_port_count(const std::vector<RdmaDevice>& devices) {
  std::size_t n = 0;
  for (const auto& d : devices) n += d.active.size();
  return n;
}

}  // namespace preflight
