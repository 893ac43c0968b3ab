#include "analysis/scaling.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "analysis/case_view.hpp"
#include "preflight/common/sizes.hpp"
#include "preflight/common/stats.hpp"
#include "preflight/schema/layout.hpp"

namespace preflight::report {
namespace {

// Size-banded cases by band; the others by each x, each its own series.
std::string band_label(const CaseView& v, std::size_t point) {
  const double x = v.size_at(point);
  if (std::isnan(x)) return {};
  if (v.c.meaning.bands == schema::Bands::kSizeBands) return name_of(band_of(x));
  if (!(x > 0)) return {};
  const auto noun = v.x_noun();
  const auto value = v.x_unit() == "B" ? format_bytes(static_cast<std::uint64_t>(x))
                                       : fmt::format("{:g} {}", x, v.x_unit());
  return noun.empty() ? value : value + " " + noun;
}

struct Declared {
  std::string metric, unit;
  schema::Scaling scaling = schema::Scaling::kNone;
  schema::Stage stage = schema::Stage::kStep;
};

struct SeriesKey {
  std::string family, subject, topology, band;
  bool operator<(const SeriesKey& o) const {
    return std::tie(family, subject, topology, band) <
           std::tie(o.family, o.subject, o.topology, o.band);
  }
};

void add_case(const CaseView& v,
              std::map<SeriesKey, std::map<std::pair<double, double>, ScalingPoint>>& scales,
              std::map<SeriesKey, Declared>& declared) {
  const auto metric = v.primary_metric();
  if (metric.empty() || v.c.meaning.scaling == schema::Scaling::kNone) return;
  std::map<std::string, std::vector<double>> by_band;
  for (std::size_t point = 0; point < v.points(); ++point) {
    const double value = v.metric_at(metric, point);
    if (!(value > 0)) continue;  // e.g. the bus bandwidth of one rank: no transfer at all
    by_band[band_label(v, point)].push_back(value);
  }
  const auto nodes = static_cast<double>(v.c.meaning.span_nodes);
  const double ranks = v.group_ranks(0);
  for (const auto& [band, values] : by_band) {
    SeriesKey key{v.c.family, v.subject(), v.c.meaning.series, band};
    auto& scale = scales[key][{nodes, ranks}];
    scale.nodes = nodes;
    scale.ranks = ranks;
    scale.cases.push_back(v.c.group_name);
    scale.value = median(values);  // a repeated scale (repetitions) keeps the last; see below
    declared[key] = {metric, v.c.stats.at(metric).unit, v.c.meaning.scaling, v.c.meaning.stage};
  }
}

}  // namespace

std::string band_text(const std::string& band) {
  if (band.empty()) return band;
  return band == "small" || band == "medium" || band == "large" ? band + " sizes" : band;
}

Band band_of(double size_bytes) {
  if (size_bytes < kSmallBelow) return Band::kSmall;
  if (size_bytes >= kLargeFrom) return Band::kLarge;
  return Band::kMedium;
}

const char* name_of(Band b) {
  switch (b) {
    case Band::kSmall:
      return "small";
    case Band::kMedium:
      return "medium";
    default:
      return "large";
  }
}

std::string describe(Band b) {
  switch (b) {
    case Band::kSmall:
      return "small (< 64 KiB, latency-bound)";
    case Band::kMedium:
      return "medium (64 KiB to 16 MiB)";
    default:
      return "large (>= 16 MiB, bandwidth-bound)";
  }
}

namespace {

// Orders the steps, sets each one's efficiency and adds the series (two steps at least).
void add_series(ScalingSeries s, std::vector<ScalingPoint> points,
                std::vector<ScalingSeries>& out) {
  if (points.size() < 2) return;  // one scale is no scaling
  s.points = std::move(points);
  auto reference = s.points.begin();
  if (s.aggregate) {  // by ranks, then nodes; against the fewest ranks
    std::sort(s.points.begin(), s.points.end(), [](const ScalingPoint& a, const ScalingPoint& b) {
      return std::tie(a.ranks, a.nodes) < std::tie(b.ranks, b.nodes);
    });
    reference = s.points.begin();
  } else {  // the first multi-node step, or the smallest step when all share one node
    reference = std::find_if(s.points.begin(), s.points.end(),
                             [](const ScalingPoint& p) { return p.nodes >= 2; });
    if (reference == s.points.end() || s.points.back().nodes == reference->nodes)
      reference = s.points.begin();
  }
  s.reference_nodes = reference->nodes;
  s.reference_ranks = reference->ranks;
  const double ref = s.aggregate ? reference->value / reference->ranks : reference->value;
  for (auto& p : s.points)
    p.efficiency = ref > 0 ? (s.aggregate ? p.value / p.ranks : p.value) / ref : kNaN;
  out.push_back(std::move(s));
}

}  // namespace

std::vector<ScalingSeries> scaling_series(const RunData& run, const std::string& label) {
  std::map<SeriesKey, std::map<std::pair<double, double>, ScalingPoint>> scales;
  std::map<SeriesKey, Declared> declared;
  for (const auto& c : run.cases) {
    const CaseView v(c);
    if (v.c.status != schema::case_status::kOk || v.repetition() > 0)
      continue;  // the first repetition stands for all
    add_case(v, scales, declared);
  }
  std::vector<ScalingSeries> out;
  for (auto& [key, by_scale] : scales) {
    ScalingSeries s;
    s.run_label = label;
    s.family = key.family;
    s.subject = key.subject;
    s.topology = key.topology;
    s.band = key.band;
    const auto& d = declared[key];
    s.metric = d.metric;
    s.unit = d.unit;
    s.stage = d.stage;
    std::vector<ScalingPoint> points;
    for (auto& [scale, point] : by_scale) points.push_back(point);
    s.aggregate = d.scaling == schema::Scaling::kAggregate;
    if (!s.aggregate) {
      add_series(s, points, out);
      continue;
    }
    // Aggregates scale two ways: more ranks on every node, and more nodes with every rank; a
    // curve each, which share the whole job's step.
    double most_nodes = 0, most_per_node = 0;
    for (const auto& p : points) {
      most_nodes = std::max(most_nodes, p.nodes);
      most_per_node = std::max(most_per_node, p.ranks / p.nodes);
    }
    std::vector<ScalingPoint> per_node, over_nodes;
    for (const auto& p : points) {
      if (p.nodes == most_nodes) per_node.push_back(p);
      if (p.ranks / p.nodes == most_per_node) over_nodes.push_back(p);
    }
    s.topology =
        fmt::format("ranks per node, on {:g} node{}", most_nodes, most_nodes == 1 ? "" : "s");
    add_series(s, per_node, out);
    s.topology =
        fmt::format("nodes, {:g} rank{} per node", most_per_node, most_per_node == 1 ? "" : "s");
    add_series(s, over_nodes, out);
  }
  return out;
}

}  // namespace preflight::report
