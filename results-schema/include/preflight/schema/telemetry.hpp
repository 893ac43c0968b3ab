// Telemetry series the compute families record beside their figures (SPEC.md, "Telemetry"):
// what the device was doing while it was measured. A series is declared on a case only when its
// source was found on the job's ranks; one that was not is named "not available" in the case's
// `telemetry` attribute, never filled with made-up values.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#include "preflight/schema/layout.hpp"
#include "preflight/schema/meaning.hpp"

namespace preflight::schema {

// The sampler's period: one row of every telemetry series.
inline constexpr double kTelemetryIntervalS = 0.1;

enum TelemetrySeries : std::size_t {
  kCpuMhz,
  kCpuTempC,
  kGpuUtil,
  kGpuMemUsed,
  kGpuTempC,
  kGpuPowerW,
  kGpuSmMhz,
  kGpuMemMhz,
  kGpuThrottle,
  kGpuEccErrors,
  kGpuPcieWidth,
  kGpuPcieGen,
  kTelemetrySeriesCount
};
inline constexpr std::size_t kFirstGpuSeries = kGpuUtil;
inline constexpr std::array kTelemetrySeries = {
    Column{"cpu_mhz", Type::kFloat64, "MHz", "clock of the CPU the rank ran on", Direction::kNone,
           Kind::kCount},
    Column{"cpu_temp_c", Type::kFloat64, "C", "CPU package temperature", Direction::kNone,
           Kind::kCount},
    Column{"gpu_util", Type::kFloat64, "", "fraction of the interval the rank's GPU was busy",
           Direction::kNone, Kind::kFraction},
    Column{"gpu_mem_used", Type::kFloat64, "B", "GPU memory in use", Direction::kNone,
           Kind::kCount},
    Column{"gpu_temp_c", Type::kFloat64, "C", "GPU temperature", Direction::kNone, Kind::kCount},
    Column{"gpu_power_w", Type::kFloat64, "W", "GPU power draw", Direction::kNone, Kind::kCount},
    Column{"gpu_sm_mhz", Type::kFloat64, "MHz", "GPU SM clock", Direction::kNone, Kind::kCount},
    Column{"gpu_mem_mhz", Type::kFloat64, "MHz", "GPU memory clock", Direction::kNone,
           Kind::kCount},
    Column{"gpu_throttle", Type::kFloat64, "",
           "NVML clock-throttle reason bits, idle and application-setting bits removed; 0: none",
           Direction::kNone, Kind::kLabel},
    Column{"gpu_ecc_errors", Type::kFloat64, "", "volatile uncorrected ECC errors since boot",
           Direction::kLower, Kind::kCount},
    Column{"gpu_pcie_width", Type::kFloat64, "lanes", "current PCIe link width of the GPU",
           Direction::kNone, Kind::kCount},
    Column{"gpu_pcie_gen", Type::kFloat64, "", "current PCIe link generation of the GPU",
           Direction::kNone, Kind::kCount},
};
static_assert(kTelemetrySeries.size() == kTelemetrySeriesCount);
static_assert(kTelemetrySeries[kCpuMhz].name == "cpu_mhz");
static_assert(kTelemetrySeries[kCpuTempC].name == "cpu_temp_c");
static_assert(kTelemetrySeries[kGpuUtil].name == "gpu_util");
static_assert(kTelemetrySeries[kGpuMemUsed].name == "gpu_mem_used");
static_assert(kTelemetrySeries[kGpuTempC].name == "gpu_temp_c");
static_assert(kTelemetrySeries[kGpuPowerW].name == "gpu_power_w");
static_assert(kTelemetrySeries[kGpuSmMhz].name == "gpu_sm_mhz");
static_assert(kTelemetrySeries[kGpuMemMhz].name == "gpu_mem_mhz");
static_assert(kTelemetrySeries[kGpuThrottle].name == "gpu_throttle");
static_assert(kTelemetrySeries[kGpuEccErrors].name == "gpu_ecc_errors");
static_assert(kTelemetrySeries[kGpuPcieWidth].name == "gpu_pcie_width");
static_assert(kTelemetrySeries[kGpuPcieGen].name == "gpu_pcie_gen");

// The words of the case attribute `telemetry` for a source that is absent.
inline constexpr std::string_view kNotAvailable = "not available";

}  // namespace preflight::schema
