#include "matmul/matmul_case.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "harness/rank_span.hpp"
#include "harness/stats.hpp"
#include "preflight/schema/matmul.hpp"
#include "telemetry/observed_operation.hpp"

namespace preflight::matmul {
namespace {
namespace s = schema;
}  // namespace

MatmulCase::MatmulCase(MatmulCaseSpec spec, std::shared_ptr<GemmBackend> backend,
                       std::shared_ptr<const telemetry::TelemetryPlan> telemetry, int rank,
                       int ranks)
    : spec_(std::move(spec)),
      backend_(std::move(backend)),
      telemetry_(std::move(telemetry)),
      group_of_rank_(static_cast<std::size_t>(ranks), 0),
      algorithm_(spec_.shapes.size(), -1),
      rank_(rank) {}

std::string MatmulCase::name() const {
  return fmt::format("{} {} {}", backend_->name(), kDTypeNames.name(spec_.dtype),
                     spec_.shapes_label);
}

std::vector<Param> MatmulCase::params() const {
  const auto& a = s::kMatmulCaseAttributes;
  auto item = [&](std::size_t i, std::variant<std::int64_t, double, std::string> v) {
    return Param{std::string(a[i].name), std::move(v), std::string(a[i].unit), false};
  };
  std::int64_t k = 0;
  for (const auto& shape : spec_.shapes) k = std::max(k, shape.k);
  return {item(0, std::string(kDTypeNames.name(spec_.dtype))),
          item(1, spec_.shapes_label),
          item(2, std::int64_t{spec_.threads}),
          item(3, spec_.peak.tflops),
          item(4, spec_.peak.source),
          item(5, static_cast<std::int64_t>(spec_.samples)),
          item(6, tolerance_of(spec_.dtype, k)),
          item(7, spec_.library),
          item(8, spec_.interval_s),
          item(9, telemetry_->description),
          item(10, static_cast<std::int64_t>(group_of_rank_.size()))};
}

CaseMeaning MatmulCase::meaning() const {
  CaseMeaning m;
  m.stage = s::kMatmulStage;
  m.x_axis = s::kMatmulXAxis;
  m.bands = s::kMatmulBands;
  m.scaling = s::kMatmulScaling;
  m.subject = name();
  m.series = s::kMatmulSeriesName;
  m.peer_slow = s::kMatmulPeerSlow;
  m.peer_late = s::kMatmulPeerLate;
  m.min_samples = s::kMatmulMinSamples;
  return m;
}

std::vector<Param> MatmulCase::point_columns(std::size_t point, int /*group*/) const {
  const auto& c = s::kMatmulStatsColumns;
  const Shape& shape = spec_.shapes[point];
  return {column_param(c[s::kMatmulM], shape.m, true), column_param(c[s::kMatmulN], shape.n, true),
          column_param(c[s::kMatmulK], shape.k, true),
          column_param(c[s::kMatmulFlop], static_cast<std::int64_t>(shape.flop()), false),
          column_param(c[s::kMatmulAlgorithm], algorithm_[point], false)};
}

std::vector<Metric> MatmulCase::metrics(std::size_t point, int /*group*/, double seconds) const {
  const auto& c = s::kMatmulStatsColumns;
  const double tflops = spec_.shapes[point].flop() / seconds / 1e12;
  return {metric(c[s::kMatmulTflops], tflops, &c[s::kMatmulBatchedTflops]),
          metric(c[s::kMatmulPeakFraction], tflops / spec_.peak.tflops,
                 &c[s::kMatmulBatchedPeakFraction])};
}

std::vector<Metric> MatmulCase::sample_metrics(std::size_t point, int /*group*/,
                                               const SampleView& view) const {
  std::vector<double> rates;
  for (int r : *view.members) {
    std::vector<double> own;
    for (std::size_t i = 0; i < view.iterations; ++i)
      own.push_back((*view.times)[i * view.ranks + static_cast<std::size_t>(r)]);
    rates.push_back(spec_.shapes[point].flop() / median(own) / 1e12);
  }
  const auto& c = s::kMatmulStatsColumns;
  const double lowest =
      rates.empty() ? std::nan("") : *std::min_element(rates.begin(), rates.end());
  std::vector<double> spans;
  if (view.starts != nullptr)
    for (const auto& span : iteration_spans(view))
      if (!std::isnan(span.span_s)) spans.push_back(span.span_s);
  return {metric(c[s::kMatmulRankTflopsMin], lowest),
          metric(c[s::kMatmulRankTflopsMedian], rates.empty() ? std::nan("") : median(rates)),
          metric(c[s::kMatmulSpanTflops],
                 spans.empty() ? std::nan("") : spec_.shapes[point].flop() / median(spans) / 1e12)};
}

std::vector<CounterSpec> MatmulCase::series() const {
  std::vector<CounterSpec> out{{&s::kMatmulSeries[0], spec_.interval_s}};
  for (const auto& t : telemetry_->specs()) out.push_back(t);
  return out;
}

std::unique_ptr<Operation> MatmulCase::make_operation(std::size_t point) {
  GemmPoint p;
  p.dtype = spec_.dtype;
  p.shape = spec_.shapes[point];
  p.rank = rank_;
  p.point = point;
  p.samples = spec_.samples;
  p.threads = spec_.threads;
  auto op = backend_->make_operation(p);
  algorithm_[point] = op->algorithm();
  return std::make_unique<telemetry::ObservedOperation>(std::move(op), *telemetry_,
                                                        p.shape.flop() / 1e12, spec_.interval_s);
}

}  // namespace preflight::matmul
