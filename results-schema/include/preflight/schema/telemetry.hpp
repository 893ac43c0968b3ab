// Telemetry series the compute families record beside their figures (SPEC.md, "Telemetry"):
// what the device was doing while it was measured. A series is declared on a case only when its
// source was found on the job's ranks; one that was not is named "not available" in the case's
// `telemetry` attribute, never filled with made-up values.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "preflight/schema/attr.hpp"
#include "preflight/schema/layout.hpp"
#include "preflight/schema/meaning.hpp"

namespace preflight::schema {

// The sampler's period: one row of every telemetry series.
inline constexpr double kTelemetryIntervalS = 0.1;

namespace telemetry {
inline constexpr Column kCpuMhzSeries{
    "cpu_mhz",        Type::kFloat64, "MHz", "clock of the CPU the rank ran on",
    Direction::kNone, Kind::kCount};
inline constexpr Column kCpuTempCSeries{
    "cpu_temp_c", Type::kFloat64, "C", "CPU package temperature", Direction::kNone, Kind::kCount};
inline constexpr Column kGpuUtilSeries{
    "gpu_util",       Type::kFloat64, "", "fraction of the interval the rank's GPU was busy",
    Direction::kNone, Kind::kFraction};
inline constexpr Column kGpuMemUsedSeries{"gpu_mem_used",      Type::kFloat64,   "B",
                                          "GPU memory in use", Direction::kNone, Kind::kCount};
inline constexpr Column kGpuTempCSeries{"gpu_temp_c",      Type::kFloat64,   "C",
                                        "GPU temperature", Direction::kNone, Kind::kCount};
inline constexpr Column kGpuPowerWSeries{"gpu_power_w",    Type::kFloat64,   "W",
                                         "GPU power draw", Direction::kNone, Kind::kCount};
inline constexpr Column kGpuSmMhzSeries{"gpu_sm_mhz",   Type::kFloat64,   "MHz",
                                        "GPU SM clock", Direction::kNone, Kind::kCount};
inline constexpr Column kGpuMemMhzSeries{"gpu_mem_mhz",      Type::kFloat64,   "MHz",
                                         "GPU memory clock", Direction::kNone, Kind::kCount};
inline constexpr Column kGpuThrottleSeries{
    "gpu_throttle",
    Type::kFloat64,
    "",
    "NVML clock-event reason bits of forced slowdowns (hardware, thermal, power brake); 0: "
    "none",
    Direction::kNone,
    Kind::kLabel};
inline constexpr Column kGpuPowerCappedSeries{
    "gpu_power_capped",
    Type::kFloat64,
    "",
    "1 while the software power cap held the clocks (NVML reason 0x4), else 0",
    Direction::kNone,
    Kind::kLabel};
inline constexpr Column kGpuEccErrorsSeries{
    "gpu_ecc_errors",  Type::kFloat64, "", "volatile uncorrected ECC errors since boot",
    Direction::kLower, Kind::kCount};
inline constexpr Column kGpuPcieWidthSeries{"gpu_pcie_width", Type::kFloat64,
                                            "lanes",          "current PCIe link width of the GPU",
                                            Direction::kNone, Kind::kCount};
inline constexpr Column kGpuPcieGenSeries{
    "gpu_pcie_gen",   Type::kFloat64, "", "current PCIe link generation of the GPU",
    Direction::kNone, Kind::kCount};
inline constexpr Column kGpuPcieMaxWidthSeries{
    "gpu_pcie_max_width", Type::kFloat64, "lanes", "widest PCIe link the GPU and its slot allow",
    Direction::kNone,     Kind::kCount};
inline constexpr Column kGpuPcieMaxGenSeries{
    "gpu_pcie_max_gen",
    Type::kFloat64,
    "",
    "highest PCIe link generation the GPU and its slot allow",
    Direction::kNone,
    Kind::kCount};
inline constexpr Column kGpuSlowdownTempCSeries{
    "gpu_slowdown_temp_c",
    Type::kFloat64,
    "C",
    "GPU temperature at which the hardware begins to slow the GPU (NVML's slowdown threshold)",
    Direction::kNone,
    Kind::kCount};
}  // namespace telemetry
inline constexpr std::array kTelemetrySeries = {
    telemetry::kCpuMhzSeries,        telemetry::kCpuTempCSeries,
    telemetry::kGpuUtilSeries,       telemetry::kGpuMemUsedSeries,
    telemetry::kGpuTempCSeries,      telemetry::kGpuPowerWSeries,
    telemetry::kGpuSmMhzSeries,      telemetry::kGpuMemMhzSeries,
    telemetry::kGpuThrottleSeries,   telemetry::kGpuPowerCappedSeries,
    telemetry::kGpuEccErrorsSeries,  telemetry::kGpuPcieWidthSeries,
    telemetry::kGpuPcieGenSeries,    telemetry::kGpuPcieMaxWidthSeries,
    telemetry::kGpuPcieMaxGenSeries, telemetry::kGpuSlowdownTempCSeries,
};

// A GPU's SM or memory clock this far from its peers' median during a case is named: GPUs of one
// model under the same load run within a few percent of each other (power-capped GEMMs vary the
// most); a tenth apart is a GPU held back by its power, thermals or a clock setting.
inline constexpr double kGpuClockTolerance = 0.10;

// A GPU whose hottest reading in a case comes within this many degrees of its own slowdown
// temperature is named: at the threshold the hardware slows it (the throttle watch names that);
// 5 C short of it, a warmer room or a busier neighbour is enough. Held against the limit the GPU
// reports, not a fixed figure: slowdown temperatures differ by model and board.
inline constexpr double kGpuTemperatureMarginC = 5;

// What the report watches on each telemetry series (SPEC.md, "Telemetry"), in kTelemetrySeries'
// order; written only on the cases that drive the rank's GPU: in a CPU case the GPU idles, its
// clocks fall and its link drops to a lower generation to save power, which says nothing wrong.
inline constexpr std::array kTelemetryWatches = {
    SeriesWatch{},  // cpu_mhz
    SeriesWatch{},  // cpu_temp_c
    SeriesWatch{},  // gpu_util
    SeriesWatch{},  // gpu_mem_used
    // Too little headroom below the temperature where the hardware slows the GPU: cooling
    // (airflow, a fan, the heat sink's contact), serviced with the node drained.
    SeriesWatch{Watch::kMargin, "close to its slowdown temperature", kGpuTemperatureMarginC,
                telemetry::kGpuSlowdownTempCSeries.name, "", Remedy::kIsolate},
    SeriesWatch{},  // gpu_power_w
    // A clock unlike its peers' under the same load: a clock or power setting, or a driver
    // state; a reboot restores them.
    SeriesWatch{Watch::kPeers, "SM clock unlike its peers'", kGpuClockTolerance, "", "",
                Remedy::kReboot},
    SeriesWatch{Watch::kPeers, "memory clock unlike its peers'", kGpuClockTolerance, "", "",
                Remedy::kReboot},
    // Slowdowns the hardware forces (its thermals, its power brake): cooling or power delivery,
    // serviced with the node drained.
    SeriesWatch{Watch::kZero, "throttled", 0, "",
                "0x8 hardware slowdown; 0x20 software thermal slowdown; 0x40 hardware thermal "
                "slowdown; 0x80 hardware power brake",
                Remedy::kIsolate},
    // Not watched: a GEMM at the board's power limit is capped by design; a GPU whose cap holds
    // it back more than its peers' shows in gpu_sm_mhz.
    SeriesWatch{},  // gpu_power_capped
    // Uncorrected ECC errors that happen under load (the count rises during a case): the GPU's
    // memory fails now, not in its history; serviced with the node drained.
    SeriesWatch{Watch::kGrows, "uncorrected ECC errors grew", 0, "", "", Remedy::kIsolate},
    // A link that trained narrower or slower than it can: a GPU reset retrains it.
    SeriesWatch{Watch::kReference, "PCIe link narrower than its maximum", 0,
                telemetry::kGpuPcieMaxWidthSeries.name, "", Remedy::kReset},
    SeriesWatch{Watch::kReference, "PCIe link generation below its maximum", 0,
                telemetry::kGpuPcieMaxGenSeries.name, "", Remedy::kReset},
    SeriesWatch{},  // gpu_pcie_max_width
    SeriesWatch{},  // gpu_pcie_max_gen
    SeriesWatch{},  // gpu_slowdown_temp_c
};

// The words of the case attribute `telemetry` for a source that is absent.
inline constexpr std::string_view kNotAvailable = "not available";

}  // namespace preflight::schema
