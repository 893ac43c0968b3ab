#include "telemetry/sampler.hpp"

#include <mpi.h>

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>

#include "preflight/schema/telemetry.hpp"

namespace preflight::telemetry {
namespace {

namespace s = schema;

double or_nan(const std::optional<double>& v) {
  return v ? *v : std::nan("");
}

// One value per telemetry series, NaN where this rank has no reading.
std::array<double, s::kTelemetrySeriesCount> reading(const TelemetryPlan& plan) {
  std::array<double, s::kTelemetrySeriesCount> v{};
  v.fill(std::nan(""));
  v[s::kCpuMhz] = or_nan(plan.cpu->mhz());
  v[s::kCpuTempC] = or_nan(plan.cpu->temp_c());
  if (plan.gpu_index >= 0) {
    const auto g = plan.nvml->read(static_cast<unsigned>(plan.gpu_index));
    v[s::kGpuUtil] = or_nan(g.util);
    v[s::kGpuMemUsed] = or_nan(g.mem_used);
    v[s::kGpuTempC] = or_nan(g.temp_c);
    v[s::kGpuPowerW] = or_nan(g.power_w);
    v[s::kGpuSmMhz] = or_nan(g.sm_mhz);
    v[s::kGpuMemMhz] = or_nan(g.mem_mhz);
    v[s::kGpuThrottle] = or_nan(g.throttle);
    v[s::kGpuPowerCapped] = or_nan(g.power_capped);
    v[s::kGpuEccErrors] = or_nan(g.ecc_errors);
    v[s::kGpuPcieWidth] = or_nan(g.pcie_width);
    v[s::kGpuPcieGen] = or_nan(g.pcie_gen);
    v[s::kGpuPcieMaxWidth] = or_nan(g.pcie_max_width);
    v[s::kGpuPcieMaxGen] = or_nan(g.pcie_max_gen);
  }
  return v;
}

}  // namespace

std::vector<CounterSpec> TelemetryPlan::specs() const {
  std::vector<CounterSpec> out;
  for (std::size_t i : series)
    out.push_back({&s::kTelemetrySeries[i], s::kTelemetryIntervalS,
                   drives_gpu ? &s::kTelemetryWatches[i] : nullptr});
  return out;
}

TelemetryPlan plan_telemetry(const RankContext& ctx, const std::string& gpu_pci_bus,
                             const std::string& nvml_library) {
  TelemetryPlan plan;
  plan.cpu = std::make_shared<CpuSensors>();
  plan.drives_gpu = !gpu_pci_bus.empty();
  auto nvml = std::make_shared<gpu::Nvml>(nvml_library);
  if (nvml->available()) {
    if (!gpu_pci_bus.empty())
      plan.gpu_index = nvml->index_of_pci_bus(gpu_pci_bus);
    else if (const unsigned n = nvml->device_count(); n > 0)
      plan.gpu_index = static_cast<int>(static_cast<unsigned>(ctx.local_rank) % n);
  }
  plan.nvml = nvml;
  // Which sources any rank has: those series are declared on every rank.
  const auto first = reading(plan);
  std::array<int, s::kTelemetrySeriesCount> mine{}, any{};
  for (std::size_t i = 0; i < mine.size(); ++i) mine[i] = std::isnan(first[i]) ? 0 : 1;
  MPI_Allreduce(mine.data(), any.data(), static_cast<int>(mine.size()), MPI_INT, MPI_MAX,
                ctx.world);
  for (std::size_t i = 0; i < any.size(); ++i)
    if (any[i]) plan.series.push_back(i);
  const bool any_gpu = std::any_of(plan.series.begin(), plan.series.end(),
                                   [](std::size_t i) { return i >= s::kFirstGpuSeries; });
  std::string gpu = any_gpu
                        ? "NVML"
                        : fmt::format("{} ({})", s::kNotAvailable,
                                      nvml->available() ? "no GPU found by NVML" : nvml->why_not());
  plan.description = fmt::format("cpu_mhz: {}; cpu_temp_c: {}; gpu: {}", plan.cpu->mhz_source(),
                                 plan.cpu->temp_source(), gpu);
  return plan;
}

Sampler::Sampler(const TelemetryPlan& plan) : plan_(plan), rows_(plan.series.size()) {
  if (plan_.series.empty()) return;
  thread_ = std::thread([this] {
    auto next = std::chrono::steady_clock::now();
    while (!stop_.load(std::memory_order_relaxed)) {
      sample();
      next += std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(s::kTelemetryIntervalS));
      // Short sleeps, so that finish() returns soon after it is asked.
      while (!stop_.load(std::memory_order_relaxed) && std::chrono::steady_clock::now() < next)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
}

Sampler::~Sampler() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

void Sampler::sample() {
  const auto v = reading(plan_);
  for (std::size_t i = 0; i < plan_.series.size(); ++i) rows_[i].push_back(v[plan_.series[i]]);
}

std::vector<std::vector<double>> Sampler::finish() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  return rows_;
}

}  // namespace preflight::telemetry
