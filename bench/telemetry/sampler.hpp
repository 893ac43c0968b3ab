// A thread per rank that reads what its device is doing every schema::kTelemetryIntervalS while
// a point runs (correctness check, warm-up and timed iterations): CPU clock and temperature, and
// its GPU's NVML readings. The rows become the point's telemetry series.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gpu/nvml.hpp"
#include "harness/run/case.hpp"
#include "harness/run/rank_context.hpp"
#include "telemetry/cpu_sensors.hpp"

namespace preflight::telemetry {

// Which series the job records: the same on every rank (a series is declared when any rank has
// its source; a rank without it records NaN, never a guess), and what the case attribute
// `telemetry` says about each source.
struct TelemetryPlan {
  std::vector<std::size_t> series;  // indices into schema::kTelemetrySeries
  std::string description;          // "cpu_mhz: <source>; cpu_temp_c: not available; gpu: ..."
  std::shared_ptr<const gpu::Nvml> nvml;
  std::shared_ptr<const CpuSensors> cpu;
  int gpu_index = -1;  // this rank's NVML index, -1: none
  // The case runs on the rank's GPU: its series carry what the report watches on them
  // (schema::kTelemetryWatches). A CPU case's GPU idles, so its readings are not judged.
  bool drives_gpu = false;
  std::vector<CounterSpec> specs() const;
};

// Collective over ctx.world. gpu_pci_bus: this rank's GPU ("" when the case runs on the CPU:
// the node's GPU number local_rank, if the node has GPUs). nvml_library: tests name a missing one.
TelemetryPlan plan_telemetry(const RankContext& ctx, const std::string& gpu_pci_bus,
                             const std::string& nvml_library = "libnvidia-ml.so.1");

class Sampler {
 public:
  explicit Sampler(const TelemetryPlan& plan);
  ~Sampler();
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;
  // Stops the thread and returns one series per plan.series entry.
  std::vector<std::vector<double>> finish();

 private:
  void sample();

  const TelemetryPlan& plan_;
  std::vector<std::vector<double>> rows_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace preflight::telemetry
