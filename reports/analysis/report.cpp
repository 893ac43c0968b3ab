#include "analysis/report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <future>
#include <optional>
#include <set>

#include "plugins/plugins.hpp"
#include "preflight/schema/layout.hpp"

namespace preflight::report {
namespace {

// The stages of a training step's chain (schema kStageNames) no case of any run declares, and
// quality rules no plug-in serves, so that silence is not mistaken for health.
void add_not_measured(Report& r, const std::vector<RunData>& runs) {
  std::set<schema::Stage> measured;
  std::set<std::string> unserved;
  for (const auto& run : runs) {
    for (const auto& c : run.cases) measured.insert(c.meaning.stage);
    for (auto& rule : plugins::unserved_quality_rules(run)) unserved.insert(rule);
  }
  for (const auto& [stage, name] : schema::kStageNames)
    if (!measured.count(stage)) r.not_measured.emplace_back(schema::label_of(stage));
  for (const auto& rule : unserved)
    r.not_measured.push_back("quality rule " + rule +
                             ": not checked (no report plug-in serves it)");
}

}  // namespace

int Report::exit_code() const {
  bool failed = false, inconclusive = false;
  for (const auto& c : checks) {
    failed = failed || c.verdict == CheckVerdict::kFail;
    inconclusive = inconclusive || c.verdict == CheckVerdict::kInconclusive;
  }
  for (const auto& s : regressions) {
    failed = failed || s.result.count(Verdict::kSlower) > 0;
    inconclusive = inconclusive || s.result.count(Verdict::kUndecided) > 0;
  }
  return failed ? 1 : inconclusive ? 3 : 0;
}

namespace {

// A named slow node or rank is a failed acceptance check, so that a CI gate does not miss it.
std::vector<Check> slow_node_checks(const RunReport& run, const OutlierOptions& options) {
  std::vector<Check> out;
  std::set<int> of_slow_nodes;  // their ranks are evidence of the node, not checks of their own
  for (const auto& o : run.outliers)
    if (o.kind == "node") of_slow_nodes.insert(o.ranks.begin(), o.ranks.end());
  for (const auto& o : run.outliers) {
    if (o.kind == "rank" &&
        (of_slow_nodes.count(o.ranks.front()) || o.ratio < options.min_failing_rank_ratio))
      continue;
    Check c;
    c.rule = std::string(kSlowNodeRule);
    c.run_label = run.label;
    c.case_name = fmt::format("{} {}", o.kind, o.name);
    c.metric = "time ratio to peers";
    c.unit.push_back('x');  // not = "x": GCC 12 warns falsely (-Wrestrict) on that copy
    c.better = "lower";
    c.value = o.ratio;
    c.expected = 1;
    c.threshold = o.kind == "late rank" ? 1 / options.min_late_ratio
                  : o.kind == "rank"    ? options.min_failing_rank_ratio
                                        : options.min_ratio;
    c.samples = o.sizes;
    c.verdict = CheckVerdict::kFail;
    c.reason = fmt::format(
        "{} {} (ranks {}): {:.2f}x its peers' typical time, robust z {:.1f}, over {} sizes{}",
        o.kind, o.name, fmt::join(o.ranks, ","), o.ratio, o.z, o.sizes,
        o.kind == "late rank" ? " (its peers wait for it)" : "");
    out.push_back(std::move(c));
  }
  return out;
}

// A failed environment check (a limit, a driver, a path, a node unlike the others) fails the
// run's acceptance: what was measured on such a cluster is not what a training run would get.
std::vector<Check> env_check_failures(const RunData& run, const std::string& label) {
  std::vector<Check> out;
  for (const auto& e : run.env_checks) {
    if (e.status != schema::env_check_status::kFail) continue;
    Check c;
    c.rule = std::string(kEnvCheckRule);
    c.run_label = label;
    c.metric = fmt::format("{} ({})", e.check, e.where);
    c.value = c.expected = c.threshold = std::nan("");
    c.verdict = CheckVerdict::kFail;
    c.reason = e.fix.empty() ? e.detail : fmt::format("{}; fix: {}", e.detail, e.fix);
    out.push_back(std::move(c));
  }
  return out;
}

// A finding that names hosts, links or the fabric to act on (the pair sweep's isolation) is a
// failed acceptance check, as a named slow node is: a CI gate must not pass what it names. A
// soak's suspect to monitor is listed, not failed.
std::vector<Check> suspect_checks(const std::vector<Finding>& findings) {
  std::vector<Check> out;
  for (const auto& f : findings)
    for (const auto& s : f.suspects) {
      if (s.remediation == schema::Remedy::kMonitor) continue;
      Check c;
      c.rule = std::string(kSuspectRule);
      c.run_label = f.run_label;
      c.case_name = fmt::format("{} {}", s.kind, fmt::join(s.hosts, " - "));
      if (s.kind == kDeviceSuspect)
        c.case_name += fmt::format(" rank {} {}", s.rank, s.device.empty() ? "CPU" : s.device);
      if (!s.pattern.empty())
        c.case_name += fmt::format(" (soak: {}, {})", s.pattern, schema::name_of(s.remediation));
      c.metric = "named";
      c.value = c.expected = c.threshold = std::nan("");
      c.verdict = CheckVerdict::kFail;
      c.reason = f.title;
      out.push_back(std::move(c));
    }
  return out;
}

// The envelope a run is judged against: the one given, none, or chosen by its environment.
ReferenceChoice reference_for(const ReportInputs& in, const RunData& run) {
  if (in.no_reference) return {nullptr, "--reference none"};
  if (in.given_reference != nullptr) {
    const auto differs = mismatch(*in.given_reference, run);
    return {in.given_reference, differs.empty()
                                    ? "given with --reference"
                                    : fmt::format("given with --reference, though made for another "
                                                  "environment: {}",
                                                  differs)};
  }
  static const std::vector<Reference> none;
  return choose_reference(in.references != nullptr ? *in.references : none, run);
}

// The envelope's figures judged as acceptance checks (a figure's floor is its rule's expect).
void add_reference_checks(const ReportInputs& in, RunReport& run, std::vector<Check>& checks) {
  const auto* ref = run.reference.reference;
  if (ref == nullptr) return;
  auto judged =
      evaluate(ref->figures, *run.run, run.label, in.baselines, in.regression.alpha, false);
  for (const auto& c : judged)
    if (c.verdict != CheckVerdict::kNotMeasured) ++run.reference_figures_judged;
  checks.insert(checks.end(), judged.begin(), judged.end());
}

}  // namespace

Report build_report(const ReportInputs& in) {
  Report r;
  r.regression_options = in.regression;
  const auto& runs = *in.runs;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    // A soak is judged round by round beside the run's own judgements (both only read the run):
    // a day's soak is thousands of rounds.
    auto* stream = in.soak_streams != nullptr && i < in.soak_streams->size()
                       ? &(*in.soak_streams)[i]
                       : nullptr;
    // Judged while read, the run's cases gave their watched series to the soak's rounds: the
    // run's watch judgement is the rounds' joined.
    const bool streamed = stream != nullptr && stream->judged_while_read();
    auto soak = std::async(std::launch::async, [&, i, stream] {
      return stream != nullptr ? stream->finish(runs[i])
                               : analyse_soak(runs[i], in.labels[i], in.soak, in.outliers);
    });
    auto judged = judge_outliers(runs[i], in.outliers);
    std::optional<WatchJudgement> own;
    if (!streamed) own = watch_judgement(runs[i]);
    auto soak_summary = soak.get();
    const WatchJudgement& watch = streamed ? stream->watch() : *own;
    r.runs.push_back({&runs[i], in.labels[i], std::move(judged.outliers),
                      std::move(judged.not_judged), watch.findings(runs[i]), watch.not_judged()});
    auto& run = r.runs.back();
    run.outcomes = case_outcomes(runs[i]);
    run.hosts = distinct_hosts(runs[i]);
    run.host_of_node = host_of_node(runs[i]);
    run.rank0_host = rank0_host(runs[i]);
    run.figures = headline_figures(runs[i]);
    run.soak = std::move(soak_summary);
    auto environment = env_check_failures(runs[i], in.labels[i]);
    r.checks.insert(r.checks.end(), environment.begin(), environment.end());
    if (in.outliers.slow_fails) {
      auto slow = slow_node_checks(r.runs.back(), in.outliers);
      r.checks.insert(r.checks.end(), slow.begin(), slow.end());
    }
    auto series = scaling_series(runs[i], in.labels[i]);
    r.scaling.insert(r.scaling.end(), series.begin(), series.end());
    auto fits = plugins::fits(runs[i], in.labels[i]);
    r.fits.insert(r.fits.end(), fits.begin(), fits.end());
    auto builtin = builtin_checks(runs[i], in.labels[i]);
    r.checks.insert(r.checks.end(), builtin.begin(), builtin.end());
    r.runs.back().reference = reference_for(in, runs[i]);
    add_reference_checks(in, r.runs.back(), r.checks);
    if (in.rules != nullptr) {
      auto checks = evaluate(*in.rules, runs[i], in.labels[i], in.baselines, in.regression.alpha);
      r.checks.insert(r.checks.end(), checks.begin(), checks.end());
    }
    if (!in.baselines.empty()) {
      r.regressions.push_back(
          {in.baselines, &runs[i], compare_runs(in.baselines, runs[i], in.regression)});
      for (const auto* b : in.baselines)
        r.regressions.back().host_load.push_back(run_host_load(*b));
      r.regressions.back().host_load.push_back(run_host_load(runs[i]));
    }
  }
  for (const auto& run : r.runs) plugins::add_sections(run, r.sections);
  r.findings = find_bottlenecks(r.runs, r.scaling);
  if (in.outliers.slow_fails) {
    auto named = suspect_checks(r.findings);
    r.checks.insert(r.checks.end(), named.begin(), named.end());
  }
  if (in.catalogue != nullptr && runs.size() >= 2) {
    std::vector<const RunData*> pointers;
    for (const auto& run : runs) pointers.push_back(&run);
    r.instances = compare_instances(pointers, in.labels, *in.catalogue, in.regression.alpha,
                                    in.regression.min_change);
  }
  add_not_measured(r, runs);
  return r;
}

}  // namespace preflight::report
