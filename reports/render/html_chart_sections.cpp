#include "render/html_chart_sections.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "render/html_charts.hpp"
#include "render/html_format.hpp"

namespace preflight::report {
namespace {

using namespace html;  // the page's own formats: e(), num(), ...

// Writes the sections onto the page's text, as the page's Writer does the others.
class ChartSections {
 public:
  ChartSections(const Report& report, ChartFigures& charts, std::string& out)
      : report_(report), charts_(charts), out_(out) {}

  void scaling(const std::vector<PlannedChart>& plans) {
    if (report_.scaling.empty()) return;
    add("<h2 id=\"scaling\">Scaling</h2>\n");
    add("<p class=\"muted\">Each case's headline figure against the number of nodes (aggregate "
        "figures: ranks), the median over the band's sizes (or per point where each point is its "
        "own series). Per-rank figures: efficiency is the value against the first multi-node "
        "scale, or the smallest scale when the series has only one multi-node scale (ideal: "
        "flat). Aggregate figures: efficiency is the value per rank against the "
        "fewest ranks' (ideal: linear in ranks; it falls where a shared resource "
        "saturates).</p>\n");
    charts_by_run(plans, 0, [&](const PlannedChart& plan) {
      std::vector<const ScalingSeries*> series;
      for (std::size_t i : plan.scaling) series.push_back(&report_.scaling[i]);
      efficiency_table(series, plan.by_ranks, plan.unit);
    });
  }

  // Numbered after the scaling charts, which the page draws first.
  void bandwidth_vs_size(const std::vector<PlannedChart>& plans, int numbered_before) {
    add("<h2 id=\"bandwidth\">Bandwidth vs size</h2>\n");
    if (plans.empty()) add("<p>none: no case has sizes</p>\n");
    charts_by_run(plans, numbered_before, [](const PlannedChart&) {});
  }

  // Plug-ins' sections: heading, lines, table, charts (numbered after the page's own
  // `numbered_before`, so that every chart's ids are its own). Returns the last number drawn.
  int sections(int numbered_before) {
    int number = numbered_before;
    for (const auto& s : report_.sections) {
      add(fmt::format("<h2 id=\"{}\">{}</h2>\n", e(s.id), e(s.title)));
      for (const auto& line : s.lines) add(fmt::format("<p class=\"muted\">{}</p>\n", e(line)));
      add("<div class=\"scroll\"><table>\n<tr>");
      for (const auto& h : s.header) add(fmt::format("<th>{}</th>", e(h)));
      add("</tr>\n");
      for (const auto& row : s.rows) {
        add("<tr>");
        for (const auto& c : row) add(fmt::format("<td class=\"wrap\">{}</td>", e(c)));
        add("</tr>\n");
      }
      add("</table></div>\n");
      for (const auto& c : s.charts) {
        ++number;
        add(fmt::format("<h3>{}</h3>\n", e(c.title)));
        add(charts_.numbered(c, number, ""));
      }
    }
    return number;
  }

  // Each rank's rate beside its peers' median (analysis/chart_plan.hpp), the first kMaxCharts
  // of them, numbered after the charts before it (`numbered_before`); no section when no case
  // compares peers.
  void per_device(int numbered_before) {
    constexpr std::size_t kMaxCharts = 24;
    const auto plans = per_device_charts(report_);
    if (plans.empty()) return;
    add("<h2 id=\"per-device\">Per device</h2>\n");
    const std::size_t drawn = std::min(plans.size(), kMaxCharts);
    for (std::size_t i = 0; i < drawn; ++i) {
      add(fmt::format("<h3>{}</h3>\n", chart_heading(plans[i])));
      chart(plans[i], numbered_before + static_cast<int>(i) + 1);
    }
    if (drawn < plans.size()) add(fmt::format("<p>{} more not drawn</p>\n", plans.size() - drawn));
  }

  // Each soak: its rounds, a row per node (verdict, patterns, commands), the links, then a chart
  // per node a pattern names (the first kMaxCharts), numbered after `numbered_before`. Returns
  // the last number drawn.
  int soaks(int numbered_before) {
    constexpr std::size_t kMaxCharts = 24;
    int number = numbered_before;
    bool any = false;
    for (const auto& run : report_.runs) {
      if (!run.soak) continue;
      const auto& s = *run.soak;
      if (!any) add("<h2 id=\"soak\">Soak</h2>\n");
      any = true;
      add(fmt::format("<p>{}: {} rounds over {} s{}.</p>\n", e(run.label), s.rounds.size(),
                      num(s.soak_s),
                      s.rounds.empty() || s.rounds.front().start_time.empty()
                          ? std::string()
                          : fmt::format(", started {} to {}", e(s.rounds.front().start_time),
                                        e(s.rounds.back().start_time))));
      if (s.shared_drift)
        add(
            fmt::format("<p class=\"muted\">Every node together: {:+.2f}% per round (95% "
                        "interval {:+.2f}% to {:+.2f}%){}.</p>\n",
                        100 * s.shared_drift->slope, 100 * s.shared_drift->slope_low,
                        100 * s.shared_drift->slope_high,
                        s.shared_drift->called ? ": <b>a drift every node shares</b> (cooling, "
                                                 "power, a shared service)"
                                               : ", not a drift"));
      add("<div class=\"scroll\"><table>\n<tr><th>node</th><th>host</th><th>verdict</th>"
          "<th>patterns</th><th>commands</th></tr>\n");
      for (const auto& n : s.nodes) {
        std::string patterns, commands;
        for (auto i : n.patterns)
          patterns += (patterns.empty() ? "" : "<br>") + e(soak_pattern_line(s, s.patterns[i]));
        for (const auto& c : n.commands)
          commands += (commands.empty() ? "" : "<br>") + fmt::format("<code>{}</code>", e(c));
        add(
            fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"wrap\">{}</td>"
                        "<td class=\"wrap\">{}</td></tr>\n",
                        e(n.node), e(n.host), e(soak_verdict(n.verdict)), patterns, commands));
      }
      add("</table></div>\n");
      for (auto i : s.links)
        add(fmt::format("<p>link: {}</p>\n", e(soak_pattern_line(s, s.patterns[i]))));
      for (const auto& note : s.notes) add(fmt::format("<p class=\"muted\">{}</p>\n", e(note)));
    }
    const auto plans = soak_charts(report_);
    const std::size_t drawn = std::min(plans.size(), kMaxCharts);
    for (std::size_t i = 0; i < drawn; ++i) {
      add(fmt::format("<h3>{}</h3>\n", chart_heading(plans[i])));
      chart(plans[i], ++number);
    }
    if (drawn < plans.size()) add(fmt::format("<p>{} more not drawn</p>\n", plans.size() - drawn));
    return number;
  }

 private:
  // Each chart under its heading, with the run's name before its first chart when the report
  // has several runs, numbered after `numbered_before`; `after` adds what follows a chart.
  template <typename After>
  void charts_by_run(const std::vector<PlannedChart>& plans, int numbered_before, After after) {
    std::string last_run;
    int number = numbered_before;
    for (const auto& plan : plans) {
      if (plan.run_label != last_run && report_.runs.size() > 1)
        add(fmt::format("<h3>{}</h3>\n", e(plan.run_label)));
      last_run = plan.run_label;
      add(fmt::format("<h3>{}</h3>\n", chart_heading(plan)));
      chart(plan, ++number);
      after(plan);
    }
  }

  void efficiency_table(const std::vector<const ScalingSeries*>& series, bool by_ranks,
                        const std::string& unit) {
    std::set<double> scales;
    for (const auto* s : series)
      for (const auto& p : s->points) scales.insert(by_ranks ? p.ranks : p.nodes);
    add("<div class=\"scroll\"><table>\n<tr><th>subject</th><th>series</th>");
    for (double scale : scales)
      add(fmt::format("<th class=\"num\">{} {}{}</th>", num(scale), by_ranks ? "rank" : "node",
                      scale == 1 ? "" : "s"));
    add("</tr>\n");
    for (const auto* s : series) {
      add(fmt::format("<tr><td class=\"wrap\">{}</td><td>{}</td>", e(s->subject), e(s->topology)));
      for (double scale : scales) {
        const auto it = std::find_if(s->points.begin(), s->points.end(), [&](const auto& p) {
          return (by_ranks ? p.ranks : p.nodes) == scale;
        });
        if (it == s->points.end()) {
          add("<td class=\"num\"></td>");
          continue;
        }
        add(fmt::format("<td class=\"num\">{}{}</td>", number_with_unit(it->value, unit),
                        std::isnan(it->efficiency) ? std::string()
                                                   : fmt::format("<br><small>{} eff.</small>",
                                                                 percent_or_dash(it->efficiency))));
      }
      add("</tr>\n");
    }
    add("</table></div>\n");
  }

  const Report& report_;
  ChartFigures& charts_;
  std::string& out_;

  void add(std::string_view s) { out_ += s; }

  // A section's chart: numbered, so that its SVG ids and its anchor are its own.
  void chart(const PlannedChart& plan, int number) {
    add(charts_.numbered(plan.chart, number, e(plan.caption)));
  }
};

}  // namespace

void scaling_section(std::string& out, const Report& report, const std::vector<PlannedChart>& plans,
                     ChartFigures& charts) {
  ChartSections(report, charts, out).scaling(plans);
}

void size_section(std::string& out, const Report& report, const std::vector<PlannedChart>& plans,
                  int numbered_before, ChartFigures& charts) {
  ChartSections(report, charts, out).bandwidth_vs_size(plans, numbered_before);
}

int plugin_sections(std::string& out, const Report& report, int numbered_before,
                    ChartFigures& charts) {
  return ChartSections(report, charts, out).sections(numbered_before);
}

int soak_section(std::string& out, const Report& report, int numbered_before,
                 ChartFigures& charts) {
  return ChartSections(report, charts, out).soaks(numbered_before);
}

void per_device_section(std::string& out, const Report& report, int numbered_before,
                        ChartFigures& charts) {
  ChartSections(report, charts, out).per_device(numbered_before);
}

}  // namespace preflight::report
