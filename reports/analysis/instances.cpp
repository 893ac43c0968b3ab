#include "analysis/instances.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "analysis/case_view.hpp"
#include "analysis/replicates.hpp"
#include "analysis/yaml_input.hpp"
#include "preflight/common/stats.hpp"
#include "preflight/schema/layout.hpp"

namespace preflight::report {
namespace {

[[noreturn]] void bad_catalogue(const std::string& path, const YAML::Node& node,
                                const std::string& what) {
  fail_at<CatalogueError>(path, node, what);
}

const CaseData* find_case(const RunData& run, const std::string& key) {
  for (const auto& c : run.cases)
    if (CaseView(c).replicate_identity() == key && c.status == schema::case_status::kOk) return &c;
  return nullptr;
}

// Each repetition's value of `metric` at the point of that key, in a run: the instance's
// replicates, so that a noisy instance does not win by one lucky run.
std::vector<double> repetition_values(const RunData& run, const std::string& key,
                                      const std::string& metric, double point_key) {
  std::vector<double> out;
  for (const auto& c : run.cases) {
    const CaseView v(c);
    if (c.status != schema::case_status::kOk || v.replicate_identity() != key) continue;
    const std::size_t p = v.find_point(point_key);
    if (p != SIZE_MAX) out.push_back(v.metric_at(metric, p));
  }
  return out;
}

double mean_of(const std::vector<double>& values) {
  double sum = 0;
  std::size_t n = 0;
  for (double v : values)
    if (std::isfinite(v)) sum += v, ++n;
  return n > 0 ? sum / static_cast<double>(n) : kNaN;
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
    bad_catalogue(path, root,
                  "expected a mapping with a list 'instances:' (see configs/instances.yaml)");
  Catalogue cat;
  cat.path = path;
  if (root["currency"]) cat.currency = root["currency"].as<std::string>();
  for (const auto& node : root["instances"]) {
    if (!node.IsMap() || !node["name"] || !node["price_per_hour"])
      bad_catalogue(path, node, "each instance needs 'name' and 'price_per_hour'");
    for (const auto& kv : node) {
      const auto key = kv.first.as<std::string>();
      if (key != "name" && key != "price_per_hour" && key != "note")
        bad_catalogue(
            path, kv.first,
            fmt::format("unknown key '{}' in an instance; the keys are name, price_per_hour, note",
                        key));
    }
    Instance i;
    i.name = node["name"].as<std::string>();
    const auto text = node["price_per_hour"].as<std::string>();
    char* end = nullptr;
    i.price_per_hour = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !(i.price_per_hour > 0) || !std::isfinite(i.price_per_hour))
      bad_catalogue(path, node["price_per_hour"],
                    fmt::format("price_per_hour of '{}' must be a positive number, found '{}'",
                                i.name, text));
    if (node["note"]) i.note = node["note"].as<std::string>();
    if (!cat.instances.emplace(i.name, i).second)
      bad_catalogue(path, node["name"], fmt::format("instance '{}' is listed twice", i.name));
  }
  return cat;
}

}  // namespace

InstanceComparison compare_instances(const std::vector<const RunData*>& runs,
                                     const std::vector<std::string>& labels,
                                     const Catalogue& catalogue, double alpha, double min_change) {
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
  std::vector<ReplicateTest> tests;
  std::vector<std::size_t> tested;  // rows with a runner-up
  for (const auto& c : runs.front()->cases) {
    const auto key = CaseView(c).replicate_identity();
    if (c.status != schema::case_status::kOk || !seen.insert(key).second) continue;
    // Only what every instance ran, and ran right, is compared.
    std::vector<const CaseData*> found;
    for (const auto* run : runs) found.push_back(find_case(*run, key));
    if (std::find(found.begin(), found.end(), nullptr) != found.end()) continue;
    const CaseView first(c);
    for (const auto& metric : first.metrics()) {
      if (first.direction(metric) != schema::Direction::kHigher) continue;
      for (std::size_t p = 0; p < first.points(); ++p) {
        // The same size in every run, matched by its value.
        std::vector<std::vector<double>> per_dollar(runs.size());
        for (std::size_t i = 0; i < runs.size(); ++i) {
          per_dollar[i] = repetition_values(*runs[i], key, metric, first.point_key(p));
          for (double& v : per_dollar[i]) v /= out.prices[i];
        }
        if (std::any_of(per_dollar.begin(), per_dollar.end(),
                        [](const auto& v) { return v.empty(); }))
          continue;
        InstanceRow row;
        row.subject = c.name + ", " + first.point_label(p);
        row.metric = metric;
        row.unit = c.stats.at(metric).unit;
        double best = -1, second = -1;
        int runner_up = -1;
        for (std::size_t i = 0; i < runs.size(); ++i) {
          InstanceCell cell{kNaN, kNaN, 1};
          cell.per_dollar = mean_of(per_dollar[i]);
          cell.value = cell.per_dollar * out.prices[i];
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
        ++out.wins[w];
        if (runner_up >= 0) {
          const auto r = static_cast<std::size_t>(runner_up);
          tests.push_back(compare_replicates({per_dollar[r]}, {per_dollar[w]}, alpha));
          row.cells[w].p_value = tests.back().p_value;
          tested.push_back(out.rows.size());
        }
        out.rows.push_back(std::move(row));
      }
    }
  }
  // A clear win: the winner's repetitions beat the runner-up's by at least min_change beyond
  // the noise, with the false discovery rate over all rows held at alpha.
  std::vector<double> p_values;
  for (const auto& t : tests) p_values.push_back(t.testable ? t.p_value : kNaN);
  const auto discoveries = benjamini_hochberg(p_values, alpha);
  for (std::size_t i = 0; i < tests.size(); ++i) {
    auto& row = out.rows[tested[i]];
    row.clear = judge_shift(tests[i], discoveries[i], min_change) == Shift::kHigher;
    out.clear_wins[static_cast<std::size_t>(row.winner)] += row.clear;
  }
  return out;
}

}  // namespace preflight::report
