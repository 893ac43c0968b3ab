// The CPU's clock and temperature, where the kernel exposes them: cpufreq in /sys (or the
// "cpu MHz" of /proc/cpuinfo in a VM without cpufreq), and a thermal zone or hwmon sensor of the
// package. Each says where it reads from, or that it found nothing.
#pragma once

#include <optional>
#include <string>

namespace preflight::telemetry {

class CpuSensors {
 public:
  // Looks for the sources once; `root` is "/" except in tests.
  explicit CpuSensors(std::string root = "/");
  // The clock of the CPU this thread runs on, MHz.
  std::optional<double> mhz() const;
  std::optional<double> temp_c() const;
  // Where each is read from, or "not available".
  std::string mhz_source() const;
  std::string temp_source() const;

 private:
  std::string root_;
  bool cpufreq_ = false, cpuinfo_ = false;
  std::string temp_path_;  // millidegrees C
};

}  // namespace preflight::telemetry
