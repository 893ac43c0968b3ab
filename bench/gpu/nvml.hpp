// NVML, loaded with dlopen at run time: the development and CI machines have no nvml.h and no
// driver, and a user's node may have a GPU without NVML in its container. Absent is an answer
// ("not available" and why), never a made-up figure.
#pragma once

#include <memory>
#include <optional>
#include <string>

namespace preflight::gpu {

// One reading of one GPU; a field NVML did not give is nullopt.
struct GpuReading {
  std::optional<double> util;      // 0..1
  std::optional<double> mem_used;  // bytes
  std::optional<double> temp_c;
  std::optional<double> power_w;
  std::optional<double> sm_mhz;
  std::optional<double> mem_mhz;
  std::optional<double> throttle;      // slowdown reason bits (kSlowdownReasons) only
  std::optional<double> power_capped;  // 1 while the software power cap holds the clocks, else 0
  std::optional<double> ecc_errors;    // volatile uncorrected
  std::optional<double> pcie_width;
  std::optional<double> pcie_gen;
  std::optional<double> pcie_max_width;  // what the GPU and its slot allow
  std::optional<double> pcie_max_gen;
  std::optional<double> slowdown_temp_c;  // where the hardware begins to slow the GPU
};

// NVML's clock-event reasons (nvmlClocksEventReason*, NVML API reference "NvmlClocksEventReasons",
// R550 and later; the same bits as the older nvmlClocksThrottleReason* names). The software power
// cap (0x4) is set routinely under dense GEMMs that run at the board's power limit: a GPU doing
// its best, not a sick one, so it is kept apart from the slowdowns, which say the clocks were
// forced down: hardware slowdown (0x8), software thermal (0x20), hardware thermal (0x40) and the
// hardware power brake (0x80). Idle (0x1), application clocks (0x2), sync boost (0x10) and
// display clocks (0x100) are settings, not findings.
inline constexpr unsigned long long kPowerCapReason = 0x4;
inline constexpr unsigned long long kSlowdownReasons = 0x8 | 0x20 | 0x40 | 0x80;
constexpr double slowdown_bits(unsigned long long reasons) {
  return static_cast<double>(reasons & kSlowdownReasons);
}
constexpr double power_capped(unsigned long long reasons) {
  return (reasons & kPowerCapReason) != 0 ? 1 : 0;
}

struct PcieLink {
  unsigned width = 0, max_width = 0, gen = 0, max_gen = 0;
};

class Nvml {
 public:
  // Loads `library` (default libnvidia-ml.so.1) and initialises NVML. Never throws: see
  // available() and why_not().
  explicit Nvml(const std::string& library = "libnvidia-ml.so.1");
  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  bool available() const { return api_ != nullptr; }
  const std::string& why_not() const { return why_not_; }  // "" when available
  unsigned device_count() const;
  // A device handle by NVML index or by PCI bus id ("0000:3b:00.0", from CUDA); -1 if none.
  int index_of_pci_bus(const std::string& bus_id) const;
  GpuReading read(unsigned index) const;
  std::optional<PcieLink> pcie_link(unsigned index) const;
  // NVLinks of device `index` whose state is active (nvmlDeviceGetNvLinkState over every link
  // NVML has); -1 when NVML cannot say (no such call, or an error other than "no such link").
  int active_nvlinks(unsigned index) const;

  struct Api;

 private:
  void* handle_ = nullptr;
  std::unique_ptr<Api> api_;
  std::string why_not_;
};

}  // namespace preflight::gpu
