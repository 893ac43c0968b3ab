#include "memory/stream_case.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "harness/stats.hpp"
#include "preflight/schema/memory.hpp"
#include "telemetry/observed_operation.hpp"

namespace preflight::memory {
namespace {

namespace s = schema;

}  // namespace

StreamCase::StreamCase(StreamCaseSpec spec, std::vector<int> group_of_rank,
                       std::shared_ptr<const telemetry::TelemetryPlan> telemetry, int rank)
    : spec_(std::move(spec)),
      group_of_rank_(std::move(group_of_rank)),
      telemetry_(std::move(telemetry)),
      rank_(rank) {}

std::string StreamCase::subject() const {
  return spec_.backend == "cpu" ? fmt::format("cpu {} x{}", spec_.kernel_label, spec_.threads)
                                : fmt::format("{} {}", spec_.backend, spec_.kernel_label);
}

std::string StreamCase::name() const {
  return fmt::format("{} {}", subject(), spec_.layout);
}

std::vector<Param> StreamCase::params() const {
  const auto& a = s::kMemoryCaseAttributes;
  auto item = [&](std::size_t i, std::variant<std::int64_t, double, std::string> v) {
    return Param{std::string(a[i].name), std::move(v), std::string(a[i].unit), false};
  };
  return {item(0, spec_.kernel_label),
          item(1, std::int64_t{spec_.threads}),
          item(2, std::int64_t{spec_.ranks_per_node}),
          item(3, std::int64_t{spec_.nodes}),
          item(4, std::int64_t{spec_.ranks}),
          item(5, spec_.layout),
          item(6, spec_.memory_peak_gbs),
          item(7, spec_.memory_peak_source),
          item(8, spec_.interval_s),
          item(9, telemetry_->description),
          item(10, spec_.bytes_counted)};
}

CaseMeaning StreamCase::meaning() const {
  CaseMeaning m;
  m.stage = s::kMemoryStage;
  m.x_axis = s::kMemoryXAxis;
  m.bands = s::kMemoryBands;
  m.scaling = s::kMemoryScaling;
  m.subject = subject();
  m.series = s::kMemorySeriesName;
  m.peer_slow = s::kMemoryPeerSlow;
  m.peer_late = s::kMemoryPeerLate;
  m.min_samples = s::kMemoryMinSamples;
  return m;
}

double StreamCase::bytes_moved(std::size_t point) const {
  const std::uint64_t elements = spec_.sizes[point] / sizeof(double);
  return static_cast<double>(elements * sizeof(double)) * spec_.arrays;
}

std::vector<Param> StreamCase::point_columns(std::size_t point, int /*group*/) const {
  const auto& c = s::kMemoryStatsColumns;
  return {
      column_param(c[s::kMemoryArrayBytes], static_cast<std::int64_t>(spec_.sizes[point]), true),
      column_param(c[s::kMemoryBytesMoved], static_cast<std::int64_t>(bytes_moved(point)), false)};
}

std::vector<Metric> StreamCase::metrics(std::size_t point, int /*group*/, double seconds) const {
  const auto& c = s::kMemoryStatsColumns;
  const double bw = bytes_moved(point) / seconds / 1e9;
  const double node = bw * spec_.ranks_per_node;
  return {metric(c[s::kMemoryBw], bw, &c[s::kMemoryBatchedBw]),
          metric(c[s::kMemoryNodeBw], node, &c[s::kMemoryBatchedNodeBw]),
          metric(c[s::kMemoryPeakFraction], node / spec_.memory_peak_gbs,
                 &c[s::kMemoryBatchedPeakFraction])};
}

std::vector<Metric> StreamCase::sample_metrics(std::size_t point, int /*group*/,
                                               const SampleView& view) const {
  std::vector<double> rates;
  for (int r : *view.members) {
    std::vector<double> own;
    for (std::size_t i = 0; i < view.iterations; ++i)
      own.push_back((*view.times)[i * view.ranks + static_cast<std::size_t>(r)]);
    rates.push_back(bytes_moved(point) / median(own) / 1e9);
  }
  const auto& c = s::kMemoryStatsColumns;
  const double nan = std::nan("");
  return {metric(c[s::kMemoryRankBwMin],
                 rates.empty() ? nan : *std::min_element(rates.begin(), rates.end())),
          metric(c[s::kMemoryRankBwMedian], rates.empty() ? nan : median(rates))};
}

std::vector<CounterSpec> StreamCase::series() const {
  std::vector<CounterSpec> out{{&s::kMemorySeries[0], spec_.interval_s}};
  for (const auto& t : telemetry_->specs()) out.push_back(t);
  return out;
}

std::unique_ptr<Operation> StreamCase::make_operation(std::size_t point) {
  if (group_of_rank_[static_cast<std::size_t>(rank_)] < 0) return nullptr;
  auto op = spec_.make(spec_.sizes[point] / sizeof(double), static_cast<std::uint64_t>(rank_));
  return std::make_unique<telemetry::ObservedOperation>(std::move(op), *telemetry_,
                                                        bytes_moved(point) / 1e9, spec_.interval_s);
}

}  // namespace preflight::memory
