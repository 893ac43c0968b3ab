#include "matmul/matmul_case.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "harness/run/rank_span.hpp"
#include "preflight/common/stats.hpp"
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
  namespace m = s::matmul;
  std::int64_t k = 0;
  for (const auto& shape : spec_.shapes) k = std::max(k, shape.k);
  return {attr(m::kDtype, kDTypeNames.name(spec_.dtype)),
          attr(m::kShapes, spec_.shapes_label),
          attr(m::kThreads, spec_.threads),
          attr(m::kPeakTflops, spec_.peak.tflops),
          attr(m::kPeakSource, spec_.peak.source),
          attr(m::kVerifySamples, static_cast<std::int64_t>(spec_.samples)),
          attr(m::kCheckTolerance, tolerance_of(spec_.dtype, k)),
          attr(m::kLibrary, spec_.library),
          attr(m::kIntervalS, spec_.interval_s),
          attr(m::kTelemetry, telemetry_->description),
          attr(m::kRanks, static_cast<std::int64_t>(group_of_rank_.size()))};
}

schema::OwnMeaning MatmulCase::own_meaning() const {
  return {.subject = name()};
}

std::vector<Param> MatmulCase::point_columns(std::size_t point, int /*group*/) const {
  const Shape& shape = spec_.shapes[point];
  return {column_param(schema::matmul::kGemmMColumn, shape.m, true),
          column_param(schema::matmul::kGemmNColumn, shape.n, true),
          column_param(schema::matmul::kGemmKColumn, shape.k, true),
          column_param(schema::matmul::kFlopColumn, static_cast<std::int64_t>(shape.flop()), false),
          column_param(schema::matmul::kKeptAlgorithmColumn, algorithm_[point], false)};
}

std::vector<Metric> MatmulCase::metrics(std::size_t point, int /*group*/, double seconds) const {
  const double tflops = spec_.shapes[point].flop() / seconds / 1e12;
  return {metric(schema::matmul::kTflopsColumn, tflops, &schema::matmul::kBatchedTflopsColumn),
          metric(schema::matmul::kPeakFractionColumn, tflops / spec_.peak.tflops,
                 &schema::matmul::kBatchedPeakFractionColumn)};
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
  const double lowest =
      rates.empty() ? std::nan("") : *std::min_element(rates.begin(), rates.end());
  std::vector<double> spans;
  if (view.starts != nullptr)
    for (const auto& span : iteration_spans(view))
      if (!std::isnan(span.span_s)) spans.push_back(span.span_s);
  return {
      metric(schema::matmul::kRankTflopsMinColumn, lowest),
      metric(schema::matmul::kRankTflopsMedianColumn, rates.empty() ? std::nan("") : median(rates)),
      metric(schema::matmul::kSpanTflopsColumn,
             spans.empty() ? std::nan("") : spec_.shapes[point].flop() / median(spans) / 1e12)};
}

std::vector<CounterSpec> MatmulCase::series() const {
  std::vector<CounterSpec> out{{&s::matmul::kIntervalTflopsSeries, spec_.interval_s}};
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
