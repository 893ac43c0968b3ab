#include "analysis/scaling.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "analysis/case_view.hpp"
#include "analysis/median.hpp"
#include "harness/sizes.hpp"

namespace preflight::report {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Steps and bandwidth factor of a collective of n ranks for one algorithm; steps 0: no such
// algorithm. Sizes as nccl-tests counts them (whole buffer for allgather, reducescatter, alltoall).
struct Cost {
  double steps = 0, factor = 0;
};

Cost ring_cost(const std::string& collective, double n) {
  if (collective == "allreduce") return {2 * (n - 1), 2 * (n - 1) / n};
  if (collective == "allgather" || collective == "reducescatter" || collective == "alltoall")
    return {n - 1, (n - 1) / n};
  if (collective == "broadcast" || collective == "reduce") return {n - 1, 1};
  if (collective == "sendrecv") return {1, 1};
  return {};
}

Cost tree_cost(const std::string& collective, double n) {
  const double depth = std::ceil(std::log2(std::max(n, 2.0)));
  if (collective == "allreduce") return {2 * depth, 2};
  if (collective == "broadcast" || collective == "reduce") return {depth, 1};
  return {};
}

const char* model_text(const std::string& collective) {
  if (collective == "allreduce")
    return "ring: 2(n-1)·α + 2(n-1)/n·S·β; tree: 2⌈log2 n⌉·α + 2·S·β (pipelined, as NCCL's)";
  if (collective == "allgather" || collective == "reducescatter")
    return "ring: (n-1)·α + (n-1)/n·S·β (S the whole buffer); no tree algorithm";
  if (collective == "alltoall")
    return "pairwise: (n-1)·α + (n-1)/n·S·β (S the whole buffer); no tree algorithm";
  if (collective == "broadcast" || collective == "reduce")
    return "pipelined chain: (n-1)·α + S·β; tree: ⌈log2 n⌉·α + S·β";
  return "α + S·β";
}

// The node count a case's group spans, from its topology (comm) or its own parameters.
double nodes_of(const CaseView& v, const RunData& run) {
  const double ladder = v.number_param("ladder_nodes");
  if (ladder > 0) return ladder;
  const double nodes = v.number_param("nodes");
  if (nodes > 0) return nodes;
  const auto topology = v.param("topology");
  if (topology == "intra") return 1;
  if (topology == "inter" || topology == "rail") return v.group_ranks(0);
  return static_cast<double>(run.node_count);
}

// Collectives are grouped by size band; reads (storage) by block size, each its own series.
std::string band_label(const CaseView& v, std::size_t point) {
  const double size = v.size_at(point);
  if (!std::isnan(size)) return name_of(band_of(size));
  const double block = v.number("block_bytes", v.row(point));
  if (!(block > 0)) return {};
  return format_bytes(static_cast<std::uint64_t>(block)) + " blocks";
}

struct SeriesKey {
  std::string family, subject, topology, band;
  bool operator<(const SeriesKey& o) const {
    return std::tie(family, subject, topology, band) <
           std::tie(o.family, o.subject, o.topology, o.band);
  }
};

// A case's subject without its topology or scale: what stays the same along a series.
std::string scaling_topology(const CaseView& v) {
  const auto topology = v.param("topology");
  if (!topology.empty()) return topology;
  return v.number_param("ladder_nodes") > 0 ? "ladder" : "ranks";
}

void add_case(const CaseView& v, const RunData& run,
              std::map<SeriesKey, std::map<std::pair<double, double>, ScalingPoint>>& steps,
              std::map<SeriesKey, std::pair<std::string, std::string>>& metric_of) {
  const auto metric = v.primary_metric();
  if (metric.empty()) return;
  std::map<std::string, std::vector<double>> by_band;
  for (std::size_t point = 0; point < v.points(); ++point) {
    const double value = v.metric_at(metric, point);
    if (!(value > 0)) continue;  // e.g. the bus bandwidth of one rank: no transfer at all
    by_band[band_label(v, point)].push_back(value);
  }
  const double nodes = nodes_of(v, run);
  const double ranks = v.group_ranks(0);
  for (const auto& [band, values] : by_band) {
    SeriesKey key{v.c.family, v.subject(), scaling_topology(v), band};
    auto& step = steps[key][{nodes, ranks}];
    step.nodes = nodes;
    step.ranks = ranks;
    step.cases.push_back(v.c.group_name);
    step.value = median(values);  // a repeated step (repetitions) keeps the last; see below
    metric_of[key] = {metric, v.c.stats.at(metric).unit};
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
  std::map<SeriesKey, std::map<std::pair<double, double>, ScalingPoint>> steps;
  std::map<SeriesKey, std::pair<std::string, std::string>> metric_of;
  for (const auto& c : run.cases) {
    const CaseView v(c);
    if (v.c.status != "ok" || v.repetition() > 0) continue;  // the first repetition stands for all
    add_case(v, run, steps, metric_of);
  }
  std::vector<ScalingSeries> out;
  for (auto& [key, by_scale] : steps) {
    ScalingSeries s;
    s.run_label = label;
    s.family = key.family;
    s.subject = key.subject;
    s.topology = key.topology;
    s.band = key.band;
    std::tie(s.metric, s.unit) = metric_of[key];
    std::vector<ScalingPoint> points;
    for (auto& [scale, point] : by_scale) points.push_back(point);
    s.aggregate = key.family == "storage" || key.family == "dataloader";
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

namespace {

struct Sample {
  double ranks, size, seconds;
};

// Weighted least squares of seconds ~ steps(n)·alpha + factor(n)·S·beta with weights 1/seconds²,
// so that microsecond and second-long sizes count alike; both parameters kept non-negative.
std::pair<double, double> fit(const std::vector<Sample>& samples, const std::string& collective) {
  double a11 = 0, a12 = 0, a22 = 0, b1 = 0, b2 = 0;
  for (const auto& s : samples) {
    const auto cost = ring_cost(collective, s.ranks);
    const double w = 1 / (s.seconds * s.seconds);
    const double x1 = cost.steps, x2 = cost.factor * s.size;
    a11 += w * x1 * x1;
    a12 += w * x1 * x2;
    a22 += w * x2 * x2;
    b1 += w * x1 * s.seconds;
    b2 += w * x2 * s.seconds;
  }
  const double det = a11 * a22 - a12 * a12;
  double alpha = det != 0 ? (b1 * a22 - b2 * a12) / det : kNaN;
  double beta = det != 0 ? (a11 * b2 - a12 * b1) / det : kNaN;
  if (!(alpha >= 0)) alpha = 0, beta = a22 > 0 ? b2 / a22 : kNaN;
  if (!(beta >= 0)) beta = 0, alpha = a11 > 0 ? b1 / a11 : kNaN;
  return {alpha, beta};
}

double predict(const Cost& cost, double size, double alpha, double beta) {
  if (cost.steps == 0) return kNaN;
  return cost.steps * alpha + cost.factor * size * beta;
}

}  // namespace

std::vector<AlphaBetaFit> alpha_beta_fits(const RunData& run, const std::string& label) {
  std::map<std::pair<std::string, std::string>, std::vector<Sample>> data;
  std::map<std::pair<std::string, std::string>, std::string> collective_of;
  std::map<std::pair<std::string, std::string>, double> nodes_max, ranks_per_node;
  for (const auto& c : run.cases) {
    const CaseView v(c);
    const auto collective = v.param("collective");
    if (c.family != "comm" || c.status != "ok" || ring_cost(collective, 2).steps == 0) continue;
    const std::pair key{v.subject(), scaling_topology(v)};
    const double ranks = v.group_ranks(0), nodes = nodes_of(v, run);
    if (!(ranks >= 2)) continue;
    for (std::size_t point = 0; point < v.points(); ++point) {
      const double size = v.size_at(point), seconds = v.group_time(point);
      if (size > 0 && seconds > 0) data[key].push_back({ranks, size, seconds});
    }
    collective_of[key] = collective;
    if (nodes >= nodes_max[key]) {
      nodes_max[key] = nodes;
      ranks_per_node[key] = ranks / nodes;
    }
  }
  std::vector<AlphaBetaFit> out;
  for (const auto& [key, samples] : data) {
    if (samples.size() < 3) continue;
    const auto& collective = collective_of[key];
    const auto [alpha, beta] = fit(samples, collective);
    if (std::isnan(alpha) || std::isnan(beta)) continue;
    AlphaBetaFit f;
    f.run_label = label;
    f.subject = key.first;
    f.collective = collective;
    f.topology = key.second;
    f.alpha_s = alpha;
    f.beta_s_per_byte = beta;
    f.ranks_per_node = ranks_per_node[key];
    f.points = samples.size();
    std::vector<double> errors;
    double smallest = samples.front().size, largest = smallest;
    for (const auto& s : samples) {
      errors.push_back(
          std::abs(predict(ring_cost(collective, s.ranks), s.size, alpha, beta) - s.seconds) /
          s.seconds);
      smallest = std::min(smallest, s.size);
      largest = std::max(largest, s.size);
    }
    f.median_rel_error = median(errors);
    f.model = model_text(collective);
    if (key.second != "intra")  // within one node, more nodes are not a prediction of it
      for (double times : {2.0, 4.0, 16.0, 64.0}) {
        const double nodes = nodes_max[key] * times, ranks = nodes * f.ranks_per_node;
        for (double size : {smallest, largest})
          f.predictions.push_back({nodes, ranks, size,
                                   predict(ring_cost(collective, ranks), size, alpha, beta),
                                   predict(tree_cost(collective, ranks), size, alpha, beta)});
      }
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace preflight::report
