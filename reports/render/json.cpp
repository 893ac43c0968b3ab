#include "render/json.hpp"

#include <nlohmann/json.hpp>

#include <cmath>

#include "analysis/report_text.hpp"
#include "analysis/verdict_reasons.hpp"

namespace preflight::report {
namespace {

using nlohmann::json;

// NaN is written as null (nlohmann does so for any non-finite number).
json checks(const Report& r) {
  json out = json::array();
  for (const auto& c : r.checks)
    out.push_back({{"rule", c.rule},
                   {"run", c.run_label},
                   {"case", c.case_name},
                   {"size", c.size},
                   {"metric", c.metric},
                   {"unit", c.unit},
                   {"better", c.better},
                   {"value", c.value},
                   {"ci_low", c.ci_low},
                   {"ci_high", c.ci_high},
                   {"expected", c.expected},
                   {"threshold", c.threshold},
                   {"samples", c.samples},
                   {"verdict", name_of(c.verdict)},
                   {"reason", c.reason}});
  return out;
}

json findings(const Report& r) {
  json out = json::array();
  int rank = 0;
  for (const auto& f : r.findings)
    out.push_back({{"rank", ++rank},
                   {"stage", name_of(f.stage)},
                   {"run", f.run_label},
                   {"title", f.title},
                   {"evidence", f.evidence},
                   {"next_check", f.next_check},
                   {"trustworthy", f.trustworthy},
                   {"caveat", f.caveat}});
  return out;
}

// Every host and link a finding names, in the findings' order: what a script acts on.
json suspects(const Report& r) {
  json out = json::array();
  int rank = 0;
  for (const auto& f : r.findings) {
    ++rank;
    for (const auto& s : f.suspects) {
      out.push_back({{"kind", s.kind},
                     {"hosts", s.hosts},
                     {"action", s.action},
                     {"run", f.run_label},
                     {"finding", rank}});
      if (s.kind == kDeviceSuspect) {  // the rank and its GPU's UUID ("" for a CPU)
        out.back()["rank"] = s.rank;
        out.back()["device"] = s.device;
      }
      if (!s.pattern.empty()) {  // a soak's suspect: what to do, and when it was named
        out.back()["remediation"] = schema::name_of(s.remediation);
        out.back()["pattern"] = s.pattern;
      }
    }
  }
  return out;
}

// The envelope the run was judged against (null name: peers only).
json reference(const RunReport& run) {
  const auto* ref = run.reference.reference;
  return {{"name", ref != nullptr ? json(ref->name) : json(nullptr)},
          {"title", ref != nullptr ? ref->title : ""},
          {"path", ref != nullptr ? ref->path : ""},
          {"made_from", ref != nullptr ? ref->made_from : ""},
          {"why", run.reference.why},
          {"detail", run.reference.detail},
          {"checks", run.reference_figures_judged}};
}

json soak_pattern(const SoakSummary& s, const SoakPattern& p) {
  json rounds = json::array(), times = json::array();
  for (auto k : p.rounds) {
    rounds.push_back(s.rounds[k].repetition);
    times.push_back(s.rounds[k].start_time);
  }
  const bool drift = p.kind == SoakPatternKind::kDrift;
  json out = {{"kind", name_of(p.kind)},
              {"subject_kind", p.subject.kind},
              {"subject", subject_text(p.subject)},
              {"hosts", p.subject.hosts},
              {"what", p.subject.what},
              {"rounds", drift ? json::array() : rounds},
              {"start_times", drift ? json::array() : times},
              {"episodes", p.episodes},
              {"chance_p", std::isnan(p.chance_p) ? json(nullptr) : json(p.chance_p)},
              {"slope_per_round", drift ? json(p.slope) : json(nullptr)},
              {"slope_ci", drift ? json::array({p.slope_low, p.slope_high}) : json(nullptr)},
              {"p", drift ? json(p.p) : json(nullptr)},
              {"remediation", schema::name_of(p.remedy)},
              {"why", p.why},
              {"evidence", p.evidence}};
  if (p.kind == SoakPatternKind::kStep) out["step_from"] = s.rounds[p.step_from].repetition;
  if (p.subject.kind == kDeviceSuspect) {
    out["rank"] = p.subject.rank;
    out["device"] = p.subject.device;
  }
  return out;
}

// A soak read round by round (docs/report.md, "Soaks"): its rounds, every node's verdict with
// its patterns and commands, the links named, every node drifting together.
json soak(const SoakSummary& s) {
  json times = json::array(), nodes = json::array(), links = json::array();
  for (const auto& r : s.rounds) times.push_back(r.start_time);
  for (const auto& n : s.nodes) {
    json patterns = json::array();
    for (auto i : n.patterns) patterns.push_back(soak_pattern(s, s.patterns[i]));
    nodes.push_back({{"node", n.node},
                     {"host", n.host},
                     {"verdict", soak_verdict(n.verdict)},
                     {"patterns", patterns},
                     {"commands", n.commands},
                     {"figure", n.figure}});
  }
  for (auto i : s.links) links.push_back(soak_pattern(s, s.patterns[i]));
  json shared = nullptr;
  if (s.shared_drift)
    shared = {{"slope_per_round", s.shared_drift->slope},
              {"slope_ci", {s.shared_drift->slope_low, s.shared_drift->slope_high}},
              {"p", s.shared_drift->p},
              {"called", s.shared_drift->called}};
  return {{"rounds", s.rounds.size()},
          {"soak_s", s.soak_s},
          {"round_start_times", times},
          {"nodes", nodes},
          {"links", links},
          {"shared_drift", shared},
          {"notes", s.notes}};
}

json runs(const Report& r) {
  json out = json::array();
  for (const auto& run : r.runs) {
    json outliers = json::array();
    for (const auto& o : run.outliers)
      outliers.push_back({{"kind", o.kind},
                          {"name", o.name},
                          {"ranks", o.ranks},
                          {"ratio", o.ratio},
                          {"robust_z", o.z},
                          {"sizes", o.sizes}});
    json env_checks = json::array();
    for (const auto& c : run.run->env_checks)
      env_checks.push_back({{"check", c.check},
                            {"status", c.status},
                            {"where", c.where},
                            {"detail", c.detail},
                            {"fix", c.fix}});
    json device_watch = json::array();
    for (const auto& w : run.watch_findings)
      device_watch.push_back({{"finding", w.finding},
                              {"series", w.series},
                              {"rank", w.rank},
                              {"device", w.device},
                              {"detail", w.detail},
                              {"cases", w.cases}});
    json scheduler = json::object();
    for (const auto& [key, value] : run.run->scheduler) scheduler[key] = value;
    out.push_back({{"label", run.label},
                   {"path", run.run->path},
                   {"status", run.run->status},
                   {"exit_code", run.run->exit_code},
                   {"world_size", run.run->world_size},
                   {"node_count", run.run->node_count},
                   {"git_revision", run.run->git_revision},
                   {"start_time", run.run->start_time},
                   {"cases", run.run->cases.size()},
                   {"outliers", outliers},
                   {"outliers_not_judged", run.outliers_not_judged},
                   {"skipped", run.run->skipped},
                   {"env_checks", env_checks},
                   {"device_watch", device_watch},
                   {"device_watch_not_judged", run.watch_not_judged},
                   {"reference", reference(run)},
                   {"scheduler", scheduler}});
    if (run.soak) out.back()["soak"] = soak(*run.soak);
  }
  return out;
}

json scaling(const Report& r) {
  json out = json::array();
  for (const auto& s : r.scaling) {
    json points = json::array();
    for (const auto& p : s.points)
      points.push_back({{"nodes", p.nodes},
                        {"ranks", p.ranks},
                        {"value", p.value},
                        {"efficiency", p.efficiency},
                        {"cases", p.cases}});
    out.push_back({{"run", s.run_label},
                   {"family", s.family},
                   {"subject", s.subject},
                   {"topology", s.topology},  // names-ok: verdict JSON key (the series)
                   {"band", s.band},
                   {"metric", s.metric},
                   {"unit", s.unit},
                   {"reference_nodes", s.reference_nodes},
                   {"reference_ranks", s.reference_ranks},
                   {"aggregate", s.aggregate},
                   {"points", points}});
  }
  return out;
}

json sections(const Report& r) {
  json out = json::array();
  for (const auto& s : r.sections) {
    json charts = json::array();
    for (const auto& c : s.charts) {
      json series = json::array();
      for (const auto& line : c.series)
        series.push_back({{"label", line.label}, {"x", line.x}, {"y", line.y}});
      charts.push_back({{"title", c.title},
                        {"x_label", c.x_label},
                        {"y_label", c.y_label},
                        {"log_x", c.log_x},
                        {"log_y", c.log_y},
                        {"series", series}});
    }
    out.push_back({{"id", s.id},
                   {"title", s.title},
                   {"lines", s.lines},
                   {"header", s.header},
                   {"rows", s.rows},
                   {"charts", charts}});
  }
  return out;
}

json fits(const Report& r) {
  json out = json::array();
  for (const auto& f : r.fits) {
    json predictions = json::array();
    for (const auto& p : f.predictions)
      predictions.push_back({{"nodes", p.nodes},
                             {"ranks", p.ranks},
                             {"size_bytes", p.size},  // names-ok: verdict JSON key (a prediction)
                             {"ring_s", p.ring_s},
                             {"tree_s", p.tree_s}});
    out.push_back({{"run", f.run_label},
                   {"subject", f.subject},
                   {"collective", f.collective},
                   {"topology", f.topology},  // names-ok: verdict JSON key (the fit)
                   {"alpha_s", f.alpha_s},
                   {"beta_s_per_byte", f.beta_s_per_byte},
                   {"points", f.points},
                   {"median_rel_error", f.median_rel_error},
                   {"model", f.model},
                   {"predictions", predictions},
                   {"caveat", f.caveat}});
  }
  return out;
}

json regressions(const Report& r) {
  json out = json::array();
  for (const auto& s : r.regressions) {
    json env = json::array(), changed = json::array();
    for (const auto& e : s.result.environment)
      env.push_back({{"what", e.what}, {"baseline", e.baseline}, {"current", e.current}});
    json points = json::array();
    for (const auto& p : s.result.points) {
      json point = {{"case", p.case_name},
                    {"size", p.size},
                    {"baseline_median_s", p.test.baseline},
                    {"current_median_s", p.test.current},
                    {"change", p.test.change},
                    {"change_interval", {p.test.ci_low, p.test.ci_high}},
                    {"noise", p.test.noise},
                    {"replicate_level", name_of(p.test.level)},
                    {"baseline_replicates", p.test.baseline_n},
                    {"current_replicates", p.test.current_n},
                    {"p_value", p.test.p_value},
                    {"discovery", p.discovery},
                    {"withheld", p.withheld},
                    {"replicates_to_decide", p.needed},
                    {"verdict", name_of(p.verdict)}};
      if (p.test.level == ReplicateLevel::kRuns) {
        const auto& n = p.test.runs;
        // JSON has no infinity: the prior's df is null when the points' spreads agreed.
        point["noise_estimate"] = {{"df", p.test.df},
                                   {"own", n.own},
                                   {"own_df", n.own_df},
                                   {"prior_df", std::isinf(n.prior_df) ? json() : json(n.prior_df)},
                                   {"prior_points", n.prior_points},
                                   {"moderated", n.prior_df > 0},
                                   {"repetition", n.repetition},
                                   {"repetition_df", n.repetition_df},
                                   {"repetitions_per_run", n.repetitions_per_run},
                                   {"floored", n.floored}};
      }
      if (p.verdict != Verdict::kSame) changed.push_back(point);
      points.push_back(std::move(point));
    }
    json baselines = json::array(), host_load = json::array();
    for (const auto* b : s.baselines) baselines.push_back(b->path);
    auto load_of = [](const RunData& run, const RunHostLoad& load) {
      return json{{"run", run.path},
                  {"stolen", load.stolen},
                  {"foreign", load.foreign},
                  {"cases_measured", load.cases_measured}};
    };
    // s.host_load is in the same order: each baseline, then the current run.
    auto loaded = s.baselines;
    loaded.push_back(s.current);
    for (std::size_t k = 0; k < loaded.size() && k < s.host_load.size(); ++k)
      host_load.push_back(load_of(*loaded[k], s.host_load[k]));
    out.push_back({{"baselines", baselines},
                   {"method", regression_method(r.regression_options)},
                   {"current", s.current->path},
                   {"alpha", r.regression_options.alpha},
                   {"min_change", r.regression_options.min_change},
                   {"environment_changes", env},
                   {"withheld", s.result.withheld},
                   {"host_load", host_load},
                   {"notes", s.result.notes},
                   {"changed", changed},
                   {"points", points},
                   {"compared", s.result.points.size()},
                   {"slower", s.result.count(Verdict::kSlower)},
                   {"faster", s.result.count(Verdict::kFaster)},
                   {"undecided", s.result.count(Verdict::kUndecided)},
                   {"unmatched", s.result.unmatched}});
  }
  return out;
}

json instances(const Report& r) {
  if (!r.instances) return nullptr;
  const auto& cmp = *r.instances;
  json rows = json::array();
  for (const auto& row : cmp.rows) {
    json cells = json::array();
    for (const auto& c : row.cells)
      cells.push_back({{"value", c.value}, {"per_dollar", c.per_dollar}});
    rows.push_back({{"subject", row.subject},
                    {"metric", row.metric},
                    {"unit", row.unit},
                    {"cells", cells},
                    {"winner", cmp.labels[static_cast<std::size_t>(row.winner)]},
                    {"clear", row.clear}});
  }
  return {{"currency", cmp.currency},
          {"labels", cmp.labels},
          {"prices_per_hour", cmp.prices},
          {"wins", cmp.wins},
          {"clear_wins", cmp.clear_wins},
          {"warnings", cmp.warnings},
          {"rows", rows}};
}

json reasons_json(const std::vector<VerdictReason>& reasons) {
  json out = json::array();
  for (const auto& r : reasons)
    out.push_back(
        {{"kind", name_of(r.kind)}, {"text", r.text}, {"count", r.count}, {"counted", r.counted}});
  return out;
}

}  // namespace

std::string render_json(const Report& report) {
  const auto n = count_checks(report);
  const auto reasons = verdict_reasons(report);
  const json doc = {{"schema", "preflight-report-verdict/1"},
                    {"verdict", overall_verdict(report)},
                    {"headline", verdict_headline(report, reasons)},
                    {"reasons", reasons_json(reasons)},
                    {"exit_code", report.exit_code()},
                    {"counts",
                     {{"pass", n.pass},
                      {"fail", n.fail},
                      {"inconclusive", n.inconclusive},
                      {"not_measured", n.not_measured}}},
                    {"judged_against", judged_against(report)},
                    {"runs", runs(report)},
                    {"checks", checks(report)},
                    {"findings", findings(report)},
                    {"suspects", suspects(report)},
                    {"not_measured", report.not_measured},
                    {"scaling", scaling(report)},
                    {"fits", fits(report)},
                    {"sections", sections(report)},
                    {"regressions", regressions(report)},
                    {"instances", instances(report)}};
  return doc.dump(2) + "\n";
}

}  // namespace preflight::report
