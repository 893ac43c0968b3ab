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

// Where a telemetry series sits in a reading: its place in the declared table.
constexpr std::size_t series(const s::Column& c) {
  return s::index_in(s::kTelemetrySeries, c);
}

double or_nan(const std::optional<double>& v) {
  return v ? *v : std::nan("");
}

// One value per telemetry series, NaN where this rank has no reading.
std::array<double, s::kTelemetrySeries.size()> reading(const TelemetryPlan& plan) {
  std::array<double, s::kTelemetrySeries.size()> v{};
  v.fill(std::nan(""));
  v[series(s::telemetry::kCpuMhzSeries)] = or_nan(plan.cpu->mhz());
  v[series(s::telemetry::kCpuTempCSeries)] = or_nan(plan.cpu->temp_c());
  if (plan.gpu_index >= 0) {
    const auto g = plan.nvml->read(static_cast<unsigned>(plan.gpu_index));
    v[series(s::telemetry::kGpuUtilSeries)] = or_nan(g.util);
    v[series(s::telemetry::kGpuMemUsedSeries)] = or_nan(g.mem_used);
    v[series(s::telemetry::kGpuTempCSeries)] = or_nan(g.temp_c);
    v[series(s::telemetry::kGpuPowerWSeries)] = or_nan(g.power_w);
    v[series(s::telemetry::kGpuSmMhzSeries)] = or_nan(g.sm_mhz);
    v[series(s::telemetry::kGpuMemMhzSeries)] = or_nan(g.mem_mhz);
    v[series(s::telemetry::kGpuThrottleSeries)] = or_nan(g.throttle);
    v[series(s::telemetry::kGpuPowerCappedSeries)] = or_nan(g.power_capped);
    v[series(s::telemetry::kGpuEccErrorsSeries)] = or_nan(g.ecc_errors);
    v[series(s::telemetry::kGpuPcieWidthSeries)] = or_nan(g.pcie_width);
    v[series(s::telemetry::kGpuPcieGenSeries)] = or_nan(g.pcie_gen);
    v[series(s::telemetry::kGpuPcieMaxWidthSeries)] = or_nan(g.pcie_max_width);
    v[series(s::telemetry::kGpuPcieMaxGenSeries)] = or_nan(g.pcie_max_gen);
    v[series(s::telemetry::kGpuSlowdownTempCSeries)] = or_nan(g.slowdown_temp_c);
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
  std::array<int, s::kTelemetrySeries.size()> mine{}, any{};
  for (std::size_t i = 0; i < mine.size(); ++i) mine[i] = std::isnan(first[i]) ? 0 : 1;
  MPI_Allreduce(mine.data(), any.data(), static_cast<int>(mine.size()), MPI_INT, MPI_MAX,
                ctx.world);
  for (std::size_t i = 0; i < any.size(); ++i)
    if (any[i]) plan.series.push_back(i);
  // The GPU's series follow the CPU's in the table: a rank without a GPU has none from there on.
  const bool any_gpu = std::any_of(plan.series.begin(), plan.series.end(), [](std::size_t i) {
    return i >= series(s::telemetry::kGpuUtilSeries);
  });
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
