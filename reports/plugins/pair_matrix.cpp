// The pair-matrix plug-in (fabric): each pair test's node x node matrix from the node-pair
// sweep, shown as a heat map, and the node and link faults isolated from it (pair_isolation),
// each a finding with the hosts to act on, ranked above the rest of the bottleneck chain.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "analysis/reference.hpp"
#include "analysis/report.hpp"
#include "plugins/pair_isolation.hpp"
#include "plugins/plugins.hpp"
#include "preflight/schema/fabric.hpp"
#include "preflight/schema/family_names.hpp"
#include "preflight/schema/layout.hpp"

namespace preflight::report::plugins {
namespace {

// "0:3 1:2" -> {(0, 3), (1, 2)}
std::vector<std::pair<int, int>> parse_pairs(const std::string& text) {
  std::vector<std::pair<int, int>> out;
  std::istringstream in(text);
  std::string item;
  while (in >> item) {
    const auto colon = item.find(':');
    if (colon == std::string::npos) continue;
    try {
      out.emplace_back(std::stoi(item.substr(0, colon)), std::stoi(item.substr(colon + 1)));
    } catch (const std::exception&) {
      return {};  // not a pair list: the case is not read
    }
  }
  return out;
}

std::string host_of(const RunData& run, int rank) {
  const auto names = run.environment.find(std::string(schema::env::kNodeName.name));
  if (names != run.environment.end() && rank >= 0 &&
      static_cast<std::size_t>(rank) < names->second.size())
    return names->second[static_cast<std::size_t>(rank)];
  return fmt::format("rank {}", rank);
}

// One test's matrix: bandwidth tests at their largest size, latency at its smallest.
struct TestMatrix {
  PairMatrix m;
  std::string size;
  std::map<int, int> node_of_rank;
};

void set_pass(std::vector<double>& values, std::size_t pass, double value) {
  if (values.size() <= pass) values.resize(pass + 1, std::nan(""));
  values[pass] = value;
}

// The figure at the row's best iterations (its time_p5): a time scales with it, a rate of fixed
// work inversely; NaN where the column declares neither.
double at_best_iterations(const CaseView& v, const Column& column, std::size_t row, double figure) {
  const double p5 = v.number("time_p5", row), median = v.number("time_median", row);
  if (!(p5 > 0) || !(median > 0)) return std::nan("");
  switch (column.per_iteration) {
    case schema::PerIteration::kTime:
      return figure * p5 / median;
    case schema::PerIteration::kInverseTime:
      return figure * median / p5;
    default:
      return std::nan("");
  }
}

void add_case(const CaseData& c, TestMatrix& t, const Reference* reference) {
  const CaseView v(c);
  const auto metric = v.primary_metric();
  const auto pairs = parse_pairs(attribute_text(v.get(schema::fabric::kPairs)));
  const double pass = or_nan(v.get(schema::fabric::kSweepPass));
  if (metric.empty() || v.points() == 0 || std::isnan(pass) || pass < 0) return;
  t.m.higher_is_better = v.direction(metric) == schema::Direction::kHigher;
  t.m.unit = c.stats.count(metric) ? c.stats.at(metric).unit : "";
  const std::size_t point = t.m.higher_is_better ? v.points() - 1 : 0;
  t.size = v.point_label(point);
  const auto node = [&](int rank) { return t.node_of_rank.at(rank); };
  for (std::size_t g = 0; g < pairs.size(); ++g) {
    // A case of one group has no per-group rows: its all-groups row is the pair's.
    std::size_t row = v.row(point, static_cast<int>(g));
    if (row == SIZE_MAX && pairs.size() == 1) row = v.row(point, -1);
    if (row == SIZE_MAX) continue;
    const int a = node(pairs[g].first), b = node(pairs[g].second);
    const std::pair key{std::min(a, b), std::max(a, b)};
    const auto p = static_cast<std::size_t>(pass);
    const double figure = v.number(metric, row);
    set_pass(t.m.figures[key], p, figure);
    set_pass(t.m.best_iterations[key], p, at_best_iterations(v, c.stats.at(metric), row, figure));
  }
  if (reference != nullptr && std::isnan(t.m.floor))
    if (const auto* f = figure_for(*reference, v, point, metric)) {
      t.m.floor = f->expect;
      t.m.typical = f->typical;
      t.m.reference = reference->name;
    }
}

// The heat map as text, one line per node: its figure with each partner, first pass.
std::vector<std::string> matrix_lines(const std::string& test, const TestMatrix& t) {
  std::vector<std::string> out{
      fmt::format("{} matrix at {} ({}, first pass):", test, t.size, t.m.unit)};
  const auto n = t.m.nodes.size();
  for (std::size_t a = 0; a < n; ++a) {
    std::vector<std::string> cells;
    for (std::size_t b = 0; b < n; ++b) {
      const auto it =
          t.m.figures.find({static_cast<int>(std::min(a, b)), static_cast<int>(std::max(a, b))});
      cells.push_back(a == b || it == t.m.figures.end() || it->second.empty()
                          ? "-"
                          : fmt::format("{:.3g}", it->second.front()));
    }
    out.push_back(fmt::format("  {}: {}", t.m.nodes[a], fmt::join(cells, "  ")));
  }
  return out;
}

Heatmap heatmap_of(const std::string& test, const TestMatrix& t) {
  Heatmap h{fmt::format("{} at {}, first pass", test, t.size),
            t.m.unit,
            t.m.higher_is_better,
            t.m.nodes,
            {}};
  const auto n = t.m.nodes.size();
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = 0; b < n; ++b) {
      const auto it =
          t.m.figures.find({static_cast<int>(std::min(a, b)), static_cast<int>(std::max(a, b))});
      h.cells.push_back(a == b || it == t.m.figures.end() || it->second.empty()
                            ? std::nan("")
                            : it->second.front());
    }
  return h;
}

std::string action_for(SuspectKind kind, const std::vector<std::string>& hosts) {
  switch (kind) {
    case SuspectKind::kNode:
      return fmt::format(
          "Drain {} and check its NIC, driver and port (link speed, error counters: ethtool -S, "
          "ibstat; dmesg), then rerun the fabric sweep to confirm the fix.",
          hosts.front());
    case SuspectKind::kLink:
      return fmt::format(
          "Check the cable, transceiver and switch ports on the path between {} and {} (both "
          "are fine with other partners: keep them in service), then rerun the fabric sweep.",
          hosts.front(), hosts.back());
    default:
      return "Check what every node shares, not one node: the switches (port error counters, "
             "firmware), the subnet or fabric manager, and settings alike on every node (MTU, "
             "NIC firmware and driver, NCCL or MPI transport settings); draining nodes will not "
             "help.";
  }
}

std::string title_for(SuspectKind kind, const std::vector<std::string>& hosts) {
  switch (kind) {
    case SuspectKind::kNode:
      return fmt::format("node {} is slow with every partner (fabric pair sweep)", hosts.front());
    case SuspectKind::kLink:
      return fmt::format("link {} - {} is slow, both nodes fine with others (fabric pair sweep)",
                         hosts.front(), hosts.back());
    default:
      return fmt::format(
          "the fabric as a whole is below its reference: every pair of the {} "
          "nodes is slow (fabric pair sweep)",
          hosts.size());
  }
}

}  // namespace

void pair_matrix_findings(const RunReport& r, std::vector<Finding>& out) {
  std::map<std::string, TestMatrix> tests;
  std::set<int> ranks;  // of every pair, so that the matrices list nodes in rank order
  for (const auto& c : r.run->cases)
    if (c.family == schema::kFabricFamily && c.status == schema::case_status::kOk)
      for (const auto& [a, b] :
           parse_pairs(attribute_text(CaseView(c).get(schema::fabric::kPairs)))) {
        ranks.insert(a);
        ranks.insert(b);
      }
  for (const auto& c : r.run->cases)
    if (c.family == schema::kFabricFamily && c.status == schema::case_status::kOk) {
      auto& t = tests[attribute_text(CaseView(c).get(schema::fabric::kPairTest))];
      if (t.m.nodes.empty())
        for (int rank : ranks) {
          t.node_of_rank[rank] = static_cast<int>(t.m.nodes.size());
          t.m.nodes.push_back(host_of(*r.run, rank));
        }
      add_case(c, t, r.reference.reference);
    }
  // One finding per suspect, with the evidence of every test that names it.
  std::map<std::pair<SuspectKind, std::vector<std::string>>, Finding> by_suspect;
  for (const auto& [test, t] : tests) {
    const Isolation iso = isolate(t.m);
    for (const auto& s : iso.suspects) {
      std::vector<std::string> hosts;
      for (int member : s.members) hosts.push_back(t.m.nodes[static_cast<std::size_t>(member)]);
      auto& f = by_suspect[{s.kind, hosts}];
      if (f.title.empty()) {
        f.stage = Stage::kCommunication;
        f.run_label = r.label;
        f.title = title_for(s.kind, hosts);
        f.next_check = action_for(s.kind, hosts);
        f.weight = 1;
        f.suspects.push_back({name_of(s.kind), hosts, f.next_check});
      }
      for (const auto& line : s.evidence) f.evidence.push_back(fmt::format("{}: {}", test, line));
      for (const auto& line : iso.cleared) f.evidence.push_back(fmt::format("{}: {}", test, line));
      for (const auto& line : matrix_lines(test, t)) f.evidence.push_back(line);
      f.heatmaps.push_back(heatmap_of(test, t));
    }
  }
  for (auto& [key, f] : by_suspect) out.push_back(std::move(f));
}

}  // namespace preflight::report::plugins
