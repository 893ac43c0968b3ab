#include "telemetry/cpu_sensors.hpp"

#include <sched.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "preflight/schema/telemetry.hpp"

namespace preflight::telemetry {
namespace {

namespace fs = std::filesystem;

std::optional<double> read_number(const std::string& path) {
  std::ifstream in(path);
  double v = 0;
  if (in >> v) return v;
  return std::nullopt;
}

std::string read_word(const std::string& path) {
  std::ifstream in(path);
  std::string s;
  std::getline(in, s);
  return s;
}

int this_cpu() {
  const int cpu = sched_getcpu();
  return cpu < 0 ? 0 : cpu;
}

// The package sensor: a thermal zone the kernel calls x86_pkg_temp, else the hwmon of AMD's
// k10temp or Intel's coretemp (temp1 is Tctl or the package).
std::string find_temperature(const std::string& root) {
  std::error_code ec;
  for (const auto& zone : fs::directory_iterator(root + "sys/class/thermal", ec)) {
    const std::string type = read_word(zone.path().string() + "/type");
    if (type == "x86_pkg_temp" && read_number(zone.path().string() + "/temp"))
      return zone.path().string() + "/temp";
  }
  for (const auto& mon : fs::directory_iterator(root + "sys/class/hwmon", ec)) {
    const std::string name = read_word(mon.path().string() + "/name");
    if ((name == "k10temp" || name == "coretemp") &&
        read_number(mon.path().string() + "/temp1_input"))
      return mon.path().string() + "/temp1_input";
  }
  return {};
}

}  // namespace

CpuSensors::CpuSensors(std::string root) : root_(std::move(root)) {
  cpufreq_ =
      read_number(root_ + "sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq").has_value();
  cpuinfo_ = !cpufreq_ && mhz().has_value();
  temp_path_ = find_temperature(root_);
}

std::optional<double> CpuSensors::mhz() const {
  const int cpu = this_cpu();
  if (cpufreq_) {
    const auto khz = read_number(root_ + "sys/devices/system/cpu/cpu" + std::to_string(cpu) +
                                 "/cpufreq/scaling_cur_freq");
    if (khz) return *khz / 1000.0;
    return std::nullopt;
  }
  // /proc/cpuinfo: the "cpu MHz" of the block whose "processor" is this CPU.
  std::ifstream in(root_ + "proc/cpuinfo");
  std::string line;
  int processor = -1;
  while (std::getline(in, line)) {
    if (line.rfind("processor", 0) == 0) processor = std::stoi(line.substr(line.find(':') + 1));
    if (line.rfind("cpu MHz", 0) == 0 && (processor == cpu || processor < 0))
      return std::stod(line.substr(line.find(':') + 1));
  }
  return std::nullopt;
}

std::optional<double> CpuSensors::temp_c() const {
  if (temp_path_.empty()) return std::nullopt;
  const auto milli = read_number(temp_path_);
  if (milli) return *milli / 1000.0;
  return std::nullopt;
}

std::string CpuSensors::mhz_source() const {
  if (cpufreq_) return "/sys/devices/system/cpu/cpuN/cpufreq/scaling_cur_freq";
  if (cpuinfo_) return "/proc/cpuinfo cpu MHz";
  return std::string(schema::kNotAvailable);
}

std::string CpuSensors::temp_source() const {
  return temp_path_.empty() ? std::string(schema::kNotAvailable) : temp_path_;
}

}  // namespace preflight::telemetry
