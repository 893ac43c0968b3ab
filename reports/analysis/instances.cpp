#include "analysis/instances.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "analysis/case_view.hpp"
#include "analysis/mann_whitney.hpp"
#include "analysis/yaml_input.hpp"

namespace preflight::report {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

[[noreturn]] void bad(const std::string& path, const YAML::Node& node, const std::string& what) {
  fail_at<CatalogueError>(path, node, what);
}

const CaseData* find_case(const RunData& run, const std::string& key) {
  for (const auto& c : run.cases)
    if (CaseView(c).identity() == key && c.status == "ok") return &c;
  return nullptr;
}

// Cost of one operation in money: each iteration's time times the price. Lower is better, and
// comparing it is comparing throughput per dollar.
// Times of a time-bounded read are scaled to `reference_work` (see CaseView).
std::vector<double> costs(const CaseData& c, std::size_t point, double price,
                          double reference_work) {
  auto out = CaseView(c).comparable_times(point, reference_work);
  for (double& t : out) t *= price;
  return out;
}

}  // namespace

namespace {
Catalogue parse_catalogue(const std::string& path, const YAML::Node& root);
}  // namespace

Catalogue read_catalogue(const std::string& path) {
  return load_yaml<CatalogueError>(path, "price catalogue", "configs/instances.yaml",
                                   parse_catalogue);
}

namespace {

Catalogue parse_catalogue(const std::string& path, const YAML::Node& root) {
  if (!root.IsMap() || !root["instances"] || !root["instances"].IsSequence())
    bad(path, root, "expected a mapping with a list 'instances:' (see configs/instances.yaml)");
  Catalogue cat;
  cat.path = path;
  if (root["currency"]) cat.currency = root["currency"].as<std::string>();
  for (const auto& node : root["instances"]) {
    if (!node.IsMap() || !node["name"] || !node["price_per_hour"])
      bad(path, node, "each instance needs 'name' and 'price_per_hour'");
    for (const auto& kv : node) {
      const auto key = kv.first.as<std::string>();
      if (key != "name" && key != "price_per_hour" && key != "note")
        bad(path, kv.first,
            fmt::format("unknown key '{}' in an instance; the keys are name, price_per_hour, note",
                        key));
    }
    Instance i;
    i.name = node["name"].as<std::string>();
    const auto text = node["price_per_hour"].as<std::string>();
    char* end = nullptr;
    i.price_per_hour = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !(i.price_per_hour > 0) || !std::isfinite(i.price_per_hour))
      bad(path, node["price_per_hour"],
          fmt::format("price_per_hour of '{}' must be a positive number, found '{}'", i.name,
                      text));
    if (node["note"]) i.note = node["note"].as<std::string>();
    if (!cat.instances.emplace(i.name, i).second)
      bad(path, node["name"], fmt::format("instance '{}' is listed twice", i.name));
  }
  return cat;
}

}  // namespace

InstanceComparison compare_instances(const std::vector<const RunData*>& runs,
                                     const std::vector<std::string>& labels,
                                     const Catalogue& catalogue, double alpha) {
  InstanceComparison out;
  out.currency = catalogue.currency;
  out.labels = labels;
  for (const auto& label : labels) {
    const auto it = catalogue.instances.find(label);
    if (it == catalogue.instances.end()) {
      std::string known;
      for (const auto& [name, i] : catalogue.instances) known += (known.empty() ? "" : ", ") + name;
      throw CatalogueError(fmt::format(
          "{}: no price for instance '{}' (label it with --label, or add it); listed: {}",
          catalogue.path, label, known));
    }
    out.prices.push_back(it->second.price_per_hour);
  }
  out.wins.assign(runs.size(), 0);
  out.clear_wins.assign(runs.size(), 0);
  for (std::size_t i = 1; i < runs.size(); ++i)
    if (runs[i]->world_size != runs[0]->world_size || runs[i]->node_count != runs[0]->node_count)
      out.warnings.push_back(fmt::format(
          "{} ran {} ranks on {} nodes, {} ran {} on {}: per-dollar figures compare unlike jobs",
          labels[i], runs[i]->world_size, runs[i]->node_count, labels[0], runs[0]->world_size,
          runs[0]->node_count));
  std::set<std::string> seen;
  for (const auto& c : runs.front()->cases) {
    const auto key = CaseView(c).identity();
    if (!seen.insert(key).second) continue;
    // Only what every instance ran, and ran right, is compared.
    std::vector<const CaseData*> found;
    for (const auto* run : runs) found.push_back(find_case(*run, key));
    if (std::find(found.begin(), found.end(), nullptr) != found.end()) continue;
    const CaseView first(c);
    for (const auto& metric : first.metrics()) {
      if (first.direction(metric) != schema::Direction::kHigher) continue;
      for (std::size_t p = 0; p < first.points(); ++p) {
        // The same size in every run, matched by its value.
        std::vector<std::size_t> point;
        for (const auto* f : found) point.push_back(CaseView(*f).find_point(first.point_key(p)));
        if (std::find(point.begin(), point.end(), SIZE_MAX) != point.end()) continue;
        InstanceRow row;
        row.subject = c.name + ", " + first.point_label(p);
        row.metric = metric;
        row.unit = c.stats.at(metric).unit;
        double best = -1, second = -1;
        int runner_up = -1;
        for (std::size_t i = 0; i < runs.size(); ++i) {
          InstanceCell cell{kNaN, kNaN, 1};
          cell.value = CaseView(*found[i]).metric_at(metric, point[i]);
          cell.per_dollar = cell.value / out.prices[i];
          if (cell.per_dollar > best) {
            second = best, runner_up = row.winner;
            best = cell.per_dollar, row.winner = static_cast<int>(i);
          } else if (cell.per_dollar > second) {
            second = cell.per_dollar, runner_up = static_cast<int>(i);
          }
          row.cells.push_back(cell);
        }
        if (row.winner < 0 || !(best > 0)) continue;  // e.g. bus bandwidth of one rank: none
        const auto w = static_cast<std::size_t>(row.winner);
        if (runner_up >= 0) {
          const auto r = static_cast<std::size_t>(runner_up);
          const double reference = CaseView(*found[w]).median_work(point[w]);
          const auto a = costs(*found[w], point[w], out.prices[w], reference),
                     b = costs(*found[r], point[r], out.prices[r], reference);
          if (!a.empty() && !b.empty()) {
            row.cells[w].p_value = mann_whitney(a, b).p_value;
            row.clear = row.cells[w].p_value < alpha;
          }
        }
        ++out.wins[w];
        out.clear_wins[w] += row.clear;
        out.rows.push_back(std::move(row));
      }
    }
  }
  return out;
}

}  // namespace preflight::report
