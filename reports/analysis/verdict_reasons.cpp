#include "analysis/verdict_reasons.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "analysis/format.hpp"
#include "analysis/report_text.hpp"
#include "preflight/schema/layout.hpp"

namespace preflight::report {
namespace {

std::string plural(std::size_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

std::string check_line(const Check& c) {
  // A check that matched no case has no case, size or value: its reason says why.
  if (c.case_name.empty() && std::isnan(c.value))
    return fmt::format("{}: {}{}: {}", c.rule, c.run_label,
                       c.metric.empty() ? "" : " | " + c.metric, c.reason);
  // A check of something named, with no figure of its own (a suspect): what and why.
  if (std::isnan(c.value) && std::isnan(c.expected))
    return fmt::format("{}: {} | {}: {}", c.rule, c.run_label, c.case_name, c.reason);
  return fmt::format("{}: {} | {}{} | {} = {} {} (expected {}, threshold {}): {}", c.rule,
                     c.run_label, c.case_name, c.size.empty() ? "" : " " + c.size, c.metric,
                     figure(c.value), c.unit, figure(c.expected), figure(c.threshold), c.reason);
}

// "1 checks failed" -> "1 check failed": the counted phrase's first word made singular.
std::string counted_text(std::size_t n, const std::string& counted) {
  const auto space = counted.find(' ');
  const std::string first = counted.substr(0, space);
  if (n != 1 || first.size() < 2 || first.back() != 's') return counted;
  return first.substr(0, first.size() - 1) +
         (space == std::string::npos ? "" : counted.substr(space));
}

// How far a failed check is from its threshold, relative: orders a group's worst first.
double shortfall(const Check& c) {
  return c.threshold == 0 ? 0 : std::fabs(c.value - c.threshold) / std::fabs(c.threshold);
}

// Checks of one rule, run and verdict: each on its line, or one line with the count and the
// worst beyond kReasonsListed.
void add_checks(std::vector<VerdictReason>& out, const Report& report, CheckVerdict verdict,
                ReasonKind kind) {
  const std::string counted =
      verdict == CheckVerdict::kNotMeasured
          ? std::string("rules matched nothing")
          : fmt::format("checks {}", verdict == CheckVerdict::kFail ? "failed" : "inconclusive");
  std::map<std::tuple<std::string, std::string>, std::vector<const Check*>> groups;
  std::vector<std::tuple<std::string, std::string>> order;
  for (const auto& c : report.checks) {
    if (c.verdict != verdict) continue;
    // A reference figure not measured is not this rule's warning (add_unmeasured_figures).
    if (verdict == CheckVerdict::kNotMeasured && !std::isnan(c.typical)) continue;
    const auto key = std::make_tuple(c.rule, c.run_label);
    if (!groups.count(key)) order.push_back(key);
    groups[key].push_back(&c);
  }
  for (const auto& key : order) {
    auto& members = groups[key];
    if (members.size() <= kReasonsListed) {
      for (const Check* c : members) out.push_back({kind, check_line(*c), 1, counted});
      continue;
    }
    std::stable_sort(members.begin(), members.end(),
                     [](const Check* a, const Check* b) { return shortfall(*a) > shortfall(*b); });
    out.push_back({kind,
                   fmt::format("{}: {} {} in {}; the furthest from its threshold: {}",
                               std::get<0>(key), plural(members.size(), "check", "checks"),
                               name_of(verdict), std::get<1>(key), check_line(*members.front())),
                   members.size(), counted});
  }
}

// One regression section's sizes of one verdict: the largest changes one by one, the rest
// counted.
void add_sizes(std::vector<VerdictReason>& out, const RegressionSection& s, Verdict verdict,
               ReasonKind kind) {
  std::vector<const PointComparison*> points;
  for (const auto& p : s.result.points)
    if (p.verdict == verdict) points.push_back(&p);
  if (points.empty()) return;
  const std::string counted = fmt::format("sizes {}", name_of(verdict));
  std::stable_sort(points.begin(), points.end(), [](const auto* a, const auto* b) {
    return std::fabs(a->test.change) > std::fabs(b->test.change);
  });
  const std::size_t listed = points.size() <= kReasonsListed + 1 ? points.size() : kReasonsListed;
  for (std::size_t i = 0; i < listed; ++i)
    out.push_back({kind,
                   fmt::format("{}: {} {} against {}: {}", name_of(verdict), points[i]->case_name,
                               points[i]->size, baseline_paths(s), regression_evidence(*points[i])),
                   1, counted});
  if (listed < points.size())
    out.push_back({kind,
                   fmt::format("and {} more {} (the regression table lists every size)",
                               plural(points.size() - listed, "size", "sizes"), name_of(verdict)),
                   points.size() - listed, counted});
}

void add_cases(std::vector<VerdictReason>& out, const RunReport& r) {
  std::size_t failed = 0, timed_out = 0;
  for (const auto& c : r.run->cases) {
    if (c.status != schema::case_status::kFailed && c.status != schema::case_status::kTimeout)
      continue;
    (c.status == schema::case_status::kFailed ? failed : timed_out)++;
    if (failed + timed_out > kReasonsListed) continue;
    const auto message = c.get(schema::harness::kTimeoutMessage);
    out.push_back({ReasonKind::kFail,
                   fmt::format("case {}: {} {}{}", c.status, c.group_name, c.name,
                               message ? ": " + *message : std::string()),
                   1, "cases failed or timed out"});
  }
  if (failed + timed_out > kReasonsListed)
    out.push_back({ReasonKind::kFail,
                   fmt::format("{}: {} failed and {} timed out in all (the case tables list them)",
                               r.label, failed, timed_out),
                   failed + timed_out - kReasonsListed, "cases failed or timed out"});
}

// A device whose telemetry broke a declared rule: its device, what, the figures and the case
// (the first of those it was seen in, with how many more).
void add_watch_findings(std::vector<VerdictReason>& out, const RunReport& r) {
  for (const auto& f : r.watch_findings) {
    const std::size_t more = f.cases.size() - 1;
    out.push_back(
        {ReasonKind::kWarn,
         fmt::format(
             "{}: device watch: {}: {} ({}: {}) in case {}{}", r.label, f.device, f.finding,
             f.series, f.detail, f.cases.front(),
             more == 0 ? "" : fmt::format(" and {} more {}", more, more == 1 ? "case" : "cases")),
         1, "device warnings"});
  }
}

// The reference figures a run did not measure, one line per run: not judged, not a warning (an
// envelope covers more than one campaign measures; a rules file's rule was written for this one).
void add_unmeasured_figures(std::vector<VerdictReason>& out, const Report& report) {
  std::map<std::string, std::vector<std::string>> by_run;
  std::vector<std::string> order;
  for (const auto& c : report.checks) {
    if (c.verdict != CheckVerdict::kNotMeasured || std::isnan(c.typical)) continue;
    if (!by_run.count(c.run_label)) order.push_back(c.run_label);
    by_run[c.run_label].push_back(c.rule);
  }
  for (const auto& run : order) {
    const auto& rules = by_run[run];
    std::string names;
    for (const auto& r : rules) names += (names.empty() ? "" : "; ") + r;
    out.push_back(
        {ReasonKind::kNotJudged,
         fmt::format("{}: {} not measured by this run: {}", run,
                     plural(rules.size(), "reference figure", "reference figures"), names),
         rules.size(), "reference figures not measured"});
  }
}

}  // namespace

const char* name_of(ReasonKind kind) {
  switch (kind) {
    case ReasonKind::kFail:
      return "fail";
    case ReasonKind::kInconclusive:
      return "inconclusive";
    case ReasonKind::kWarn:
      return "warn";
    default:
      return "not judged";
  }
}

std::vector<VerdictReason> verdict_reasons(const Report& report) {
  std::vector<VerdictReason> out;
  add_checks(out, report, CheckVerdict::kFail, ReasonKind::kFail);
  for (const auto& s : report.regressions) add_sizes(out, s, Verdict::kSlower, ReasonKind::kFail);
  for (const auto& r : report.runs) add_cases(out, r);
  add_checks(out, report, CheckVerdict::kInconclusive, ReasonKind::kInconclusive);
  for (const auto& s : report.regressions)
    add_sizes(out, s, Verdict::kUndecided, ReasonKind::kInconclusive);
  for (const auto& r : report.runs)
    for (const auto& e : r.run->env_checks)
      if (e.status == schema::env_check_status::kWarn)
        out.push_back(
            {ReasonKind::kWarn,
             fmt::format("{}: environment: {} ({}): {}", r.label, e.check, e.where, e.detail), 1,
             "environment warnings"});
  for (const auto& r : report.runs) add_watch_findings(out, r);
  add_checks(out, report, CheckVerdict::kNotMeasured, ReasonKind::kWarn);
  add_unmeasured_figures(out, report);
  for (const auto& r : report.runs)
    for (const auto& s : r.run->skipped)
      out.push_back(
          {ReasonKind::kNotJudged, fmt::format("{}: skipped: {}", r.label, s), 1, "skipped"});
  for (const auto& r : report.runs)
    for (const auto& why : r.outliers_not_judged)
      out.push_back({ReasonKind::kNotJudged, fmt::format("{}: {}", r.label, why), 1, "not judged"});
  for (const auto& r : report.runs)
    for (const auto& why : r.watch_not_judged)
      out.push_back({ReasonKind::kNotJudged, fmt::format("{}: device watch {}", r.label, why), 1,
                     "not judged"});
  return out;
}

std::string verdict_headline(const Report& report, const std::vector<VerdictReason>& reasons) {
  // Each kind of reason counted, in the order the reasons come.
  std::vector<std::pair<std::string, std::size_t>> counts;
  for (const auto& r : reasons) {
    auto at = std::find_if(counts.begin(), counts.end(),
                           [&](const auto& c) { return c.first == r.counted; });
    if (at == counts.end()) at = counts.insert(counts.end(), {r.counted, 0});
    at->second += r.count;
  }
  std::string out = fmt::format("{} (exit {})", overall_verdict(report), report.exit_code());
  for (std::size_t i = 0; i < counts.size(); ++i)
    out += fmt::format("{}{} {}", i == 0 ? ": " : ", ", counts[i].second,
                       counted_text(counts[i].second, counts[i].first));
  const auto n = count_checks(report);
  out +=
      fmt::format("{}{}: {} pass, {} fail, {} inconclusive", counts.empty() ? ": " : "; ",
                  plural(report.checks.size(), "check", "checks"), n.pass, n.fail, n.inconclusive);
  if (n.not_measured > 0) out += fmt::format(", {} not measured", n.not_measured);
  out += "; judged against " + judged_against(report);
  return out;
}

}  // namespace preflight::report
