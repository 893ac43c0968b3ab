#include "render/terminal.hpp"

#include <fmt/color.h>
#include <fmt/format.h>

#include <cmath>
#include <map>

#include "analysis/case_table.hpp"
#include "analysis/format.hpp"
#include "analysis/report_text.hpp"
#include "analysis/verdict_reasons.hpp"
#include "preflight/schema/layout.hpp"
#include "render/text_format.hpp"

namespace preflight::report {
namespace {

std::string number(double v, double scale, int decimals) {
  return std::isnan(v) ? std::string("-") : fmt::format("{:.{}f}", v * scale, decimals);
}

void print_case(std::FILE* out, const CaseTable& c) {
  fmt::print(out, "\n{} {} [{}]\n", c.group_name, c.name, c.status);
  if (c.timeout_message) fmt::print(out, "  {}\n", *c.timeout_message);
  if (!c.has_points) return;
  fmt::print(out, "  {:>12} {:>6} {:>11} {:>11} {:>7}",
             c.x_column == "point" ? std::string("point")
                                   : fmt::format("size({})", c.x_unit.empty() ? "-" : c.x_unit),
             "iters", "median(us)", "p95(us)", "cv(%)");
  for (const auto& m : c.metrics)
    fmt::print(out, " {:>12}", m.unit.empty() ? m.name : fmt::format("{}({})", m.name, m.unit));
  fmt::print(out, " {:>7}\n", "wrong");
  for (const auto& row : c.rows) {
    fmt::print(out, "  {:>12} {:>6} {:>11} {:>11} {:>7}", number(row.x, 1, 0),
               number(row.iterations, 1, 0), number(row.time_median, 1e6, 2),
               number(row.time_p95, 1e6, 2), number(row.time_cv, 100, 1));
    for (double m : row.metrics) fmt::print(out, " {:>12}", figure(m, 4));
    fmt::print(out, " {:>7}\n", number(row.wrong, 1, 0));
  }
}

// The scheduler's facts, then the environment checks: a count, and every line that needs a look.
void print_env_checks(std::FILE* out, const RunData& run) {
  if (!run.scheduler.empty()) {
    std::string facts;
    for (const auto& [key, value] : run.scheduler)
      facts += fmt::format("{}{} {}", facts.empty() ? "" : ", ", key, value);
    fmt::print(out, "# scheduler: {}\n", facts);
  }
  if (run.env_checks.empty()) return;
  namespace status = schema::env_check_status;
  std::map<std::string, int, std::less<>> count;
  for (const auto& c : run.env_checks) ++count[c.status];
  fmt::print(out, "# environment checks: {}: {} pass, {} warn, {} fail, {} skipped\n",
             run.env_checks.size(), count[std::string(status::kPass)],
             count[std::string(status::kWarn)], count[std::string(status::kFail)],
             count[std::string(status::kSkipped)]);
  for (const auto& c : run.env_checks)
    if (c.status == status::kWarn || c.status == status::kFail)
      fmt::print(out, "#   [{}] {} ({}): {}{}\n", c.status, c.check, c.where, c.detail,
                 c.fix.empty() ? "" : "; fix: " + c.fix);
}

void print_run(std::FILE* out, const RunReport& r) {
  const auto& run = *r.run;
  const auto& outcomes = r.outcomes;
  fmt::print(out,
             "# {}: run {} (exit {}), {} ranks on {} nodes, {} case(s), {} failed, {} timed out\n",
             run.path, run.status, run.exit_code, run.world_size, run.node_count, run.cases.size(),
             outcomes.failed, outcomes.timed_out);
  fmt::print(out, "# preflight {} · started {} · {}\n", run.git_revision, run.start_time,
             run.command_line);
  for (const auto& s : run.skipped) fmt::print(out, "# skipped: {}\n", s);
  print_env_checks(out, run);
  for (const auto& why : r.outliers_not_judged) fmt::print(out, "# not judged: {}\n", why);
  if (r.outliers.empty())
    fmt::print(out, "# slow nodes or ranks: none found{}\n",
               r.outliers_not_judged.empty() ? "" : " among what could be judged");
  for (const auto& o : r.outliers) {
    if (o.kind == "late rank")
      fmt::print(out,
                 "# late rank: {} arrives late, its own time {:.2f}x its peers' "
                 "(robust z {:.1f}) over {} sizes\n",
                 o.name, o.ratio, o.z, o.sizes);
    else
      fmt::print(out,
                 "# slow {}: {} (ranks {}): {:.2f}x its peers' typical time (robust z {:.1f}) over "
                 "{} sizes\n",
                 o.kind, o.name, join_ranks(o.ranks), o.ratio, o.z, o.sizes);
  }
}

void print_findings(std::FILE* out, const Report& report) {
  fmt::print(out, "\n## Bottlenecks, most important first\n");
  if (report.findings.empty()) fmt::print(out, "none found\n");
  int n = 0;
  for (const auto& f : report.findings) {
    fmt::print(out, "{}. [{}{}] {}: {}\n", ++n, name_of(f.stage),
               f.trustworthy ? "" : ", not trustworthy", f.run_label, f.title);
    if (!f.caveat.empty()) fmt::print(out, "     NOT TRUSTWORTHY: {}\n", f.caveat);
    for (const auto& e : f.evidence) fmt::print(out, "     - {}\n", e);
    fmt::print(out, "     next: {}\n", f.next_check);
  }
  for (const auto& s : report.not_measured) fmt::print(out, "not measured: {}\n", s);
}

// A soak's rounds, then every node: its verdict, its patterns and what an operator runs.
void print_soak(std::FILE* out, const RunReport& r) {
  if (!r.soak) return;
  const auto& s = *r.soak;
  fmt::print(out, "\n## Soak of {}: {} round{} over {:g} s", r.label, s.rounds.size(),
             s.rounds.size() == 1 ? "" : "s", s.soak_s);
  if (!s.rounds.empty() && !s.rounds.front().start_time.empty())
    fmt::print(out, ", first started {}, last {}", s.rounds.front().start_time,
               s.rounds.back().start_time);
  fmt::print(out, "\n");
  if (s.shared_drift)
    fmt::print(out,
               "  every node together: {:+.2f}% per round (95% interval {:+.2f}% to "
               "{:+.2f}%, p {:.2g}){}\n",
               100 * s.shared_drift->slope, 100 * s.shared_drift->slope_low,
               100 * s.shared_drift->slope_high, s.shared_drift->p,
               s.shared_drift->called ? ": DRIFT shared by every node (cooling, power, a shared "
                                        "service: look at what they have in common)"
                                      : "");
  for (const auto& node : s.nodes) {
    fmt::print(out, "  {:<20} {:<8}", node.node, soak_verdict(node.verdict));
    if (node.patterns.empty()) fmt::print(out, " no pattern");
    fmt::print(out, "\n");
    for (auto i : node.patterns) fmt::print(out, "    - {}\n", soak_pattern_line(s, s.patterns[i]));
    for (const auto& c : node.commands) fmt::print(out, "    $ {}\n", c);
  }
  for (auto i : s.links) fmt::print(out, "  link: {}\n", soak_pattern_line(s, s.patterns[i]));
  for (const auto& n : s.notes) fmt::print(out, "  note: {}\n", n);
}

void print_checks(std::FILE* out, const Report& report, bool colour) {
  const auto n = count_checks(report);
  fmt::print(out, "\n## Acceptance: {} checks, {} pass, {} fail, {} inconclusive\n",
             report.checks.size(), n.pass, n.fail, n.inconclusive);
  for (const auto& c : report.checks) {
    if (c.verdict == CheckVerdict::kPass) continue;
    const auto style =
        colour ? fmt::fg(c.verdict == CheckVerdict::kFail ? fmt::color::red : fmt::color::orange)
               : fmt::text_style();
    fmt::print(out, style, "{:<12}", name_of(c.verdict));
    fmt::print(out, " {} | {} | {} {} | {} = {} {} (expected {}, threshold {}): {}\n", c.rule,
               c.run_label, c.case_name, c.size, c.metric, figure(c.value), c.unit,
               figure(c.expected), figure(c.threshold), c.reason);
  }
}

void print_scaling(std::FILE* out, const Report& report) {
  if (report.scaling.empty()) return;
  fmt::print(out,
             "\n## Scaling (efficiency against each series' reference scale, named on its line: "
             "per-rank figures, the first multi-node scale, or the smallest when there is only "
             "one multi-node scale; aggregate figures, per rank against the fewest ranks)\n");
  for (const auto& s : report.scaling) {
    fmt::print(out, "{} | {} ({}){}: {}, against {:g} node{} ({:g} ranks){}\n", s.run_label,
               s.subject, s.topology, s.band.empty() ? "" : ", " + band_text(s.band), s.metric,
               s.reference_nodes, s.reference_nodes == 1 ? "" : "s", s.reference_ranks,
               s.aggregate ? ", per rank" : "");
    for (const auto& p : s.points)
      fmt::print(out, "  {:>6g} nodes {:>6g} ranks  {:>10} {}  {:>5}%\n", p.nodes, p.ranks,
                 figure(p.value), s.unit, figure(p.efficiency * 100, 3));
  }
}

void print_fits(std::FILE* out, const Report& report) {
  if (report.fits.empty()) return;
  fmt::print(out, "\n## Latency-bandwidth (alpha-beta) fits and predictions\n");
  for (const auto& f : report.fits) {
    fmt::print(out,
               "{} | {} ({}): alpha {} us, beta {} GB/s, {} points, median error {:.0f}%; model "
               "{}\n",
               f.run_label, f.subject, f.topology, figure(f.alpha_s * 1e6, 3),
               figure(f.beta_s_per_byte > 0 ? 1e-9 / f.beta_s_per_byte : NAN, 3), f.points,
               f.median_rel_error * 100, f.model);
    if (!f.caveat.empty()) fmt::print(out, "  NOT TRUSTWORTHY: {}\n", f.caveat);
    for (const auto& p : f.predictions)
      fmt::print(out, "  predicted at {:g} nodes ({:g} ranks), {:.0f} B: ring {} us, tree {} us\n",
                 p.nodes, p.ranks, p.size, figure(p.ring_s * 1e6, 4), figure(p.tree_s * 1e6, 4));
  }
}

// Plug-ins' sections: the title, the lines, the table one row after the other (a cell per
// header entry), then each chart's points.
void print_sections(std::FILE* out, const Report& report) {
  for (const auto& s : report.sections) {
    fmt::print(out, "\n## {}\n", s.title);
    for (const auto& line : s.lines) fmt::print(out, "  {}\n", line);
    for (const auto& row : s.rows) {
      fmt::print(out, "\n");
      for (std::size_t i = 0; i < row.size() && i < s.header.size(); ++i)
        fmt::print(out, "  {:<14} {}\n", s.header[i], row[i]);
    }
    for (const auto& chart : s.charts) {
      fmt::print(out, "\n  chart: {}\n", chart.title);
      for (const auto& line : chart_as_text(chart)) fmt::print(out, "    {}\n", line);
    }
  }
}

void print_regression(std::FILE* out, const RegressionSection& s,
                      const RegressionOptions& options) {
  const auto& report = s.result;
  fmt::print(out, "\n## Regression: {} against baseline {}\n", s.current->path, baseline_paths(s));
  if (report.environment.empty()) fmt::print(out, "# environment: no change\n");
  for (const auto& e : report.environment)
    fmt::print(out, "# environment changed: {}: {} -> {}\n", e.what, e.baseline.substr(0, 200),
               e.current.substr(0, 200));
  for (const auto& n : report.notes) fmt::print(out, "# {}\n", n);
  if (!report.withheld.empty()) fmt::print(out, "# verdicts withheld: {}\n", report.withheld);
  for (const auto& u : report.unmatched) fmt::print(out, "# {}\n", u);
  // Names are never cut: rows of different cases must not look alike.
  std::size_t width = 4;
  for (const auto& p : report.points) width = std::max(width, p.case_name.size());
  fmt::print(out, "\n{:<{}} {:>10} {:>12} {:>12} {:>9}  {}\n", "case", width, "point", "base(us)",
             "now(us)", "verdict", "change [interval], run-to-run noise, replicates");
  for (const auto& p : report.points) {
    fmt::print(out, "{:<{}} {:>10} {:>12.2f} {:>12.2f} {:>9}  {}\n", p.case_name, width, p.size,
               p.test.baseline * 1e6, p.test.current * 1e6, name_of(p.verdict),
               regression_evidence(p));
  }
  fmt::print(out, "\n# {} size(s) compared: {} slower, {} faster, {} same, {} undecided ({})\n",
             report.points.size(), report.count(Verdict::kSlower), report.count(Verdict::kFaster),
             report.count(Verdict::kSame), report.count(Verdict::kUndecided),
             regression_method(options));
}

void print_instances(std::FILE* out, const InstanceComparison& cmp) {
  fmt::print(out, "\n## Instance comparison (throughput per {} per hour)\n", cmp.currency);
  for (const auto& w : cmp.warnings) fmt::print(out, "  warning: {}\n", w);
  for (std::size_t i = 0; i < cmp.labels.size(); ++i)
    fmt::print(out, "  {}: {:g} {}/h, best per dollar in {} of {} rows ({} beyond the noise)\n",
               cmp.labels[i], cmp.prices[i], cmp.currency, cmp.wins[i], cmp.rows.size(),
               cmp.clear_wins[i]);
  for (const auto& row : cmp.rows) {
    fmt::print(out, "  {:<56} {:<6}", row.subject, row.metric);
    for (const auto& cell : row.cells)
      fmt::print(out, " {:>10} ({:>9}/$)", figure(cell.value, 4), figure(cell.per_dollar, 3));
    fmt::print(out, "  winner {}{}\n", cmp.labels[static_cast<std::size_t>(row.winner)],
               row.clear ? "" : " (within the noise)");
  }
}

void print_verdict(std::FILE* out, const Report& report, const std::vector<VerdictReason>& reasons,
                   bool colour) {
  const auto style = !colour                   ? fmt::text_style()
                     : report.exit_code() == 0 ? fmt::fg(fmt::color::green)
                     : report.exit_code() == 1 ? fmt::fg(fmt::color::red)
                                               : fmt::fg(fmt::color::orange);
  fmt::print(out, style, "verdict: {}", verdict_headline(report, reasons));
  fmt::print(out, "\n");
}

}  // namespace

// The verdict and its reasons first, then what matters (what changed, what holds the cluster
// back), the case tables last, and the verdict again at the very end where a terminal leaves
// it in view.
void print_report(std::FILE* out, const Report& report, bool colour) {
  const auto reasons = verdict_reasons(report);
  print_verdict(out, report, reasons, colour);
  for (const auto& r : reasons) fmt::print(out, "  {:<12} {}\n", name_of(r.kind), r.text);
  fmt::print(out, "\n");
  for (const auto& r : report.runs) print_run(out, r);
  for (const auto& s : report.regressions) print_regression(out, s, report.regression_options);
  print_findings(out, report);
  for (const auto& r : report.runs) print_soak(out, r);
  if (report.instances) print_instances(out, *report.instances);
  print_scaling(out, report);
  print_fits(out, report);
  print_sections(out, report);
  for (const auto& r : report.runs) {
    fmt::print(out, "\n## Cases of {}\n", r.run->path);
    for (const auto& c : case_tables(*r.run)) print_case(out, c);
  }
  print_checks(out, report, colour);
  fmt::print(out, "\n");
  print_verdict(out, report, reasons, colour);
}

}  // namespace preflight::report
