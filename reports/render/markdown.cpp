#include "render/markdown.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <cstring>
#include <map>
#include <set>

#include "analysis/format.hpp"
#include "analysis/report_text.hpp"
#include "analysis/verdict_reasons.hpp"
#include "preflight/schema/layout.hpp"
#include "render/html.hpp"
#include "render/text_format.hpp"

namespace preflight::report {
namespace {

// Text from a results or rules file, safe in a Markdown table cell: no raw HTML (wikis and
// forges render inline HTML), no links or images, no table breaks.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : escape_html(text)) {
    if (c == '\n' || c == '\r')
      out += ' ';
    else if (std::strchr("\\`*_[]()!|", c) != nullptr)  // Markdown syntax: links, images, emphasis
      out += {'\\', c};
    else
      out += c;
  }
  return out;
}

void runs(std::string& md, const Report& r) {
  md +=
      "\n## Runs\n\n| label | file | status | ranks | nodes | preflight | started |\n"
      "|---|---|---|---:|---:|---|---|\n";
  for (const auto& run : r.runs)
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", cell(run.label),
                      cell(run.run->path), cell(run.run->status), run.run->world_size,
                      run.run->node_count, cell(run.run->git_revision), cell(run.run->start_time));
}

// Each run's scheduler facts and environment checks, every check a row (fail and warn first).
void env_checks(std::string& md, const Report& r) {
  for (const auto& run : r.runs) {
    const RunData& data = *run.run;
    if (data.env_checks.empty() && data.scheduler.empty()) continue;
    md += fmt::format("\n## Environment of {}\n\n", cell(run.label));
    if (!data.scheduler.empty()) {
      std::string facts;
      for (const auto& [key, value] : data.scheduler)
        facts += fmt::format("{}{} {}", facts.empty() ? "" : " · ", cell(key), cell(value));
      md += fmt::format("Scheduler: {}\n\n", facts);
    }
    if (data.env_checks.empty()) continue;
    md += "| status | check | where | found | fix |\n|---|---|---|---|---|\n";
    namespace st = schema::env_check_status;
    for (const std::string_view status : {st::kFail, st::kWarn, st::kPass, st::kSkipped})
      for (const auto& c : data.env_checks)
        if (c.status == status)
          md += fmt::format(
              "| {} | {} | {} | {} | {} |\n",
              c.status == st::kFail || c.status == st::kWarn ? "**" + c.status + "**" : c.status,
              cell(c.check), cell(c.where), cell(c.detail), cell(c.fix));
  }
}

void findings(std::string& md, const Report& r) {
  md += "\n## Bottlenecks, most important first\n\n";
  if (r.findings.empty()) md += "None found.\n";
  int n = 0;
  for (const auto& f : r.findings) {
    md += fmt::format("{}. **{}**{} ({}): {}\n", ++n, name_of(f.stage),
                      f.trustworthy ? "" : " — not trustworthy", cell(f.run_label), cell(f.title));
    if (!f.caveat.empty()) md += fmt::format("   - **not trustworthy**: {}\n", cell(f.caveat));
    for (const auto& e : f.evidence) md += fmt::format("   - {}\n", cell(e));
    md += fmt::format("   - next: {}\n", cell(f.next_check));
  }
  if (!r.not_measured.empty()) {
    std::vector<std::string> stages;
    for (const auto& s : r.not_measured) stages.push_back(cell(s));
    md += fmt::format("\nNot measured in these runs: {}.\n", fmt::join(stages, "; "));
  }
}

void checks(std::string& md, const Report& r) {
  const auto n = count_checks(r);
  md += fmt::format("\n## Acceptance checks: {} pass, {} fail, {} inconclusive\n\n", n.pass, n.fail,
                    n.inconclusive);
  md +=
      "| verdict | rule | run | case | size | metric | value | expected | threshold | samples | "
      "reason |\n|---|---|---|---|---|---|---:|---:|---:|---:|---|\n";
  // Failed first, then inconclusive, then passed; each run's passing "results correct" checks
  // (one per case) as one row.
  std::map<std::string, std::size_t> correct;
  std::vector<const Check*> order;
  for (auto verdict : {CheckVerdict::kFail, CheckVerdict::kInconclusive, CheckVerdict::kNotMeasured,
                       CheckVerdict::kPass})
    for (const auto& c : r.checks)
      if (c.verdict == verdict && verdict == CheckVerdict::kPass && c.rule == "results correct")
        ++correct[c.run_label];
      else if (c.verdict == verdict)
        order.push_back(&c);
  for (const auto& [run, cases] : correct)
    md += fmt::format(
        "| pass | results correct | {} | all {} case(s) | | | | | | | every element "
        "of every result as expected |\n",
        cell(run), cases);
  for (const Check* check : order) {
    const Check& c = *check;
    md += fmt::format(
        "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
        c.verdict == CheckVerdict::kPass ? "pass" : fmt::format("**{}**", name_of(c.verdict)),
        cell(c.rule), cell(c.run_label), cell(c.case_name), cell(c.size), cell(c.metric),
        figure(c.value), figure(c.expected), figure(c.threshold), c.samples, cell(c.reason));
  }
}

void outliers(std::string& md, const Report& r) {
  md += "\n## Slow and late nodes and ranks\n\n";
  bool any = false, unjudged = false;
  for (const auto& run : r.runs)
    for (const auto& why : run.outliers_not_judged) {
      unjudged = true;
      md += fmt::format("- {}: **not judged**: {}\n", cell(run.label), cell(why));
    }
  for (const auto& run : r.runs)
    for (const auto& o : run.outliers) {
      any = true;
      md += fmt::format(
          "- {}: {} **{}** (ranks {}): {:.2f}x its peers' typical time, robust z "
          "{:.1f}, over {} sizes\n",
          cell(run.label), o.kind, cell(o.name), join_ranks(o.ranks), o.ratio, o.z, o.sizes);
    }
  if (!any) md += unjudged ? "- None found among what could be judged.\n" : "None found.\n";
}

void scaling(std::string& md, const Report& r) {
  if (r.scaling.empty()) return;
  md +=
      "\n## Scaling\n\nEfficiency is the metric at each scale against the series' reference "
      "scale (per-rank figures: the first multi-node scale, or the smallest scale when the "
      "series has only one multi-node scale; aggregate figures: per rank, against the fewest "
      "ranks), that scale at 100%.\n\n| run | subject | series | band | metric | nodes | ranks | "
      "value | efficiency |\n"
      "|---|---|---|---|---|---:|---:|---:|---:|\n";
  for (const auto& s : r.scaling)
    for (const auto& p : s.points)
      md += fmt::format("| {} | {} | {} | {} | {} ({}) | {:g} | {:g} | {} | {}% |\n",
                        cell(s.run_label), cell(s.subject), cell(s.topology), cell(s.band),
                        cell(s.metric), cell(s.unit), p.nodes, p.ranks, figure(p.value),
                        figure(p.efficiency * 100, 3));
}

void fits(std::string& md, const Report& r) {
  if (r.fits.empty()) return;
  md +=
      "\n## Latency and bandwidth (alpha-beta) fits\n\nEach collective's per-iteration median "
      "times are fitted, weighted by relative error, to its algorithm's cost: steps(n)·α + "
      "factor(n)·S·β for n ranks and S bytes, then predicted at larger node counts with the "
      "same ranks per node. The prediction assumes every hop crosses the slowest link "
      "measured.\n\n| run | subject | series | α (us) | 1/β (GB/s) | points | median error "
      "| model |\n|---|---|---|---:|---:|---:|---:|---|\n";
  for (const auto& f : r.fits)
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {:.0f}% | {} |\n", cell(f.run_label),
                      cell(f.subject), cell(f.topology), figure(f.alpha_s * 1e6, 3),
                      figure(f.beta_s_per_byte > 0 ? 1e-9 / f.beta_s_per_byte : NAN, 3), f.points,
                      f.median_rel_error * 100, cell(f.model));
  std::set<std::string> caveats;
  for (const auto& f : r.fits)
    if (!f.caveat.empty()) caveats.insert(fmt::format("{}: {}", cell(f.run_label), cell(f.caveat)));
  for (const auto& c : caveats)
    md += fmt::format(
        "\n**Predictions not trustworthy** ({}): the fit is of figures that did "
        "not cross a network.\n",
        c);
  md +=
      "\n| run | subject | series | nodes | ranks | size (B) | ring (us) | tree (us) |\n"
      "|---|---|---|---:|---:|---:|---:|---:|\n";
  for (const auto& f : r.fits)
    for (const auto& p : f.predictions)
      md += fmt::format("| {} | {} | {} | {:g} | {:g} | {:.0f} | {} | {} |\n", cell(f.run_label),
                        cell(f.subject), cell(f.topology), p.nodes, p.ranks, p.size,
                        figure(p.ring_s * 1e6), figure(p.tree_s * 1e6));
}

void sections(std::string& md, const Report& r) {
  for (const auto& s : r.sections) {
    md += fmt::format("\n## {}\n\n", cell(s.title));
    for (const auto& line : s.lines) md += fmt::format("- {}\n", cell(line));
    md += "\n|";
    for (const auto& h : s.header) md += fmt::format(" {} |", cell(h));
    md += "\n|";
    for (std::size_t i = 0; i < s.header.size(); ++i) md += "---|";
    md += "\n";
    for (const auto& row : s.rows) {
      md += "|";
      for (const auto& c : row) md += fmt::format(" {} |", cell(c));
      md += "\n";
    }
    for (const auto& chart : s.charts) {
      md += fmt::format("\n**Chart: {}** (drawn in the HTML report)\n\n", cell(chart.title));
      for (const auto& line : chart_as_text(chart)) md += fmt::format("- {}\n", cell(line));
    }
  }
}

void regressions(std::string& md, const Report& r) {
  for (const auto& s : r.regressions) {
    md += fmt::format("\n## Regression: {} against {}\n\n", cell(s.current->path),
                      cell(baseline_paths(s)));
    if (s.result.environment.empty()) md += "Environment: no change.\n";
    for (const auto& e : s.result.environment)
      md += fmt::format("- environment changed: **{}**: {} → {}\n", cell(e.what),
                        cell(e.baseline.substr(0, 200)), cell(e.current.substr(0, 200)));
    for (const auto& n : s.result.notes) md += fmt::format("- {}\n", cell(n));
    if (!s.result.withheld.empty())
      md += fmt::format("\n**Verdicts withheld**: {}\n", cell(s.result.withheld));
    md += fmt::format("\n{} sizes compared: {} slower, {} faster, {} same, {} undecided ({}).\n",
                      s.result.points.size(), s.result.count(Verdict::kSlower),
                      s.result.count(Verdict::kFaster), s.result.count(Verdict::kSame),
                      s.result.count(Verdict::kUndecided),
                      cell(regression_method(r.regression_options)));
    md +=
        "\n| case | size (B) | baseline (us) | now (us) | verdict | change [interval], run-to-run "
        "noise, replicates |\n|---|---:|---:|---:|---|---|\n";
    for (const auto& p : s.result.points)
      md += fmt::format(
          "| {} | {} | {:.2f} | {:.2f} | {} | {} |\n", cell(p.case_name), cell(p.size),
          p.test.baseline * 1e6, p.test.current * 1e6,
          p.verdict == Verdict::kSame ? "same" : fmt::format("**{}**", name_of(p.verdict)),
          cell(regression_evidence(p)));
  }
}

void instances(std::string& md, const Report& r) {
  if (!r.instances) return;
  const auto& cmp = *r.instances;
  md += fmt::format(
      "\n## Instance comparison\n\nThroughput per {} per hour; the winner of each "
      "row is the best per dollar (in bold).\n\n",
      cell(cmp.currency));
  for (const auto& w : cmp.warnings) md += fmt::format("**Warning:** {}.\n\n", cell(w));
  md += fmt::format(
      "| instance | price ({}/h) | rows won | beyond the noise |\n|---|---:|---:|---:|\n",
      cell(cmp.currency));
  for (std::size_t i = 0; i < cmp.labels.size(); ++i)
    md += fmt::format("| {} | {:g} | {} | {} |\n", cell(cmp.labels[i]), cmp.prices[i], cmp.wins[i],
                      cmp.clear_wins[i]);
  md += "\n| case and size | metric |";
  for (const auto& l : cmp.labels)
    md += fmt::format(" {} | per {}/h |", cell(l), cell(cmp.currency));
  md += " winner |\n|---|---|";
  for (std::size_t i = 0; i < cmp.labels.size(); ++i) md += "---:|---:|";
  md += "---|\n";
  for (const auto& row : cmp.rows) {
    md += fmt::format("| {} | {} ({}) |", cell(row.subject), cell(row.metric), cell(row.unit));
    for (std::size_t i = 0; i < row.cells.size(); ++i) {
      const bool win = static_cast<int>(i) == row.winner;
      const char* mark = win ? "**" : "";
      md += fmt::format(" {1}{0}{1} | {1}{2}{1} |", figure(row.cells[i].value), mark,
                        figure(row.cells[i].per_dollar));
    }
    md += fmt::format(" {}{} |\n", cell(cmp.labels[static_cast<std::size_t>(row.winner)]),
                      row.clear ? "" : " (within the noise)");
  }
}

// Each soak: its rounds, then a row per node with its verdict, patterns and commands; commands
// in code spans (a backtick in a host name from the file would end one: such names are cells).
void soaks(std::string& md, const Report& r) {
  for (const auto& run : r.runs) {
    if (!run.soak) continue;
    const auto& s = *run.soak;
    md += fmt::format("\n## Soak of {}\n\n{} rounds over {:g} s", cell(run.label), s.rounds.size(),
                      s.soak_s);
    if (!s.rounds.empty() && !s.rounds.front().start_time.empty())
      md += fmt::format(", rounds started {} to {}", cell(s.rounds.front().start_time),
                        cell(s.rounds.back().start_time));
    md += ".\n";
    if (s.shared_drift)
      md += fmt::format(
          "\nEvery node together: {:+.2f}% per round (95% interval {:+.2f}% to {:+.2f}%){}.\n",
          100 * s.shared_drift->slope, 100 * s.shared_drift->slope_low,
          100 * s.shared_drift->slope_high,
          s.shared_drift->called ? ": **drift shared by every node** (a cause they share: "
                                   "cooling, power, a shared service)"
                                 : ", not a drift");
    md += "\n| node | host | verdict | patterns | commands |\n|---|---|---|---|---|\n";
    for (const auto& n : s.nodes) {
      std::string patterns, commands;
      for (auto i : n.patterns)
        patterns += fmt::format("{}{}", patterns.empty() ? "" : "<br>",
                                cell(soak_pattern_line(s, s.patterns[i])));
      for (const auto& c : n.commands) {
        const bool plain = c.find('`') == std::string::npos;
        commands += fmt::format("{}{}", commands.empty() ? "" : "<br>",
                                plain ? fmt::format("`{}`", escape_html(c)) : cell(c));
      }
      md += fmt::format("| {} | {} | {} | {} | {} |\n", cell(n.node), cell(n.host),
                        soak_verdict(n.verdict), patterns.empty() ? "-" : patterns,
                        commands.empty() ? "-" : commands);
    }
    for (auto i : s.links)
      md += fmt::format("\n- link: {}\n", cell(soak_pattern_line(s, s.patterns[i])));
    for (const auto& note : s.notes) md += fmt::format("\n- {}\n", cell(note));
  }
}

}  // namespace

// The verdict and its reasons open the page.
std::string render_markdown(const Report& report) {
  const auto reasons = verdict_reasons(report);
  std::string md = fmt::format("# preflight report: {}\n\n**{}**\n", overall_verdict(report),
                               verdict_headline(report, reasons));
  if (!reasons.empty()) md += "\n";
  for (const auto& r : reasons) md += fmt::format("- **{}**: {}\n", name_of(r.kind), cell(r.text));
  runs(md, report);
  env_checks(md, report);
  findings(md, report);
  soaks(md, report);
  checks(md, report);
  outliers(md, report);
  scaling(md, report);
  fits(md, report);
  sections(md, report);
  regressions(md, report);
  instances(md, report);
  return md;
}

}  // namespace preflight::report
