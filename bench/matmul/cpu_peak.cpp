#include "matmul/cpu_peak.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

namespace preflight::matmul {
namespace {

std::string cpuinfo_field(const std::string& root, const std::string& key) {
  std::ifstream in(root + "proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key, 0) == 0 && line.find(':') != std::string::npos)
      return line.substr(line.find(':') + 2);
  return {};
}

bool has_flag(const std::string& flags, const std::string& flag) {
  std::istringstream in(flags);
  std::string f;
  while (in >> f)
    if (f == flag) return true;
  return false;
}

struct Factor {
  double value = 0;
  std::string source;
};

// Vector width from the instruction sets /proc/cpuinfo lists (what cpuid reports).
Factor vector_bits(const std::string& root) {
  const std::string flags = cpuinfo_field(root, "flags");
  if (has_flag(flags, "avx512f")) return {512, "avx512f in /proc/cpuinfo flags"};
  if (has_flag(flags, "avx2") || has_flag(flags, "avx"))
    return {256, "avx2 in /proc/cpuinfo flags"};
  if (has_flag(flags, "asimd")) return {128, "asimd in /proc/cpuinfo flags"};
  if (has_flag(flags, "sse2")) return {128, "sse2 in /proc/cpuinfo flags"};
  return {0, "no known vector instruction set in /proc/cpuinfo"};
}

// The highest clock the kernel reports: cpufreq's maximum, else the current "cpu MHz" (a VM
// without cpufreq: the host's clock as the hypervisor passes it).
Factor clock_ghz(const std::string& root, double given) {
  if (given > 0) return {given, "cpu_ghz as given"};
  std::ifstream max(root + "sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
  double khz = 0;
  if (max >> khz && khz > 0)
    return {khz / 1e6, "cpuinfo_max_freq in /sys/devices/system/cpu/cpu0/cpufreq"};
  const std::string mhz = cpuinfo_field(root, "cpu MHz");
  if (!mhz.empty()) return {std::stod(mhz) / 1e3, "cpu MHz in /proc/cpuinfo (no cpufreq)"};
  return {0, "no clock in /sys or /proc/cpuinfo: set cpu_ghz"};
}

}  // namespace

Peak cpu_peak(DType d, const CpuPeakInputs& in) {
  const Factor bits = vector_bits(in.root);
  const Factor ghz = clock_ghz(in.root, in.ghz);
  const bool has_fma = has_flag(cpuinfo_field(in.root, "flags"), "fma") ||
                       has_flag(cpuinfo_field(in.root, "flags"), "avx512f");
  const Factor units = in.fma_units > 0
                           ? Factor{static_cast<double>(in.fma_units), "cpu_fma_units as given"}
                       : has_fma ? Factor{2,
                                          "assumed 2 (fma in /proc/cpuinfo flags; cpuid does "
                                          "not count units: set cpu_fma_units)"}
                                 : Factor{1, "assumed 1 (no fma flag: a multiply and an add)"};
  const double lanes = bits.value / (8.0 * static_cast<double>(traits_of(d).in_bytes));
  Peak p;
  p.tflops = lanes > 0 && ghz.value > 0
                 ? in.cores * units.value * lanes * 2 * ghz.value * 1e9 / 1e12
                 : std::nan("");
  p.source = fmt::format(
      "{} core(s) (the rank's threads) x {} FMA unit(s) ({}) x {} {} lanes ({} bits: {}) x 2 "
      "FLOP x {:.3f} GHz ({})",
      in.cores, units.value, units.source, lanes, kDTypeNames.name(d), bits.value, bits.source,
      ghz.value, ghz.source);
  return p;
}

}  // namespace preflight::matmul
