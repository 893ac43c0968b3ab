#include "memory/stream_case.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "preflight/common/stats.hpp"
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
  namespace m = s::memory;
  return {attr(m::kMemoryOp, spec_.kernel_label),
          attr(m::kThreads, spec_.threads),
          attr(m::kRanksPerNode, spec_.ranks_per_node),
          attr(m::kNodes, spec_.nodes),
          attr(m::kRanks, spec_.ranks),
          attr(m::kLayout, spec_.layout),
          attr(m::kMemoryPeak, spec_.memory_peak_gbs),
          attr(m::kMemoryPeakSource, spec_.memory_peak_source),
          attr(m::kIntervalS, spec_.interval_s),
          attr(m::kTelemetry, telemetry_->description),
          attr(m::kBytesCounted, spec_.bytes_counted)};
}

schema::OwnMeaning StreamCase::own_meaning() const {
  return {.subject = subject()};
}

double StreamCase::bytes_moved(std::size_t point) const {
  const std::uint64_t elements = spec_.sizes[point] / sizeof(double);
  return static_cast<double>(elements * sizeof(double)) * spec_.arrays;
}

std::vector<Param> StreamCase::point_columns(std::size_t point, int /*group*/) const {
  return {column_param(schema::memory::kArrayBytesColumn,
                       static_cast<std::int64_t>(spec_.sizes[point]), true),
          column_param(schema::memory::kBytesMovedColumn,
                       static_cast<std::int64_t>(bytes_moved(point)), false)};
}

std::vector<Metric> StreamCase::metrics(std::size_t point, int /*group*/, double seconds) const {
  const double bw = bytes_moved(point) / seconds / 1e9;
  const double node = bw * spec_.ranks_per_node;
  return {metric(schema::memory::kBwColumn, bw, &schema::memory::kBatchedBwColumn),
          metric(schema::memory::kNodeBwColumn, node, &schema::memory::kBatchedNodeBwColumn),
          metric(schema::memory::kPeakFractionColumn, node / spec_.memory_peak_gbs,
                 &schema::memory::kBatchedPeakFractionColumn)};
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
  const double nan = std::nan("");
  return {metric(schema::memory::kRankBwMinColumn,
                 rates.empty() ? nan : *std::min_element(rates.begin(), rates.end())),
          metric(schema::memory::kRankBwMedianColumn, rates.empty() ? nan : median(rates))};
}

std::vector<CounterSpec> StreamCase::series() const {
  std::vector<CounterSpec> out{{&s::memory::kIntervalBwSeries, spec_.interval_s}};
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
