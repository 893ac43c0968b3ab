#include "analysis/site_reference.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <tuple>

#include "analysis/case_view.hpp"
#include "preflight/common/stats.hpp"
#include "preflight/schema/layout.hpp"

namespace preflight::report {
namespace {

// What makes two cases the same figure: their rounds, passes and repetitions are its replicates.
using FigureKey = std::tuple<std::string, std::string, std::string, std::string, std::string,
                             std::string, double, std::string>;

struct Measured {
  const CaseData* first = nullptr;
  double x = 0;
  std::vector<double> values;             // the metric of every group row, pass and repetition
  std::vector<double> iteration_spreads;  // ln(time_p95 / time_p5) / 3.29 of each row
};

// The SD of the logarithms' spread, robust (1.4826 x MAD); 0 for fewer than 3 values.
double log_spread(const std::vector<double>& values) {
  std::vector<double> logs;
  for (double v : values)
    if (v > 0 && std::isfinite(v)) logs.push_back(std::log(v));
  if (logs.size() < 3) return 0;
  const double m = median(logs);
  std::vector<double> deviations;
  for (double l : logs) deviations.push_back(std::abs(l - m));
  return 1.4826 * median(deviations);
}

// The rows a point's figure is read from: each group's where the case ran several groups at
// once (each a pair, a node's ranks), else the all-groups row.
std::vector<std::size_t> rows_of(const CaseView& v, std::size_t point) {
  const double groups = or_nan(v.get(schema::harness::kGroupCount));
  std::vector<std::size_t> rows;
  if (groups > 1)
    for (int g = 0; g < static_cast<int>(groups); ++g)
      if (const auto row = v.row(point, g); row != SIZE_MAX) rows.push_back(row);
  if (rows.empty())
    if (const auto row = v.row(point); row != SIZE_MAX) rows.push_back(row);
  return rows;
}

void refuse_untrusted(const RunData& run) {
  if (run.status != schema::run_status::kComplete)
    throw std::invalid_argument(
        fmt::format("{}: the run's status is {}: a reference is made from a run that completed",
                    run.path, run.status));
  for (const auto& c : run.cases)
    if (c.status != schema::case_status::kOk)
      throw std::invalid_argument(
          fmt::format("{}: case {} {} {}: a reference is made from a run whose every case was "
                      "right and finished",
                      run.path, c.group_name, c.name, c.status));
}

}  // namespace

std::vector<Rule> site_figures(const RunData& run, const SiteReferenceOptions& o) {
  refuse_untrusted(run);
  std::map<FigureKey, Measured> measured;
  std::vector<FigureKey> order;
  for (const auto& c : run.cases) {
    const CaseView v(c);
    const auto metric = v.primary_metric();
    if (metric.empty()) continue;
    for (std::size_t p = 0; p < v.points(); ++p) {
      const double x = v.size_at(p);
      if (std::isnan(x) && v.points() > 1) continue;  // a point rules cannot select
      const FigureKey key{c.family,
                          c.backend,
                          attribute_text(v.get(schema::harness::kBenchmark)),
                          attribute_text(v.get(schema::harness::kVariant)),
                          c.meaning.subject,
                          c.meaning.series,
                          x,
                          metric};
      auto [it, fresh] = measured.try_emplace(key);
      if (fresh) {
        order.push_back(key);
        it->second.first = &c;
        it->second.x = x;
      }
      for (const auto row : rows_of(v, p)) {
        it->second.values.push_back(v.number(metric, row));
        const double p5 = v.number("time_p5", row), p95 = v.number("time_p95", row);
        if (p5 > 0 && p95 >= p5) it->second.iteration_spreads.push_back(std::log(p95 / p5) / 3.29);
      }
    }
  }
  std::vector<Rule> out;
  for (const auto& key : order) {
    const auto& m = measured.at(key);
    const CaseView v(*m.first);
    const auto& metric = std::get<7>(key);
    const double typical = median(m.values);
    if (!(typical > 0)) continue;
    const double spread = std::max(log_spread(m.values), median(m.iteration_spreads));
    const double margin =
        std::max(o.min_margin, 1 - std::exp(-o.spreads * (std::isnan(spread) ? 0 : spread)));
    const bool higher = v.direction(metric) != schema::Direction::kLower;
    const auto benchmark = attribute_text(v.get(schema::harness::kBenchmark));
    const auto variant = attribute_text(v.get(schema::harness::kVariant));
    Rule r;
    r.name =
        fmt::format("{} {} {}", benchmark,
                    m.first->meaning.subject.empty() ? m.first->name : m.first->meaning.subject,
                    std::isnan(m.x) ? std::string() : v.point_label(v.find_point(m.x)));
    r.where = {{"family", {m.first->family}},
               {"backend", {m.first->backend}},
               {"benchmark", {benchmark}},
               {"variant", {variant}},
               {"subject", {m.first->meaning.subject}},
               {"series", {m.first->meaning.series}}};
    if (!std::isnan(m.x)) r.sizes = {m.x};
    r.metric = metric;
    r.unit = m.first->stats.at(metric).unit;
    r.better = higher ? "higher" : "lower";
    r.typical = typical;
    r.expect = higher ? typical * (1 - margin) : typical / (1 - margin);
    r.source = fmt::format(
        "measured in {} ({}, revision {}): typical the median of {} value{}; floor {:.2f}x "
        "typical ({} x its spread of {:.0f}%, and at least {:.0f}% worse)",
        run.path, run.start_time, run.git_revision, m.values.size(),
        m.values.size() == 1 ? "" : "s", r.expect / typical, o.spreads,
        100 * (std::isnan(spread) ? 0 : spread), 100 * o.min_margin);
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> site_match(const RunData& run) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const char* column : {"cpu_model", "gpu_model"}) {
    const auto values = run.environment.find(column);
    if (values == run.environment.end() || values->second.empty()) continue;
    const auto& first = values->second.front();
    if (std::all_of(values->second.begin(), values->second.end(),
                    [&](const std::string& v) { return v == first; }))
      out.emplace_back(column, first);
  }
  return out;
}

}  // namespace preflight::report
