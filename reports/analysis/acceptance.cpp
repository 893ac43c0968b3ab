#include "analysis/acceptance.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "analysis/case_view.hpp"
#include "analysis/host_load.hpp"
#include "analysis/replicate_index.hpp"
#include "analysis/replicates.hpp"
#include "analysis/scaling.hpp"
#include "analysis/yaml_input.hpp"
#include "plugins/plugins.hpp"
#include "preflight/common/closest_name.hpp"
#include "preflight/common/sizes.hpp"
#include "preflight/common/stats.hpp"
#include "preflight/common/usage_error.hpp"
#include "preflight/schema/layout.hpp"

namespace preflight::report {

namespace {

[[noreturn]] void bad_rules(const std::string& path, const YAML::Node& node,
                            const std::string& what) {
  fail_at<RulesError>(path, node, what);
}

std::string scalar(const std::string& path, const YAML::Node& node, const std::string& key) {
  if (!node.IsScalar()) bad_rules(path, node, fmt::format("'{}' must be a single value", key));
  return node.as<std::string>();
}

double number(const std::string& path, const YAML::Node& node, const std::string& key,
              const std::string& example) {
  const auto text = scalar(path, node, key);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(v))
    bad_rules(path, node,
              fmt::format("'{}' must be a number such as {}, found '{}'", key, example, text));
  return v;
}

// "10%" or 0.1.
double tolerance(const std::string& path, const YAML::Node& node) {
  auto text = scalar(path, node, "tolerance");
  const bool percent = !text.empty() && text.back() == '%';
  if (percent) text.pop_back();
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(v >= 0))
    bad_rules(path, node,
              fmt::format("'tolerance' must be a share such as 10% or 0.1, found '{}'",
                          node.as<std::string>()));
  // A bare number is a fraction: 10 would be 1000%, which is never meant; say how to write it.
  if (!percent && v >= 1)
    bad_rules(
        path, node,
        fmt::format("'tolerance: {}' is a fraction of the expected value ({:g}%); write {}% for "
                    "that many percent, or a fraction below 1 such as 0.1",
                    text, v * 100, text));
  if (percent) v /= 100;
  if (v >= 1) bad_rules(path, node, "'tolerance' must be below 100%");
  return v;
}

void check_keys(const std::string& path, const YAML::Node& map,
                const std::set<std::string>& allowed, const std::string& where) {
  for (const auto& kv : map) {
    const auto key = kv.first.as<std::string>();
    if (!allowed.count(key)) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      bad_rules(path, kv.first,
                fmt::format("unknown key '{}' in {}; the keys are: {}", key, where, list));
    }
  }
}

}  // namespace

void read_selection(const std::string& path, const YAML::Node& node, const std::string& context,
                    Rule& r) {
  if (!node["metric"])
    bad_rules(path, node,
              fmt::format("{} needs 'metric', e.g. time_median or a family's metric", context));
  r.metric = scalar(path, node["metric"], "metric");
  if (const auto w = node["where"]) {
    if (!w.IsMap())
      bad_rules(path, w,
                "'where' must map case attributes to values, e.g. {collective: allreduce}");
    for (const auto& kv : w) {
      auto& values = r.where[kv.first.as<std::string>()];
      if (kv.second.IsSequence())
        for (const auto& v : kv.second) values.insert(scalar(path, v, "where"));
      else
        values.insert(scalar(path, kv.second, "where"));
    }
  }
  if (const auto s = node["sizes"]) {
    // A list's bad element is named by its position and points at its own line.
    const auto add = [&](const YAML::Node& v, const std::string& field) {
      try {
        r.sizes.insert(static_cast<double>(parse_size(scalar(path, v, field), field)));
      } catch (const UsageError& e) {
        bad_rules(path, v, e.what());
      }
    };
    if (s.IsSequence())
      for (std::size_t i = 0; i < s.size(); ++i) add(s[i], fmt::format("sizes[{}]", i));
    else
      add(s, "sizes");
  }
  if (const auto b = node["band"]) {
    r.band = scalar(path, b, "band");
    if (r.band != "small" && r.band != "medium" && r.band != "large")
      bad_rules(path, b, fmt::format("'band' must be small, medium or large, found '{}'", r.band));
  }
  if (const auto b = node["better"]) {
    r.better = scalar(path, b, "better");
    if (r.better != "higher" && r.better != "lower")
      bad_rules(path, b, fmt::format("'better' must be higher or lower, found '{}'", r.better));
  }
}

namespace {

Rule read_rule(const std::string& path, const YAML::Node& node, const Rule& defaults,
               std::size_t index) {
  if (!node.IsMap()) bad_rules(path, node, fmt::format("rules[{}] must be a mapping", index));
  check_keys(path, node,
             {"name", "where", "sizes", "band", "metric", "expect", "baseline", "tolerance",
              "better", "min_samples"},
             fmt::format("rules[{}]", index));
  Rule r = defaults;
  r.name = node["name"] ? scalar(path, node["name"], "name") : fmt::format("rule {}", index + 1);
  read_selection(path, node, fmt::format("rules[{}] ('{}')", index, r.name), r);
  if (node["tolerance"]) r.tolerance = tolerance(path, node["tolerance"]);
  if (node["min_samples"]) r.min_samples = number(path, node["min_samples"], "min_samples", "10");
  const bool expect = static_cast<bool>(node["expect"]),
             baseline = static_cast<bool>(node["baseline"]);
  if (expect == baseline)
    bad_rules(path, node,
              fmt::format("rules[{}] ('{}') needs exactly one of 'expect: VALUE' (absolute) or "
                          "'baseline: true' (relative to --baseline)",
                          index, r.name));
  if (expect) r.expect = number(path, node["expect"], "expect", "150");
  if (baseline) {
    const auto text = scalar(path, node["baseline"], "baseline");
    if (text != "true") bad_rules(path, node["baseline"], "'baseline' must be true (or left out)");
    r.from_baseline = true;
  }
  return r;
}

// The `where` keys read from a case's own fields and its meaning; every other key is one of
// its attributes.
std::string case_field(const CaseData& c, const std::string& key) {
  if (key == "family") return c.family;
  if (key == "backend") return c.backend;
  if (key == "name") return c.name;
  if (key == "subject") return c.meaning.subject;
  return c.meaning.series;  // "series"
}

bool matches(const Rule& r, const CaseView& v) {
  return selects(r, v.c);
}

}  // namespace

// `sizes` select by the point's x, `band` by its size band where the case is banded by size.
bool selects_point(const Rule& r, const CaseView& v, std::size_t point) {
  const double x = v.size_at(point);
  const double size = v.c.meaning.bands == schema::Bands::kSizeBands ? x : kNaN;
  if (!r.sizes.empty() && !r.sizes.count(x)) return false;
  if (!r.band.empty() && (std::isnan(size) || r.band != name_of(band_of(size)))) return false;
  return true;
}

namespace {

// The metric's 95% interval at a point, from where the column declares its per-iteration
// values come from: the median time's own; the iterations of a counter; the work counter's rate
// (a time-bounded iteration does varying work); the median time's, inversely, for a rate of
// fixed work. None otherwise: the check cannot be judged.
std::optional<std::pair<double, double>> metric_interval(const CaseView& v, std::size_t point,
                                                         const Column& column, double value) {
  using schema::PerIteration;
  const auto row = v.row(point);
  const double low = v.number("median_ci_low", row), high = v.number("median_ci_high", row),
               median_time = v.number("time_median", row);
  const auto of_sorted =
      [](std::vector<double> values) -> std::optional<std::pair<double, double>> {
    if (values.empty()) return std::nullopt;
    std::sort(values.begin(), values.end());
    const auto ci = median_interval(values);
    return std::pair{ci.low, ci.high};
  };
  const auto& source = column.per_iteration_source;
  switch (column.per_iteration) {
    case PerIteration::kTime:
      return std::isnan(low) || std::isnan(high) ? std::nullopt
                                                 : std::optional{std::pair{low, high}};
    case PerIteration::kCounterMedian: {
      const auto counter = v.c.iteration_counters.find(source);
      if (counter == v.c.iteration_counters.end() || point >= counter->second.size())
        return std::nullopt;
      return of_sorted(counter->second[point]);
    }
    case PerIteration::kCounterRate: {
      const auto counter = v.c.iteration_totals.find(source);
      if (counter == v.c.iteration_totals.end() || point >= counter->second.size() ||
          point >= v.c.iteration_times.size() ||
          counter->second[point].size() != v.c.iteration_times[point].size() ||
          counter->second[point].empty())
        return std::nullopt;
      std::vector<double> rates;
      for (std::size_t i = 0; i < v.c.iteration_times[point].size(); ++i)
        rates.push_back(counter->second[point][i] / v.c.iteration_times[point][i]);
      const double scale = value / median(rates);  // the metric is proportional to work / time
      auto ci = of_sorted(rates);
      if (ci) ci = std::pair{ci->first * scale, ci->second * scale};
      return ci;
    }
    case PerIteration::kInverseTime:
      if (low > 0 && high > 0)
        return std::pair{value * median_time / high, value * median_time / low};
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

Check make_check(const std::string& rule, const std::string& label, const std::string& case_name,
                 const std::string& size, const std::string& metric) {
  Check k;
  k.rule = rule;
  k.run_label = label;
  k.case_name = case_name;
  k.size = size;
  k.metric = metric;
  k.value = k.ci_low = k.ci_high = k.expected = k.threshold = kNaN;
  return k;
}

// Columns without a direction of their own: times are better lower, counts higher.
std::string better_of(const Rule& r, const Column& column) {
  const auto declared = column.direction;
  return !r.better.empty()                      ? r.better
         : declared != schema::Direction::kNone ? std::string(name_of(declared))
         : column.kind == schema::Kind::kTime   ? "lower"
                                                : "higher";
}

void judge_against_baseline(Check& k, const ReplicateTest& t, bool discovery, double tolerance,
                            double alpha, std::size_t tested) {
  const bool higher_better = k.better != "lower";
  const double worse = higher_better ? -t.change : t.change;   // > 0: worse than the baseline
  const double worst = higher_better ? -t.ci_low : t.ci_high;  // the interval's worse end
  const std::string noise = t.level == ReplicateLevel::kRepetitions
                                ? fmt::format("run-to-run noise {:.1f}%", t.noise * 100)
                                : describe_noise(t);
  const std::string evidence = fmt::format(
      "{:+.1f}% against the baseline, {:.0f}% interval [{:+.1f}%, {:+.1f}%]; {} ({} {} against "
      "{})",
      t.change * 100, (1 - alpha) * 100, t.ci_low * 100, t.ci_high * 100, noise, name_of(t.level),
      t.current_n, t.baseline_n);
  const Shift shift = judge_shift(t, discovery, tolerance);
  const bool bad = shift == (higher_better ? Shift::kLower : Shift::kHigher);
  if (bad) {
    k.verdict = CheckVerdict::kFail;
    k.reason = fmt::format("worse by more than the {:.0f}% tolerance beyond the noise: {}",
                           tolerance * 100, evidence);
  } else if (shift != Shift::kUndecided || (t.testable && worst <= tolerance)) {
    k.verdict = CheckVerdict::kPass;
    k.reason = fmt::format("{} worse than the {:.0f}% tolerance ruled out: {}",
                           worse > 0 ? "a change" : "no change", tolerance * 100, evidence);
  } else {
    k.verdict = CheckVerdict::kInconclusive;
    const std::size_t needed = replicates_to_decide(t, tolerance, alpha, tested);
    k.reason = !t.testable
                   ? fmt::format(
                         "{} repetition(s) against {}: at least 2 on each side are needed "
                         "to see the run-to-run noise",
                         t.current_n, t.baseline_n)
                   : fmt::format("too noisy to judge against the {:.0f}% tolerance: {}{}",
                                 tolerance * 100, evidence,
                                 needed > 0 ? fmt::format("; about {} {} per side would decide",
                                                          needed, name_of(t.level))
                                            : "");
  }
}

void judge(Check& k, const Rule& r, double expected_low, double expected_high) {
  const bool higher = k.better != "lower";
  const double t_low = higher ? expected_low * (1 - r.tolerance) : expected_low * (1 + r.tolerance);
  const double t_high =
      higher ? expected_high * (1 - r.tolerance) : expected_high * (1 + r.tolerance);
  k.threshold = higher ? expected_high * (1 - r.tolerance) : expected_low * (1 + r.tolerance);
  const auto bound = [&](double t) { return fmt::format("{:.4g} {}", t, k.unit); };
  if (static_cast<double>(k.samples) < r.min_samples) {
    k.verdict = CheckVerdict::kInconclusive;
    k.reason =
        fmt::format("{} samples, fewer than the {} the rule needs", k.samples, r.min_samples);
  } else if (higher ? k.ci_low >= t_high : k.ci_high <= t_low) {
    k.verdict = CheckVerdict::kPass;
    k.reason = fmt::format("95% interval [{:.4g}, {:.4g}] wholly {} the threshold {}", k.ci_low,
                           k.ci_high, higher ? "at or above" : "at or below", bound(k.threshold));
  } else if (higher ? k.ci_high < t_low : k.ci_low > t_high) {
    k.verdict = CheckVerdict::kFail;
    k.threshold = higher ? t_low : t_high;
    k.reason = fmt::format("95% interval [{:.4g}, {:.4g}] wholly {} the threshold {}", k.ci_low,
                           k.ci_high, higher ? "below" : "above", bound(k.threshold));
  } else {
    k.verdict = CheckVerdict::kInconclusive;
    k.reason =
        fmt::format("95% interval [{:.4g}, {:.4g}] straddles the threshold {}: too noisy to judge",
                    k.ci_low, k.ci_high, bound(k.threshold));
  }
}

// Judges a rule with an expected value: each case and size by its metric's interval.
void evaluate_against_expectation(const Rule& r, const RunData& run, const std::string& label,
                                  std::vector<Check>& out) {
  for (const auto& c : run.cases) {
    const CaseView v(c);
    if (!matches(r, v)) continue;
    if (c.status != schema::case_status::kOk) {
      out.push_back(make_check(r.name, label, c.group_name + " " + c.name, "", r.metric));
      out.back().verdict = CheckVerdict::kFail;
      out.back().reason = fmt::format("the case's status is {}", c.status);
      continue;
    }
    const auto column = c.stats.find(r.metric);
    if (column == c.stats.end()) continue;  // this case has no such metric
    for (std::size_t p = 0; p < v.points(); ++p) {
      if (!selects_point(r, v, p)) continue;
      // Ranks that wait for each other inside the operation, one alone: it has no peers.
      if (c.meaning.peer_late && v.group_ranks(p) < 2) continue;
      const auto row = v.row(p);
      auto k = make_check(r.name, label, c.group_name + " " + c.name, v.point_label(p), r.metric);
      k.unit = column->second.unit;
      k.better = better_of(r, column->second);
      k.value = v.metric_at(r.metric, p);
      // A figure the case could not give (a fraction of a peak it did not know): not measured.
      if (std::isnan(k.value)) continue;
      k.samples = static_cast<std::size_t>(v.number("iterations", row));
      const auto interval = metric_interval(v, p, column->second, k.value);
      const auto quality = plugins::quality_problem(v, p, r.where);
      if (!interval || !quality.empty()) {
        k.verdict = CheckVerdict::kInconclusive;
        k.reason = !quality.empty() ? quality
                                    : "the file has no confidence interval for " + r.metric +
                                          ": it cannot be judged against a threshold";
        out.push_back(std::move(k));
        continue;
      }
      std::tie(k.ci_low, k.ci_high) = *interval;
      k.expected = r.expect;
      k.typical = r.typical;
      judge(k, r, r.expect, r.expect);
      if (std::isfinite(r.typical) && r.typical != 0)
        k.reason += fmt::format("; {:.0f}% of the typical {:.4g} {}", 100 * k.value / r.typical,
                                r.typical, k.unit);
      out.push_back(std::move(k));
    }
  }
}

// The rule's metric at every other case and size the runs share, appended: a rule's checks are
// tested together with the whole comparison, as the regression tests its sizes, so that a rule
// picking 8 of 36 sizes does not call a failure what one launch's shift at one size gives
// (analysis/replicates.hpp), a change at many sizes still counts for all, and with several
// baselines the run-level noise is moderated over the same points.
void add_other_points(const Rule& r, const ReplicateIndex& now,
                      const std::vector<ReplicateIndex>& history,
                      std::vector<ReplicatePair>& pairs) {
  for (const auto& [key, c] : now) {
    const CaseView v(*c.first);
    for (std::size_t p = 0; p < v.points(); ++p) {
      if (matches(r, v) && selects_point(r, v, p)) continue;  // the rule's own: tested
      // What the rule's own checks leave out, left out here too.
      if (c.first->meaning.peer_late && v.group_ranks(p) < 2) continue;
      if (!plugins::quality_problem(v, p, r.where).empty()) continue;
      const auto it = c.points.find(v.point_key(p));
      if (it == c.points.end()) continue;
      auto before = replicates_at(history, key, v.point_key(p));
      if (before.empty()) continue;
      pairs.push_back({std::move(before), {it->second.values}});
    }
  }
}

// Judges a rule relative to the baseline runs: per case (its repetitions together) and size, the
// metric's repetitions against the baselines' (analysis/replicates.hpp).
void evaluate_against_baseline(const Rule& r, const RunData& run, const std::string& label,
                               const std::vector<const RunData*>& baselines, double alpha,
                               std::vector<Check>& out) {
  const auto value = [&](const CaseView& v, std::size_t p) { return v.metric_at(r.metric, p); };
  // As the regression: only against baselines measured in the current run's host state.
  const auto comparable = comparable_runs(baselines, run, kMaxHostContentionGap);
  const auto& judged = comparable.baselines.empty() ? baselines : comparable.baselines;
  std::vector<ReplicateIndex> history;
  for (const auto* b : judged) history.push_back(index_replicates(*b, value));
  const auto now = index_replicates(run, value);
  std::vector<ReplicatePair> pairs;  // the rule's own checks first, then the other points
  std::vector<std::size_t> tested;   // indices in `out` of the rule's own
  for (const auto& [key, c] : now) {
    const CaseView v(*c.first);
    if (!matches(r, v)) continue;
    const auto column = c.first->stats.find(r.metric);
    if (column == c.first->stats.end()) continue;
    for (std::size_t p = 0; p < v.points(); ++p) {
      if (!selects_point(r, v, p)) continue;
      if (c.first->meaning.peer_late && v.group_ranks(p) < 2) continue;
      const auto& point = c.points.at(v.point_key(p));
      auto k = make_check(r.name, label, c.first->group_name + " " + c.first->name,
                          v.point_label(p), r.metric);
      k.unit = column->second.unit;
      k.better = better_of(r, column->second);
      auto before = replicates_at(history, key, v.point_key(p));
      const auto quality = plugins::quality_problem(v, p, r.where);
      if (before.empty() || !quality.empty()) {
        k.expected = k.threshold = kNaN;
        k.verdict = CheckVerdict::kInconclusive;
        k.reason = !quality.empty() ? quality : "the baseline has no value for this case and size";
        out.push_back(std::move(k));
        continue;
      }
      pairs.push_back({std::move(before), {point.values}});
      tested.push_back(out.size());
      out.push_back(std::move(k));
    }
  }
  add_other_points(r, now, history, pairs);
  const auto tests = compare_replicates(pairs, alpha);
  std::vector<double> p_values;
  for (const auto& t : tests) p_values.push_back(t.testable ? t.p_value : kNaN);
  const auto discoveries = two_stage_benjamini_hochberg(p_values, alpha);
  const auto testable = static_cast<std::size_t>(
      std::count_if(p_values.begin(), p_values.end(), [](double p) { return !std::isnan(p); }));
  for (std::size_t i = 0; i < tested.size(); ++i) {
    const auto& t = tests[i];
    auto& k = out[tested[i]];
    k.value = t.current;
    k.expected = t.baseline;
    k.ci_low = t.baseline * (1 + t.ci_low);
    k.ci_high = t.baseline * (1 + t.ci_high);
    k.threshold = t.baseline * (k.better == "lower" ? 1 + r.tolerance : 1 - r.tolerance);
    k.samples = t.current_n;
    if (comparable.withheld.empty()) {
      judge_against_baseline(k, t, discoveries[i], r.tolerance, alpha, testable);
      continue;
    }
    k.verdict = CheckVerdict::kInconclusive;
    k.reason = "not judged: " + comparable.withheld;
  }
}

}  // namespace

const char* name_of(CheckVerdict v) {
  switch (v) {
    case CheckVerdict::kPass:
      return "pass";
    case CheckVerdict::kFail:
      return "fail";
    case CheckVerdict::kNotMeasured:
      return "not measured";
    default:
      return "inconclusive";
  }
}

const std::set<std::string>& case_field_keys() {
  static const std::set<std::string> keys = {"family", "backend", "name", "subject", "series"};
  return keys;
}

namespace {
// The case attribute a rule's `where` names, as text ("" when the case lacks it). The name is
// the rules file's, not the code's: no declared Attr to read it through, so it is looked up as
// written (refuse_unknown_names refuses one that no case of the rule's families has).
std::string attribute_named(const CaseData& c, const std::string& name) {
  const auto it = c.params.find(name);
  return it == c.params.end() ? std::string() : it->second;
}
}  // namespace

bool selects(const Rule& r, const CaseData& c) {
  for (const auto& [key, values] : r.where) {
    const auto actual = case_field_keys().count(key) ? case_field(c, key) : attribute_named(c, key);
    if (!values.count(actual)) return false;
  }
  return true;
}

namespace {
Rules parse_rules(const std::string& path, const YAML::Node& root);
}  // namespace

Rules read_rules(const std::string& path) {
  return load_yaml<RulesError>(path, "rules file", "configs/rules/acceptance.yaml", parse_rules);
}

namespace {

Rules parse_rules(const std::string& path, const YAML::Node& root) {
  Rule defaults;
  defaults.tolerance = 0.1;
  if (const auto d = root["defaults"]) {
    if (!d.IsMap()) bad_rules(path, d, "'defaults' must be a mapping");
    check_keys(path, d, {"tolerance", "min_samples"}, "defaults");
    if (d["tolerance"]) defaults.tolerance = tolerance(path, d["tolerance"]);
    if (d["min_samples"])
      defaults.min_samples = number(path, d["min_samples"], "min_samples", "10");
  }
  auto set = std::make_shared<RuleSet>();
  std::size_t index = 0;
  for (const auto& node : root["rules"])
    set->rules.push_back(read_rule(path, node, defaults, index++));
  if (set->rules.empty()) bad_rules(path, root["rules"], "'rules' is empty: add at least one rule");
  Rules rules{path, {}, set};
  for (const auto& r : set->rules) rules.names.push_back(r.name);
  return rules;
}

// " (did you mean 'x'?)" for the name in `known` nearest to `name`, or "".
std::string nearest_hint(const std::string& name, const std::set<std::string>& known) {
  const auto hint = closest_key(name, {known.begin(), known.end()});
  return hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint);
}

// A rule for families this run holds that names a metric or an attribute none of their cases
// has is misspelt (bus_bw for busbw, colective for collective): refused, with the nearest name
// they have. A rule for a family the run did not measure, or for every family, can rightly
// match nothing here; its check says what no case has (no_match_reason).
void refuse_unknown_names(const std::string& path, const Rule& r, const RunData& run) {
  const auto family = r.where.find("family");
  if (family == r.where.end()) return;
  std::set<std::string> metrics, attributes;
  for (const auto& key : case_field_keys()) attributes.insert(key);
  for (const auto& c : run.cases) {
    if (!family->second.count(c.family)) continue;
    for (const auto& [name, column] : c.stats) metrics.insert(name);
    for (const auto& [name, value] : c.params) attributes.insert(name);
  }
  if (metrics.empty()) return;  // none of the rule's families ran
  const auto refuse = [&](const char* what, const std::string& name,
                          const std::set<std::string>& known) {
    std::string families;
    for (const auto& f : family->second) families += (families.empty() ? "" : " or ") + f;
    throw RulesError(fmt::format("{}: rule '{}': no {} case in {} has the {} '{}'{}", path, r.name,
                                 families, run.path, what, name, nearest_hint(name, known)));
  };
  if (!metrics.count(r.metric)) refuse("metric", r.metric, metrics);
  for (const auto& [key, values] : r.where)
    if (!attributes.count(key)) refuse("attribute", key, attributes);
}

// Why a rule matched nothing, where a name it uses is in no case of the run at all.
std::string no_match_reason(const Rule& r, const RunData& run) {
  std::set<std::string> metrics;
  for (const auto& c : run.cases)
    for (const auto& [name, column] : c.stats) metrics.insert(name);
  if (metrics.empty() || metrics.count(r.metric)) return "";
  return fmt::format("; no case has the metric '{}'{}", r.metric, nearest_hint(r.metric, metrics));
}

}  // namespace

std::vector<Check> evaluate(const Rules& rules, const RunData& run, const std::string& label,
                            const std::vector<const RunData*>& baselines, double alpha,
                            bool refuse_misspelt) {
  std::vector<Check> out;
  for (const auto& r : rules.set->rules) {
    if (r.from_baseline && baselines.empty())
      throw RulesError(fmt::format("{}: rule '{}' compares with a baseline: give --baseline FILE",
                                   rules.path, r.name));
    const std::size_t before = out.size();
    if (r.from_baseline) {
      for (const auto& c : run.cases)
        if (c.status != schema::case_status::kOk && matches(r, CaseView(c))) {
          out.push_back(make_check(r.name, label, c.group_name + " " + c.name, "", r.metric));
          out.back().verdict = CheckVerdict::kFail;
          out.back().reason = fmt::format("the case's status is {}", c.status);
        }
      evaluate_against_baseline(r, run, label, baselines, alpha, out);
    } else {
      evaluate_against_expectation(r, run, label, out);
    }
    if (out.size() == before) {
      if (refuse_misspelt) refuse_unknown_names(rules.path, r, run);
      out.push_back(make_check(r.name, label, "", "", r.metric));
      out.back().verdict = CheckVerdict::kNotMeasured;
      out.back().typical = r.typical;
      out.back().reason = "no case and size in this run matches the rule (nothing was judged)" +
                          no_match_reason(r, run);
    }
  }
  return out;
}

std::vector<Check> builtin_checks(const RunData& run, const std::string& label) {
  std::vector<Check> out;
  auto whole = make_check("run completed", label, "", "", "status");
  whole.verdict =
      run.status == schema::run_status::kComplete || run.status == schema::run_status::kFailed
          ? CheckVerdict::kPass
          : CheckVerdict::kFail;
  whole.reason = fmt::format("run status {}, {} case(s) in the file", run.status, run.cases.size());
  if (run.status == schema::run_status::kFailed)
    whole.reason += " (wrong results are checked per case)";
  out.push_back(whole);
  for (const auto& c : run.cases) {
    auto k = make_check("results correct", label, c.group_name + " " + c.name, "",
                        std::string(schema::harness::kWrongElements.name));
    k.unit = "elements";
    k.better = "lower";
    const CaseView v(c);
    k.value = or_nan(v.get(schema::harness::kWrongElements));
    k.expected = k.threshold = 0;
    k.verdict = c.status == schema::case_status::kOk ? CheckVerdict::kPass : CheckVerdict::kFail;
    k.reason = c.status == schema::case_status::kOk ? "every element of every result as expected"
               : c.status == schema::case_status::kFailed
                   ? fmt::format("{} wrong elements",
                                 attribute_text(v.get(schema::harness::kWrongElements)))
                   : "the case " + c.status + ": " +
                         attribute_text(v.get(schema::harness::kTimeoutMessage));
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace preflight::report
