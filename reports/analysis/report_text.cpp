#include "analysis/report_text.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace preflight::report {

const char* overall_verdict(const Report& report) {
  switch (report.exit_code()) {
    case 0:
      return "pass";
    case 1:
      return "fail";
    default:
      return "inconclusive";
  }
}

VerdictCounts count_checks(const Report& report) {
  VerdictCounts n;
  for (const auto& c : report.checks) {
    n.pass += c.verdict == CheckVerdict::kPass;
    n.fail += c.verdict == CheckVerdict::kFail;
    n.inconclusive += c.verdict == CheckVerdict::kInconclusive;
    n.not_measured += c.verdict == CheckVerdict::kNotMeasured;
  }
  return n;
}

namespace {

std::string judged_against(const RunReport& r) {
  const auto* ref = r.reference.reference;
  if (ref != nullptr && r.reference_figures_judged > 0)
    return fmt::format("reference {} ({} check{} of its figures)", ref->name,
                       r.reference_figures_judged, r.reference_figures_judged == 1 ? "" : "s");
  if (ref != nullptr)
    return fmt::format("peers only: reference {} has no figure this run measured", ref->name);
  return fmt::format("peers only: {}", r.reference.why);
}

}  // namespace

std::string judged_against(const Report& report) {
  std::vector<std::string> parts;
  for (const auto& r : report.runs) {
    auto part = judged_against(r);
    if (report.runs.size() > 1) part = fmt::format("{}: {}", r.label, part);
    if (std::find(parts.begin(), parts.end(), part) == parts.end()) parts.push_back(part);
  }
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

std::string baseline_paths(const RegressionSection& s) {
  std::string out;
  for (std::size_t i = 0; i < s.baselines.size(); ++i)
    out += (i == 0 ? "" : i + 1 == s.baselines.size() ? " and " : ", ") + s.baselines[i]->path;
  if (s.baselines.size() > 1) out += fmt::format(" ({} runs)", s.baselines.size());
  return out;
}

std::string regression_method(const RegressionOptions& options) {
  return fmt::format(
      "each size's replicates are the repetitions of its case (one baseline run) or the runs "
      "with their repetitions (several baselines), never the iterations; one baseline run: exact "
      "rank-sum test of the repetitions, its p never below 2/C(2n,n) for n a side, since two "
      "launches can differ at one size by more than their repetitions spread; several: t test "
      "of the runs' log means against the run-to-run variance moderated over the sizes "
      "(empirical Bayes) and never below what the repetitions' own spread allows a run's mean; "
      "false discovery rate {:g} over the sizes (two-stage Benjamini-Hochberg); flagged only at "
      "{:.0f}% or more; same when the change's {:.0f}% interval lies within +-{:.0f}%, else "
      "undecided; a baseline whose hosts gave a share of their CPU to others (hypervisor steal, "
      "other processes) {:.0f} points or more from the current run's is left out, and with none "
      "left every size is withheld",
      options.alpha, options.min_change * 100, (1 - options.alpha) * 100, options.min_change * 100,
      options.max_host_contention_gap * 100);
}

std::string regression_evidence(const PointComparison& p) {
  if (!p.test.testable)
    return fmt::format("{} v {} {}: no noise estimate", p.test.current_n, p.test.baseline_n,
                       name_of(p.test.level));
  std::string out =
      fmt::format("{:+.1f}% [{:+.1f}%, {:+.1f}%], {}, {} v {} {}", p.test.change * 100,
                  p.test.ci_low * 100, p.test.ci_high * 100, describe_noise(p.test),
                  p.test.current_n, p.test.baseline_n, name_of(p.test.level));
  out += fmt::format(", p {:.2g}{}", p.test.p_value, p.discovery ? " (a discovery)" : "");
  if (p.withheld)
    out += "; withheld: no baseline was measured in the current run's host state";
  else if (p.needed > 0)
    out += fmt::format("; about {} per side would decide", p.needed);
  return out;
}

}  // namespace preflight::report
