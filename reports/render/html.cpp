#include "render/html.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <string_view>

#include "analysis/chart_plan.hpp"
#include "analysis/report_text.hpp"
#include "analysis/verdict_reasons.hpp"
#include "preflight/schema/layout.hpp"
#include "render/html_chart_sections.hpp"
#include "render/html_charts.hpp"
#include "render/html_format.hpp"

namespace preflight::report {
namespace {

using namespace html;  // the page's own formats: e(), num(), ...

enum class Headline { kPass, kFail, kInconclusive };

const char* css() {
  return R"(
:root { --fg:#1d1d1f; --muted:#5f6368; --rule:#d9d9de; --head:#f4f4f6;
  --pass:#1e7a34; --pass-bg:#e3f4e6; --fail:#b3261e; --fail-bg:#fbe4e2;
  --inc:#8a5a00; --inc-bg:#fdf1d6; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--fg); background: #fff;
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1240px; margin: 0 auto; padding: 24px 28px 64px; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 20px; margin: 40px 0 10px; padding-bottom: 4px; border-bottom: 1px solid var(--rule); }
h3 { font-size: 16px; margin: 26px 0 8px; }
p, li { max-width: 80ch; }
.muted, .note { color: var(--muted); }
.note { font-style: italic; }
code, pre, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 13px; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--head); padding: 8px 10px; border-radius: 4px; max-height: 320px; overflow: auto; }
nav { font-size: 14px; margin: 8px 0 0; }
nav a { color: var(--muted); margin-right: 14px; text-decoration: none; }
nav a:hover { text-decoration: underline; }
.scroll { overflow-x: auto; margin: 8px 0 16px; }
table { border-collapse: collapse; font-size: 14px; font-variant-numeric: tabular-nums; }
th, td { padding: 5px 8px; border-bottom: 1px solid var(--rule); text-align: left; vertical-align: top; }
th { background: var(--head); font-weight: 600; white-space: nowrap; }
td.num, th.num { text-align: right; white-space: nowrap; }
td.wrap { overflow-wrap: anywhere; min-width: 18ch; }
td.text { min-width: 12ch; }
td.path { min-width: 30ch; }
td.nw { white-space: nowrap; }
table.kv th { background: none; color: var(--muted); font-weight: normal; }
.verdict { display: inline-block; padding: 1px 8px; border-radius: 3px; font-weight: 600; font-size: 13px; white-space: nowrap; }
.v-pass { color: var(--pass); background: var(--pass-bg); }
.v-fail { color: var(--fail); background: var(--fail-bg); }
.v-inconclusive { color: var(--inc); background: var(--inc-bg); }
tr.check td { border-bottom: none; }
tr.reason td { border-top: none; padding-top: 0; color: var(--muted); font-size: 13px; }
.v-limit { color: #1f4e8c; background: #e6eef8; }
.headline { display: flex; align-items: baseline; gap: 16px; margin: 18px 0 6px; flex-wrap: wrap; }
.headline .verdict { font-size: 22px; padding: 4px 16px; }
ol.findings { padding-left: 22px; }
ol.findings > li { margin: 0 0 14px; max-width: none; }
.finding-title { font-weight: 600; }
.stage { color: var(--muted); font-size: 13px; margin-left: 6px; }
.findings ul { margin: 4px 0; padding-left: 20px; }
figure.chart { margin: 12px 0 4px; max-width: 820px; }
figure.chart svg { width: 100%; height: auto; display: block; }
figcaption { color: var(--muted); font-size: 13px; }
td.winner { font-weight: 700; background: var(--pass-bg); }
small { color: var(--muted); }
details summary { cursor: pointer; color: var(--muted); }
h2#verdict { margin-top: 14px; }
ul.reasons { list-style: none; padding: 0; margin: 2px 0 8px; font-size: 14px; line-height: 1.4; }
ul.reasons li { max-width: none; margin: 0 0 3px; }
ul.reasons .verdict { font-size: 12px; margin-right: 6px; }
ul.reasons details ul.reasons { margin-top: 4px; }
figure.chart.legend-beside { max-width: none; display: grid; gap: 4px 16px; align-items: start;
  grid-template-columns: minmax(0, 820px) minmax(220px, 1fr); }
figure.legend-beside figcaption { grid-column: 1 / -1; }
ol.legend { list-style: none; margin: 0; padding: 0 0 0 10px; border-left: 1px solid var(--rule);
  font-size: 12px; line-height: 1.3; max-height: 410px; overflow-y: auto; }
ol.legend li { max-width: none; margin: 0 0 3px; display: flex; gap: 5px; align-items: baseline; }
ol.legend .swatch { flex: none; display: inline-block; width: 26px; height: 2px; align-self: center; }
ol.legend .marker { flex: none; font-size: 10px; width: 1em; }
@media (max-width: 900px) { figure.chart.legend-beside { grid-template-columns: 1fr; } }
ol.findings li.more { list-style: none; }
)";
}

class Writer {
 public:
  Writer(const Report& report, const HtmlOptions& options)
      : report_(report), options_(options), charts_(options.gnuplot) {}

  std::string render() {
    const auto scaling_plans = scaling_charts(report_);
    const auto size_plans = size_charts(report_);
    const int scaling_count = static_cast<int>(scaling_plans.size());
    head();
    verdict_and_runs(first_screen_chart(report_, scaling_plans, size_plans), scaling_plans,
                     size_plans);
    bottlenecks();
    checks();
    scaling_section(out_, report_, scaling_plans, charts_);
    size_section(out_, report_, size_plans, scaling_count, charts_);
    fits();
    const int numbered = plugin_sections(
        out_, report_, scaling_count + static_cast<int>(size_plans.size()), charts_);
    const int soaked = soak_section(out_, report_, numbered, charts_);
    outliers();
    per_device_section(out_, report_, soaked, charts_);
    regressions();
    instances();
    out_ += "</main>\n</body>\n</html>\n";
    return charts_.fill(out_);
  }

 private:
  const Report& report_;
  const HtmlOptions& options_;
  ChartFigures charts_;
  std::string out_;

  void add(std::string_view s) { out_ += s; }

  void head() {
    add("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        // Nothing is fetched, nothing runs, even if a string escaped our escaping.
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "style-src 'unsafe-inline'\">\n");
    std::string title = "preflight report";
    if (!report_.runs.empty()) title += ": " + report_.runs.front().label;
    if (report_.runs.size() > 1) title += fmt::format(" and {} more", report_.runs.size() - 1);
    add(fmt::format("<title>{}</title>\n<style>{}</style>\n</head>\n<body>\n<main>\n", e(title),
                    css()));
    add("<h1>preflight report</h1>\n<nav>");
    add("<a href=\"#verdict\">Verdict</a><a href=\"#bottlenecks\">Bottlenecks</a>"
        "<a href=\"#checks\">Acceptance checks</a>");
    if (!report_.scaling.empty()) add("<a href=\"#scaling\">Scaling</a>");
    add("<a href=\"#bandwidth\">Bandwidth vs size</a>");
    if (!report_.fits.empty()) add("<a href=\"#fits\">&alpha;&ndash;&beta; fits</a>");
    if (std::any_of(report_.runs.begin(), report_.runs.end(),
                    [](const RunReport& r) { return r.soak.has_value(); }))
      add("<a href=\"#soak\">Soak</a>");
    add("<a href=\"#outliers\">Slow nodes and ranks</a>");
    if (!report_.regressions.empty()) add("<a href=\"#regression\">Regression</a>");
    if (report_.instances) add("<a href=\"#instances\">Instance comparison</a>");
    add("</nav>\n");
  }

  // The first screen: the verdict with the count of each reason, the reasons one line each
  // (fail, then inconclusive; the first few, the rest folded), then the most important chart.
  void verdict_and_runs(const FirstChart& first, const std::vector<PlannedChart>& scaling,
                        const std::vector<PlannedChart>& sizes) {
    const auto reasons = verdict_reasons(report_);
    const int code = report_.exit_code();  // the one verdict every renderer shows
    const Headline h = code == 1   ? Headline::kFail
                       : code == 3 ? Headline::kInconclusive
                                   : Headline::kPass;
    add("<h2 id=\"verdict\">Verdict</h2>\n<div class=\"headline\" id=\"verdict-headline\">");
    add(h == Headline::kFail           ? verdict_span("fail", "FAIL")
        : h == Headline::kInconclusive ? verdict_span("inconclusive", "INCONCLUSIVE")
                                       : verdict_span("pass", "PASS"));
    add(fmt::format("<span>{} &middot; {} finding{}</span></div>\n",
                    e(verdict_headline(report_, reasons)), report_.findings.size(),
                    report_.findings.size() == 1 ? "" : "s"));
    reason_list(reasons);
    if (first.from != FirstChart::From::kNone) {
      const bool of_scaling = first.from == FirstChart::From::kScaling;
      const PlannedChart& plan = (of_scaling ? scaling : sizes)[first.index];
      // Its number in its section: the scaling charts come first, then those against size.
      const auto number = first.index + 1 + (of_scaling ? 0 : scaling.size());
      add(fmt::format("<h3 id=\"first-chart-heading\">{}</h3>\n", chart_heading(plan)));
      add(charts_.figure(plan.chart, {"first", "first-chart", "chart first-screen"},
                         fmt::format("{}; with its section <a href=\"#chart-{}\">below</a>.",
                                     e(first.why), number)));
    }
    add("<p class=\"muted\">FAIL when a check failed or a size got slower than the baseline; "
        "else INCONCLUSIVE when a measurement was too noisy to judge; else PASS.</p>\n");

    add("<h3 id=\"runs\">Runs</h3>\n");
    if (report_.runs.empty()) {
      add("<p>none</p>\n");
      return;
    }
    add("<div class=\"scroll\"><table>\n<tr><th>label</th><th>file</th><th>status</th>"
        "<th class=\"num\">ranks</th><th class=\"num\">nodes</th><th>preflight</th>"
        "<th>started</th><th>hosts</th></tr>\n");
    for (const auto& r : report_.runs) {
      if (!r.run) continue;
      const RunData& run = *r.run;
      const char* cls =
          run.status == schema::run_status::kComplete ? "pass"
          : run.status == schema::run_status::kFailed || run.status == schema::run_status::kTimeout
              ? "fail"
              : "inconclusive";
      add(
          fmt::format("<tr><td class=\"nw\">{}</td><td class=\"wrap mono path\">{}</td><td>{}</td>"
                      "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"mono\">{}</td>"
                      "<td class=\"nw\">{}</td><td class=\"wrap\">{}"
                      "</td></tr>\n",
                      e(r.label), e(run.path), verdict_span(cls, e(run.status)), run.world_size,
                      run.node_count, e(run.git_revision), e(run.start_time), hosts(r)));
    }
    add("</table></div>\n");
    for (const auto& r : report_.runs) {
      if (!r.run) continue;
      add(
          fmt::format("<details><summary>{}: command line and configuration</summary>\n"
                      "<pre>{}</pre>\n",
                      e(r.label), e(r.run->command_line)));
      if (!r.run->config.empty()) add(fmt::format("<pre>{}</pre>\n", e(r.run->config)));
      add("</details>\n");
    }
    env_checks();
  }

  // Each run's environment checks: what needs a look in view, what passed folded; and the
  // scheduler's facts of the job.
  void env_checks() {
    bool any = false;
    for (const auto& r : report_.runs) any = any || (r.run && !r.run->env_checks.empty());
    if (any) add("<h3 id=\"env-checks\">Environment checks</h3>\n");
    for (const auto& r : report_.runs) {
      if (!r.run) continue;
      if (!r.run->scheduler.empty()) {
        std::string facts;
        for (const auto& [key, value] : r.run->scheduler)
          facts += fmt::format("{}{} {}", facts.empty() ? "" : " &middot; ", e(key), e(value));
        add(fmt::format("<p>{}: scheduler: {}</p>\n", e(r.label), facts));
      }
      if (r.run->env_checks.empty()) continue;
      const auto row = [&](const RunData::EnvCheck& c) {
        namespace st = schema::env_check_status;
        const char* cls = c.status == st::kFail   ? "fail"
                          : c.status == st::kWarn ? "inconclusive"
                                                  : "pass";
        return fmt::format(
            "<tr><td>{}</td><td>{}</td><td class=\"wrap\">{}</td><td "
            "class=\"wrap\">{}</td><td class=\"wrap\">{}</td></tr>\n",
            verdict_span(cls, e(c.status)), e(c.check), e(c.where), e(c.detail), e(c.fix));
      };
      const char* head =
          "<div class=\"scroll\"><table>\n<tr><th>status</th><th>check</th><th>where</th>"
          "<th>found</th><th>fix</th></tr>\n";
      std::string look, fine;
      for (const auto& c : r.run->env_checks)
        (c.status == schema::env_check_status::kFail || c.status == schema::env_check_status::kWarn
             ? look
             : fine) += row(c);
      if (!look.empty())
        add(fmt::format("<p>{}:</p>\n{}{}</table></div>\n", e(r.label), head, look));
      if (!fine.empty())
        add(
            fmt::format("<details><summary>{}: {} checks passed or did not apply</summary>\n{}{}"
                        "</table></div></details>\n",
                        e(r.label), std::count(fine.begin(), fine.end(), '\n'), head, fine));
    }
  }

  // At most this many reasons on the first screen; the rest fold into one line.
  static constexpr std::size_t kFirstScreenReasons = 6;

  static std::string reason_item(const VerdictReason& r) {
    const char* cls = r.kind == ReasonKind::kFail ? "fail"
                      : r.kind == ReasonKind::kInconclusive || r.kind == ReasonKind::kWarn
                          ? "inconclusive"
                          : "limit";
    return fmt::format("<li>{}{}</li>\n", verdict_span(cls, name_of(r.kind)), e(r.text));
  }

  void reason_list(const std::vector<VerdictReason>& reasons) {
    add("<ul class=\"reasons\" id=\"verdict-reasons\">\n");
    if (reasons.empty())
      add(fmt::format("<li>{}nothing failed, nothing was too noisy to judge</li>\n",
                      verdict_span("pass", "pass")));
    const std::size_t shown =
        reasons.size() <= kFirstScreenReasons + 1 ? reasons.size() : kFirstScreenReasons;
    for (std::size_t i = 0; i < shown; ++i) add(reason_item(reasons[i]));
    if (shown < reasons.size()) {
      add(fmt::format("<li><details><summary>{} more reasons</summary>\n<ul class=\"reasons\">\n",
                      reasons.size() - shown));
      for (std::size_t i = shown; i < reasons.size(); ++i) add(reason_item(reasons[i]));
      add("</ul></details></li>\n");
    }
    add("</ul>\n");
  }

  static std::string hosts(const RunReport& r) {
    const auto& names = r.hosts;
    if (names.empty()) return "&ndash;";
    constexpr std::size_t kShown = 12;
    std::string text;
    for (std::size_t i = 0; i < std::min(names.size(), kShown); ++i)
      text += (i ? ", " : "") + e(names[i]);
    if (names.size() > kShown) text += fmt::format(" &hellip; ({} hosts in all)", names.size());
    return text;
  }

  // Stages of the chain no run measured, so that silence is not read as health.
  void not_measured() {
    if (report_.not_measured.empty()) return;
    std::string stages;
    for (const auto& m : report_.not_measured) stages += (stages.empty() ? "" : "; ") + e(m);
    add(fmt::format("<p class=\"muted\">Not measured in these runs: {}.</p>\n", stages));
  }

  // Findings and evidence lines shown before the rest of a run of alike ones fold away.
  static constexpr std::size_t kAlikeShown = 3;

  // What a finding is about, less its particulars: its stage, trust and title up to the first
  // colon, digits dropped ("slow rank: rank 3 ..." and "slow rank: rank 7 ..." are alike).
  static std::string kind_of(const Finding& f) {
    std::string head = f.title.substr(0, f.title.find(':'));
    head.erase(std::remove_if(head.begin(), head.end(),
                              [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }),
               head.end());
    return fmt::format("{}|{}|{}", static_cast<int>(f.stage), f.trustworthy, head);
  }

  void bottlenecks() {
    add("<h2 id=\"bottlenecks\">Bottlenecks</h2>\n");
    not_measured();
    if (report_.findings.empty()) {
      add("<p>none found</p>\n");
      return;
    }
    add("<ol class=\"findings\">\n");
    const auto& findings = report_.findings;
    for (std::size_t i = 0; i < findings.size();) {
      // A run of alike findings: the first few, then the rest folded, numbered on.
      std::size_t end = i + 1;
      while (end < findings.size() && kind_of(findings[end]) == kind_of(findings[i])) ++end;
      const std::size_t shown = end - i <= kAlikeShown + 1 ? end - i : kAlikeShown;
      for (std::size_t k = i; k < i + shown; ++k) finding(findings[k]);
      if (i + shown < end) {
        add(
            fmt::format("<li class=\"more\"><details><summary>{} more findings like these"
                        "</summary>\n<ol class=\"findings\" start=\"{}\">\n",
                        end - i - shown, i + shown + 1));
        for (std::size_t k = i + shown; k < end; ++k) finding(findings[k]);
        add("</ol></details></li>\n");
      }
      i = end;
    }
    add("</ol>\n");
  }

  void finding(const Finding& f) {
    add("<li>");
    // A wrong result or a straggler is a defect; a bandwidth that stops scaling is a limit.
    const bool defect = f.stage == Stage::kCorrectness || f.stage == Stage::kStragglers;
    add(!f.trustworthy ? verdict_span("inconclusive", "not trustworthy")
        : defect       ? verdict_span("fail", "defect")
                       : verdict_span("limit", "limit"));
    add(fmt::format(" <span class=\"finding-title\">{}</span><span class=\"stage\">{}{}</span>",
                    e(f.title), name_of(f.stage),
                    f.run_label.empty() ? "" : " &middot; " + e(f.run_label)));
    if (!f.caveat.empty())
      add(fmt::format("<br><b>Not trustworthy</b>: {}.", e(f.caveat)));
    else if (!f.trustworthy)
      add("<br><small>A measurement-quality finding: the figures it names cannot be trusted; "
          "it is not a defect of the cluster.</small>");
    evidence(f.evidence);
    for (const auto& h : f.heatmaps) heatmap(h);
    if (!f.next_check.empty()) add(fmt::format("<div>Next: {}</div>", e(f.next_check)));
    add("</li>\n");
  }

  // Each cell coloured by how far it is from the best cell: green at the best, red at a tenth
  // of it or worse (on a log scale, so that 2x and 10x worse stay apart).
  void heatmap(const Heatmap& h) {
    const auto n = h.labels.size();
    if (n == 0 || h.cells.size() != n * n) return;
    double best = std::nan("");
    for (double v : h.cells)
      if (v > 0 && (std::isnan(best) || (h.higher_is_better ? v > best : v < best))) best = v;
    add(fmt::format("\n<table class=\"heatmap\"><caption>{} ({})</caption><tr><th></th>",
                    e(h.title), e(h.unit)));
    for (const auto& l : h.labels) add(fmt::format("<th>{}</th>", e(l)));
    add("</tr>");
    for (std::size_t a = 0; a < n; ++a) {
      add(fmt::format("<tr><th>{}</th>", e(h.labels[a])));
      for (std::size_t b = 0; b < n; ++b) {
        const double v = h.cells[a * n + b];
        if (!(v > 0) || !(best > 0)) {
          add("<td></td>");
          continue;
        }
        const double worse = h.higher_is_better ? best / v : v / best;
        const double hue = 120 * std::clamp(1 - std::log10(worse), 0.0, 1.0);
        add(fmt::format("<td style=\"background:hsl({:.0f},70%,80%)\">{:.3g}</td>", hue, v));
      }
      add("</tr>");
    }
    add("</table>");
  }

  // A finding's evidence: the first lines, the rest (one per series or case, alike but for
  // their names and figures) folded under "N more".
  void evidence(const std::vector<std::string>& lines) {
    if (lines.empty()) return;
    const std::size_t shown = lines.size() <= kAlikeShown + 1 ? lines.size() : kAlikeShown;
    add("\n<ul>");
    for (std::size_t i = 0; i < shown; ++i) add(fmt::format("<li>{}</li>", e(lines[i])));
    add("</ul>");
    if (shown == lines.size()) return;
    add(fmt::format("<details><summary>{} more</summary><ul>", lines.size() - shown));
    for (std::size_t i = shown; i < lines.size(); ++i) add(fmt::format("<li>{}</li>", e(lines[i])));
    add("</ul></details>");
  }

  void checks() {
    add("<h2 id=\"checks\">Acceptance checks</h2>\n");
    if (report_.checks.empty()) {
      add("<p>none</p>\n");
      return;
    }
    add("<div class=\"scroll\"><table>\n<tr><th>verdict</th><th>rule</th><th>run</th>"
        "<th>case</th><th class=\"num\">size</th><th>metric</th><th class=\"num\">value</th>"
        "<th class=\"num\">expected</th><th class=\"num\">threshold</th>"
        "<th class=\"num\">95% CI</th><th class=\"num\">samples</th></tr>\n");
    // Failed checks first, then inconclusive ones, then passes; the passing "results correct"
    // check of every case is one summary row per run, so it does not bury the rest.
    std::vector<const Check*> order;
    std::map<std::string, std::size_t> correct_cases;
    for (auto verdict : {CheckVerdict::kFail, CheckVerdict::kInconclusive,
                         CheckVerdict::kNotMeasured, CheckVerdict::kPass})
      for (const auto& c : report_.checks) {
        if (c.verdict != verdict) continue;
        if (verdict == CheckVerdict::kPass && c.rule == "results correct")
          ++correct_cases[c.run_label];
        else
          order.push_back(&c);
      }
    for (const auto& [run, cases] : correct_cases)
      add(
          fmt::format("<tr><td>{}</td><td class=\"nw\">results correct</td><td class=\"nw\">{}"
                      "</td><td class=\"wrap\" colspan=\"8\">all {} case{} of this run: every "
                      "element of every result as expected</td></tr>\n",
                      verdict_span("pass", "pass"), e(run), cases, cases == 1 ? "" : "s"));
    for (const Check* check : order) {
      const Check& c = *check;
      const char* v = name_of(c.verdict);
      const std::string better =
          c.better.empty() ? "" : fmt::format(" title=\"{} is better\"", e(c.better));
      add(fmt::format(
          "<tr class=\"check\"><td>{}</td><td class=\"nw\">{}</td><td class=\"nw\">{}</td>"
          "<td class=\"wrap\">{}</td><td class=\"num\">{}</td><td class=\"nw\"{}>{}</td>"
          "<td class=\"num\">{}</td><td class=\"num\">{}</td>"
          "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n"
          "<tr class=\"reason\"><td></td><td colspan=\"10\">{}</td></tr>\n",
          verdict_span(v, v), e(c.rule), e(c.run_label), e(c.case_name), size_text(c.size), better,
          e(c.metric), number_with_unit(c.value, c.unit), number_with_unit(c.expected, c.unit),
          number_with_unit(c.threshold, c.unit),
          std::isnan(c.ci_low) && std::isnan(c.ci_high)
              ? std::string("&ndash;")
              : fmt::format("{} &ndash; {}", num(c.ci_low), num(c.ci_high)),
          c.samples, e(c.reason)));
    }
    add("</table></div>\n");
  }

  void fits() {
    if (report_.fits.empty()) return;
    add("<h2 id=\"fits\">&alpha;&ndash;&beta; fits</h2>\n");
    add("<p class=\"muted\">Time of one operation of S bytes on n ranks: steps(n) &middot; "
        "&alpha; + factor(n) &middot; S &middot; &beta;, fitted to the measured medians; "
        "&beta; shown as the link bandwidth 1/&beta;.</p>\n");
    add("<div class=\"scroll\"><table>\n<tr><th>run</th><th>subject</th><th>series</th>"
        "<th class=\"num\">&alpha;</th><th class=\"num\">1/&beta;</th>"
        "<th class=\"num\">ranks/node</th><th class=\"num\">points</th>"
        "<th class=\"num\">median error</th><th>model</th></tr>\n");
    for (const auto& f : report_.fits)
      add(fmt::format(
          "<tr><td>{}</td><td class=\"wrap\">{}</td><td>{}</td><td class=\"num\">{}</td>"
          "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
          "<td class=\"num\">{}</td><td class=\"wrap\">{}</td></tr>\n",
          e(f.run_label), e(f.subject), e(f.topology), scaled_seconds(f.alpha_s),
          f.beta_s_per_byte > 0 ? number_with_unit(1e-9 / f.beta_s_per_byte, "GB/s")
                                : std::string("&ndash;"),
          num(f.ranks_per_node), f.points, percent_or_dash(f.median_rel_error), e(f.model)));
    add("</table></div>\n");
    bool any = false;
    for (const auto& f : report_.fits) any = any || !f.predictions.empty();
    if (!any) return;
    add("<h3>Predictions</h3>\n");
    std::set<std::string> caveats;
    for (const auto& f : report_.fits)
      if (!f.caveat.empty()) caveats.insert(f.caveat);
    for (const auto& c : caveats)
      add(
          fmt::format("<p><b>Not trustworthy</b>: fitted to figures that did not cross a "
                      "network ({}).</p>\n",
                      e(c)));
    add("<div class=\"scroll\"><table>\n<tr><th>subject</th>"
        "<th>series</th><th class=\"num\">nodes</th><th class=\"num\">ranks</th>"
        "<th class=\"num\">size</th><th class=\"num\">ring</th><th class=\"num\">tree</th></tr>\n");
    for (const auto& f : report_.fits)
      for (const auto& p : f.predictions)
        add(fmt::format(
            "<tr><td class=\"wrap\">{}</td><td>{}</td><td class=\"num\">{}</td>"
            "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
            "<td class=\"num\">{}</td></tr>\n",
            e(f.subject), e(f.topology), num(p.nodes), num(p.ranks), bytes(p.size),
            scaled_seconds(p.ring_s), scaled_seconds(p.tree_s)));
    add("</table></div>\n");
  }

  void outliers() {
    add("<h2 id=\"outliers\">Slow nodes and ranks</h2>\n");
    for (const auto& r : report_.runs) {
      if (report_.runs.size() > 1) add(fmt::format("<h3>{}</h3>\n", e(r.label)));
      for (const auto& why : r.outliers_not_judged)
        add(fmt::format("<p><b>not judged</b>: {}</p>\n", e(why)));
      if (r.outliers.empty()) {
        add(r.outliers_not_judged.empty() ? "<p>none found</p>\n"
                                          : "<p>none found among what could be judged</p>\n");
        continue;
      }
      add("<div class=\"scroll\"><table>\n<tr><th>kind</th><th>name</th><th>ranks</th>"
          "<th class=\"num\">time / peers'</th><th class=\"num\">robust z</th>"
          "<th class=\"num\">sizes</th></tr>\n");
      for (const auto& o : r.outliers) {
        std::string ranks;
        for (int k : o.ranks) ranks += fmt::format("{}{}", ranks.empty() ? "" : ", ", k);
        add(fmt::format(
            "<tr><td>{}</td><td class=\"wrap\">{}</td><td class=\"wrap\">{}</td>"
            "<td class=\"num\">{}&times;</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
            "</tr>\n",
            e(o.kind), e(o.name), ranks, fmt::format("{:.2f}", o.ratio), fmt::format("{:.1f}", o.z),
            o.sizes));
      }
      add("</table></div>\n");
    }
    if (report_.runs.empty()) add("<p>none</p>\n");
  }

  void regressions() {
    if (report_.regressions.empty()) return;
    add("<h2 id=\"regression\">Regression against the baseline</h2>\n");
    const auto& options = report_.regression_options;
    for (const auto& section : report_.regressions) {
      const auto& result = section.result;
      add(fmt::format("<h3>{} against {}</h3>\n", e(section.current ? section.current->path : "?"),
                      e(baseline_paths(section))));
      add("<p><b>Environment changes</b> (usually the cause, so first):</p>\n");
      if (result.environment.empty()) {
        add("<p>none</p>\n");
      } else {
        add("<div class=\"scroll\"><table>\n<tr><th>what</th><th>baseline</th><th>now</th>"
            "</tr>\n");
        for (const auto& c : result.environment)
          add(fmt::format(
              "<tr><td>{}</td><td class=\"wrap mono\">{}</td><td class=\"wrap mono\">{}</td>"
              "</tr>\n",
              e(c.what), e(c.baseline), e(c.current)));
        add("</table></div>\n");
      }
      for (const auto& n : result.notes) add(fmt::format("<p>{}</p>\n", e(n)));
      if (!result.withheld.empty())
        add(fmt::format("<p><b>Verdicts withheld</b>: {}</p>\n", e(result.withheld)));
      add(fmt::format(
          "<p>{} size{} compared: <b>{} slower</b>, {} faster, {} same, {} undecided ({}).</p>\n",
          result.points.size(), result.points.size() == 1 ? "" : "s",
          result.count(Verdict::kSlower), result.count(Verdict::kFaster),
          result.count(Verdict::kSame), result.count(Verdict::kUndecided),
          e(regression_method(options))));
      if (!result.points.empty()) {
        add("<div class=\"scroll\"><table>\n<tr><th>verdict</th><th>case</th>"
            "<th class=\"num\">size</th><th class=\"num\">baseline</th><th class=\"num\">now</th>"
            "<th class=\"num\">change</th><th>interval, run-to-run noise, replicates</th>"
            "<th class=\"num\">p-value</th></tr>\n");
        for (const auto& p : result.points) {
          add(fmt::format(
              "<tr><td>{}</td><td class=\"wrap\">{}</td><td class=\"num\">{}</td>"
              "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
              "<td class=\"wrap\">{}</td><td class=\"num\">{}</td></tr>\n",
              verdict_span(p.verdict == Verdict::kSlower      ? "fail"
                           : p.verdict == Verdict::kUndecided ? "inconclusive"
                                                              : "pass",
                           name_of(p.verdict)),
              e(p.case_name), size_text(p.size), scaled_seconds(p.test.baseline),
              scaled_seconds(p.test.current), percent_or_dash(p.test.change, true),
              e(regression_evidence(p)), p_value(p.test.p_value)));
        }
        add("</table></div>\n");
      }
      if (!result.unmatched.empty()) {
        add("<p>Not compared (in only one of the runs):</p>\n<ul>\n");
        for (const auto& u : result.unmatched) add(fmt::format("<li>{}</li>\n", e(u)));
        add("</ul>\n");
      }
    }
  }

  void instances() {
    if (!report_.instances) return;
    const auto& cmp = *report_.instances;
    add("<h2 id=\"instances\">Instance comparison</h2>\n");
    for (const auto& w : cmp.warnings) add(fmt::format("<p><b>Warning:</b> {}.</p>\n", e(w)));
    add(
        fmt::format("<p class=\"muted\">Each metric per {} per hour; the best per dollar in each "
                    "row is highlighted, &ldquo;clear&rdquo; when its times differ from the "
                    "runner-up's beyond the noise.</p>\n",
                    e(cmp.currency)));
    add("<div class=\"scroll\"><table>\n<tr><th>case and size</th><th>metric</th>");
    for (std::size_t i = 0; i < cmp.labels.size(); ++i)
      add(fmt::format("<th class=\"num\">{}<br><small>{} {}/h</small></th>", e(cmp.labels[i]),
                      i < cmp.prices.size() ? num(cmp.prices[i]) : "&ndash;", e(cmp.currency)));
    add("</tr>\n");
    for (const auto& row : cmp.rows) {
      add(fmt::format("<tr><td class=\"wrap\">{}</td><td>{}{}</td>", e(row.subject), e(row.metric),
                      row.unit.empty() ? "" : " (" + e(row.unit) + ")"));
      for (std::size_t i = 0; i < row.cells.size(); ++i) {
        const auto& cell = row.cells[i];
        const bool won = row.winner == static_cast<int>(i);
        add(fmt::format(
            "<td class=\"num{}\">{}<br><small>{} per {}/h{}</small></td>", won ? " winner" : "",
            num(cell.value), num(cell.per_dollar), e(cmp.currency),
            won ? (row.clear ? ", clear"
                             : fmt::format(", within noise (p {})", p_value(cell.p_value)))
                : ""));
      }
      add("</tr>\n");
    }
    add("<tr><th>wins</th><th></th>");
    for (std::size_t i = 0; i < cmp.labels.size(); ++i)
      add(fmt::format("<th class=\"num\">{}</th>", i < cmp.wins.size() ? cmp.wins[i] : 0));
    add("</tr>\n</table></div>\n");
  }
};

}  // namespace

std::string render_html(const Report& report, const HtmlOptions& options) {
  return Writer(report, options).render();
}

}  // namespace preflight::report
