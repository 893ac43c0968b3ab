#include "analysis/reference.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <regex>
#include <set>

#include "analysis/yaml_input.hpp"
#include "preflight/common/closest_name.hpp"
#include "preflight/schema/declared.hpp"

#ifndef PREFLIGHT_SOURCE_REFERENCES
#define PREFLIGHT_SOURCE_REFERENCES ""
#endif

namespace preflight::report {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void bad_reference(const std::string& path, const YAML::Node& node,
                                const std::string& what) {
  fail_at<ReferenceError>(path, node, what);
}

// " (did you mean 'x'?)" for the nearest of `known`, or "".
std::string hint(const std::string& name, const std::vector<std::string>& known) {
  const auto near = closest_key(name, known);
  return near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near);
}

template <typename Names>
std::vector<std::string> strings(const Names& names) {
  return {names.begin(), names.end()};
}

void check_keys(const std::string& path, const YAML::Node& map,
                const std::vector<std::string>& allowed, const std::string& where) {
  for (const auto& kv : map) {
    const auto key = kv.first.as<std::string>();
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
      bad_reference(path, kv.first,
                    fmt::format("unknown key '{}' in {}{}; the keys are: {}", key, where,
                                hint(key, allowed), fmt::join(allowed, ", ")));
  }
}

std::string scalar(const std::string& path, const YAML::Node& node, const std::string& key) {
  if (!node || !node.IsScalar())
    bad_reference(path, node, fmt::format("'{}' must be a single value", key));
  return node.as<std::string>();
}

double number(const std::string& path, const YAML::Node& node, const std::string& key) {
  const auto text = scalar(path, node, key);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(v))
    bad_reference(path, node, fmt::format("'{}' must be a number, found '{}'", key, text));
  return v;
}

std::map<std::string, std::vector<std::string>> read_match(const std::string& path,
                                                           const YAML::Node& node) {
  if (!node.IsMap())
    bad_reference(path, node,
                  "'match' must map environment columns to patterns, e.g. {gpu_model: H200}");
  const auto columns = strings(schema::declared_environment_columns());
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& kv : node) {
    const auto column = kv.first.as<std::string>();
    if (std::find(columns.begin(), columns.end(), column) == columns.end())
      bad_reference(path, kv.first,
                    fmt::format("match: '{}' is not an environment column{}; the columns are: {}",
                                column, hint(column, columns), fmt::join(columns, ", ")));
    auto& patterns = out[column];
    const auto add = [&](const YAML::Node& p) {
      patterns.push_back(p.IsNull() ? "" : scalar(path, p, "match." + column));
      try {
        std::regex(patterns.back(), std::regex::ECMAScript);
      } catch (const std::regex_error& e) {
        bad_reference(path, p,
                      fmt::format("match.{}: '{}' is not a regular expression ({})", column,
                                  patterns.back(), e.what()));
      }
    };
    if (kv.second.IsSequence())
      for (const auto& p : kv.second) add(p);
    else
      add(kv.second);
  }
  return out;
}

// The declared units of `metric` (several families may declare it); empty: not declared.
std::set<std::string> declared_units(const std::string& metric) {
  std::set<std::string> units;
  for (const auto& c : schema::declared_stats_columns())
    if (c.name == metric) units.emplace(c.unit);
  return units;
}

schema::Direction declared_direction(const std::string& metric) {
  for (const auto& c : schema::declared_stats_columns())
    if (c.name == metric && c.direction != schema::Direction::kNone) return c.direction;
  return schema::Direction::kNone;
}

void check_where(const std::string& path, const YAML::Node& node, const Rule& r,
                 const std::string& context) {
  auto known = strings(case_field_keys());
  for (const auto name : schema::declared_case_attributes()) known.emplace_back(name);
  for (const auto& [key, values] : r.where)
    if (std::find(known.begin(), known.end(), key) == known.end())
      bad_reference(path, node["where"],
                    fmt::format("{}: 'where: {{{}: ...}}' names no case attribute{}", context, key,
                                hint(key, known)));
}

Rule read_figure(const std::string& path, const YAML::Node& node, std::size_t index) {
  const auto context = fmt::format("figures[{}]", index);
  if (!node.IsMap()) bad_reference(path, node, context + " must be a mapping");
  check_keys(path, node,
             {"name", "where", "sizes", "band", "metric", "better", "unit", "typical", "floor",
              "source", "min_samples"},
             context);
  Rule r;
  r.name = node["name"] ? scalar(path, node["name"], "name") : fmt::format("figure {}", index + 1);
  try {
    read_selection(path, node, fmt::format("{} ('{}')", context, r.name), r);
  } catch (const RulesError& e) {
    throw ReferenceError(e.what());
  }
  check_where(path, node, r, context);
  std::vector<std::string> metrics;
  for (const auto& c : schema::declared_stats_columns()) metrics.emplace_back(c.name);
  const auto units = declared_units(r.metric);
  if (units.empty())
    bad_reference(path, node["metric"],
                  fmt::format("{}: unknown figure: no family declares the metric '{}'{}", context,
                              r.metric, hint(r.metric, metrics)));
  const auto unit = node["unit"] ? scalar(path, node["unit"], "unit") : std::string();
  if (!units.count(unit))
    bad_reference(path, node["unit"] ? node["unit"] : node,
                  fmt::format("{}: unit '{}' is not the unit of {} ({}){}", context, unit, r.metric,
                              fmt::join(units, " or "), hint(unit, strings(units))));
  r.unit = unit;
  if (!node["typical"] || !node["floor"])
    bad_reference(path, node,
                  fmt::format("{} ('{}') needs 'typical' and 'floor'", context, r.name));
  r.typical = number(path, node["typical"], "typical");
  r.expect = number(path, node["floor"], "floor");
  r.source = node["source"] ? scalar(path, node["source"], "source") : "";
  if (r.source.find_first_not_of(" \t\n") == std::string::npos)
    bad_reference(
        path, node,
        fmt::format("{} ('{}') needs 'source': the vendor specification or public measurement "
                    "both figures come from, with its date",
                    context, r.name));
  if (node["min_samples"]) r.min_samples = number(path, node["min_samples"], "min_samples");
  const auto direction = declared_direction(r.metric);
  if (r.better.empty() && direction == schema::Direction::kNone)
    bad_reference(
        path, node,
        fmt::format("{}: {} has no declared direction: say 'better: higher' or 'better: lower'",
                    context, r.metric));
  const bool higher =
      r.better.empty() ? direction == schema::Direction::kHigher : r.better == "higher";
  if (higher ? r.expect > r.typical : r.expect < r.typical)
    bad_reference(path, node["floor"],
                  fmt::format("{}: floor {} is on the good side of typical {} ({} is better {})",
                              context, r.expect, r.typical, r.metric, higher ? "higher" : "lower"));
  r.tolerance = 0;
  return r;
}

Reference parse_reference(const std::string& path, const YAML::Node& root) {
  if (!root.IsMap())
    bad_reference(path, root, "a reference envelope is a mapping (docs/references.md)");
  check_keys(path, root, {"reference", "title", "match", "made_from", "figures"}, "the envelope");
  Reference ref;
  ref.path = path;
  ref.name = scalar(path, root["reference"], "reference");
  ref.title = root["title"] ? scalar(path, root["title"], "title") : ref.name;
  if (!root["match"])
    bad_reference(path, root, "'match' is missing: which environments is this for?");
  ref.match = read_match(path, root["match"]);
  if (root["made_from"]) ref.made_from = scalar(path, root["made_from"], "made_from");
  const auto figures = root["figures"];
  if (!figures || !figures.IsSequence() || figures.size() == 0)
    bad_reference(path, figures ? figures : root,
                  "'figures' must be a list of at least one figure");
  auto set = std::make_shared<RuleSet>();
  for (std::size_t i = 0; i < figures.size(); ++i) {
    auto r = read_figure(path, figures[i], i);
    r.name = fmt::format("reference {}: {}", ref.name, r.name);
    set->rules.push_back(std::move(r));
  }
  ref.figures.path = path;
  for (const auto& r : set->rules) ref.figures.names.push_back(r.name);
  ref.figures.set = set;
  return ref;
}

// A pattern is a regular expression (ECMAScript, case-insensitive) searched in the value, so a
// plain word matches where it appears and ^...$ only the whole value; "" matches only an empty
// value (no GPU).
bool value_matches(const std::string& value, const std::vector<std::regex>& patterns,
                   const std::vector<std::string>& texts) {
  for (std::size_t i = 0; i < patterns.size(); ++i)
    if (texts[i].empty() ? value.empty() : std::regex_search(value, patterns[i])) return true;
  return false;
}

std::vector<std::regex> compiled(const std::vector<std::string>& texts) {
  std::vector<std::regex> out;
  for (const auto& t : texts) out.emplace_back(t, std::regex::ECMAScript | std::regex::icase);
  return out;
}

}  // namespace

Reference read_reference(const std::string& path) {
  return load_yaml<ReferenceError>(path, "reference envelope", "configs/references/h200-sxm.yaml",
                                   parse_reference);
}

std::vector<Reference> read_references(const std::string& dir) {
  std::vector<std::string> paths;
  std::error_code ec;
  if (dir.empty() || !fs::is_directory(dir, ec)) return {};
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.path().extension() == ".yaml") paths.push_back(entry.path().string());
  std::sort(paths.begin(), paths.end());
  std::vector<Reference> out;
  for (const auto& p : paths) out.push_back(read_reference(p));
  for (std::size_t i = 0; i < out.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (out[i].name == out[j].name)
        throw ReferenceError(
            fmt::format("{}: reference '{}' is also the name in {}; give each "
                        "envelope its own name",
                        out[i].path, out[i].name, out[j].path));
  return out;
}

std::string default_references_dir(const std::string& executable) {
  std::error_code ec;
  const auto beside = fs::weakly_canonical(fs::absolute(executable), ec).parent_path() / ".." /
                      "share" / "preflight" / "references";
  if (fs::is_directory(beside, ec)) return beside.lexically_normal().string();
  const std::string source = PREFLIGHT_SOURCE_REFERENCES;
  if (!source.empty() && fs::is_directory(source, ec)) return source;
  return "";
}

std::string mismatch(const Reference& ref, const RunData& run) {
  for (const auto& [column, patterns] : ref.match) {
    const auto values = run.environment.find(column);
    if (values == run.environment.end() || values->second.empty())
      return fmt::format("the run does not record {}", column);
    const auto regexes = compiled(patterns);
    for (std::size_t rank = 0; rank < values->second.size(); ++rank)
      if (!value_matches(values->second[rank], regexes, patterns))
        return fmt::format("rank {}'s {} is '{}', not {}", rank, column, values->second[rank],
                           patterns.size() == 1 && patterns.front().empty()
                               ? std::string("empty")
                               : fmt::format("'{}'", fmt::join(patterns, "' or '")));
  }
  return "";
}

ReferenceChoice choose_reference(const std::vector<Reference>& all, const RunData& run) {
  ReferenceChoice choice;
  std::vector<std::string> misses;
  for (const auto& ref : all) {
    const auto why_not = mismatch(ref, run);
    if (!why_not.empty()) {
      misses.push_back(fmt::format("{}: {}", ref.name, why_not));
      continue;
    }
    if (choice.reference == nullptr || ref.match.size() > choice.reference->match.size())
      choice.reference = &ref;
  }
  if (choice.reference != nullptr) {
    std::vector<std::string> keys;
    for (const auto& [column, patterns] : choice.reference->match)
      keys.push_back(fmt::format("{} {}", column,
                                 patterns.size() == 1 && patterns.front().empty()
                                     ? std::string("empty")
                                     : fmt::format("'{}'", fmt::join(patterns, "' or '"))));
    choice.why =
        fmt::format("chosen from the environment: {} on every rank", fmt::join(keys, ", "));
  } else {
    choice.why = all.empty() ? "no reference envelopes were found"
                             : "no reference envelope matches this run's hardware";
  }
  if (!misses.empty()) choice.detail = fmt::format("not matched: {}", fmt::join(misses, "; "));
  return choice;
}

Reference find_reference(const std::vector<Reference>& all, const std::string& name) {
  const bool is_path =
      name.find('/') != std::string::npos || name.ends_with(".yaml") || name.ends_with(".yml");
  if (is_path) return read_reference(name);
  std::vector<std::string> names;
  for (const auto& ref : all) {
    if (ref.name == name) return ref;
    names.push_back(ref.name);
  }
  throw ReferenceError(
      fmt::format("--reference {}: no such platform{}; the platforms are: {} (or give a file, "
                  "or none)",
                  name, hint(name, names),
                  names.empty() ? "(none found)" : fmt::format("{}", fmt::join(names, ", "))));
}

const Rule* figure_for(const Reference& ref, const CaseView& v, std::size_t point,
                       const std::string& metric) {
  for (const auto& r : ref.figures.set->rules)
    if (r.metric == metric && selects(r, v.c) && selects_point(r, v, point)) return &r;
  return nullptr;
}

}  // namespace preflight::report
