#include "analysis/chart_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <tuple>

#include "analysis/case_view.hpp"
#include "analysis/per_device.hpp"

namespace preflight::report {
namespace {

// A scaling chart's title: "Storage scaling: aggregate read_bw vs ranks", "comm busbw vs nodes",
// with its band and, where the report has several runs, its run.
std::string scaling_title(const Report& report, const ScalingSeries& first, bool by_ranks) {
  std::string title;
  if (by_ranks) {
    std::string name = first.family;
    if (!name.empty()) name[0] = static_cast<char>(std::toupper(name[0]));
    title = fmt::format("{} scaling: aggregate {} vs ranks", name, first.metric);
  } else {
    title = fmt::format("{} {} vs nodes", first.family, first.metric);
  }
  if (!first.band.empty()) title += ", " + band_text(first.band);
  if (report.runs.size() > 1) title += " \u00b7 " + first.run_label;
  return title;
}

PlannedChart scaling_chart(const Report& report, std::vector<std::size_t> series) {
  PlannedChart plan;
  const ScalingSeries& first = report.scaling[series.front()];
  plan.run_label = first.run_label;
  plan.scaling = std::move(series);
  plan.unit = first.unit;
  plan.by_ranks = first.aggregate;
  Chart& c = plan.chart;
  c.title = scaling_title(report, first, plan.by_ranks);
  c.x_label = plan.by_ranks ? "ranks" : "nodes";
  c.y_label = plan.unit.empty() ? first.metric : fmt::format("{} ({})", first.metric, plan.unit);
  bool log_x = true;
  for (std::size_t i : plan.scaling) {
    const ScalingSeries& s = report.scaling[i];
    ChartSeries line;
    line.label = s.subject;
    if (!s.topology.empty()) line.label += " [" + s.topology + "]";
    for (const auto& p : s.points) {
      line.x.push_back(plan.by_ranks ? p.ranks : p.nodes);
      line.y.push_back(p.value);
      log_x = log_x && (plan.by_ranks ? p.ranks : p.nodes) > 0;
    }
    c.series.push_back(std::move(line));
  }
  c.log_x = log_x;
  plan.heading = c.title;
  return plan;
}

// The case's name less its declared subject: where it ran (its layout), with its series.
std::string where_ran(const CaseData& c) {
  const auto& subject = c.meaning.subject;
  std::string label = c.name;
  if (!subject.empty() && label.size() > subject.size() && label.rfind(subject, 0) == 0)
    label = label.substr(subject.size() + 1);
  return label;
}

// A case's line among the others of its chart: where it ran, and what tells apart the cases
// that ran in the same place.
std::string legend(const CaseData& c, const std::vector<const CaseData*>& group) {
  std::string label = where_ran(c);
  const auto& series = c.meaning.series;
  if (!series.empty() && label.find(series) == std::string::npos) label = series + ": " + label;
  const auto same = std::count_if(group.begin(), group.end(),
                                  [&](const CaseData* o) { return where_ran(*o) == where_ran(c); });
  if (same > 1) {
    const auto add = [&](std::string_view name, const std::string& text) {
      if (!text.empty()) label += fmt::format(" {}={}", name, text);
    };
    namespace h = schema::harness;
    add(h::kBenchmark.name, attribute_text(c.get(h::kBenchmark)));
    add(h::kVariant.name, attribute_text(c.get(h::kVariant)));
    add(h::kRepetition.name, attribute_text(c.get(h::kRepetition)));
    label += " #" + c.group_name;
  }
  return label;
}

// One case's line: its headline figure against its x, all groups together.
ChartSeries size_series(const CaseData& c, const std::string& metric,
                        const std::vector<const CaseData*>& group) {
  ChartSeries line;
  line.label = legend(c, group);
  const auto& sizes = c.stats.at(c.meaning.x_axis).numbers;
  const auto& values = c.stats.at(metric).numbers;
  const auto groups = c.stats.find("group");
  for (std::size_t i = 0; i < std::min(sizes.size(), values.size()); ++i) {
    if (groups != c.stats.end() && i < groups->second.numbers.size() &&
        groups->second.numbers[i] != -1)
      continue;
    line.x.push_back(sizes[i]);
    line.y.push_back(values[i]);
  }
  return line;
}

void run_size_charts(const Report& report, const RunReport& r, std::vector<PlannedChart>& plans) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<const CaseData*>> groups;
  std::map<std::string, std::string> metric_of;
  for (const auto& c : r.run->cases) {
    if (c.meaning.bands != schema::Bands::kSizeBands || !c.stats.count(c.meaning.x_axis)) continue;
    const std::string metric = CaseView(c).primary_metric();
    if (metric.empty()) continue;
    const std::string key =
        c.family + " " + metric + " " + (c.meaning.subject.empty() ? c.name : c.meaning.subject);
    if (!groups.count(key)) order.push_back(key);
    groups[key].push_back(&c);
    metric_of[key] = metric;
  }
  for (const auto& key : order) {
    const auto& cases = groups.at(key);
    const std::string& metric = metric_of.at(key);
    PlannedChart plan;
    plan.run_label = r.label;
    Chart& chart = plan.chart;
    chart.title = key;
    chart.x_label = "size";
    chart.log_x = chart.log_y = chart.x_bytes = true;
    const std::string& unit = cases.front()->stats.at(metric).unit;
    chart.y_label = unit.empty() ? metric : metric + " (" + unit + ")";
    for (const CaseData* c : cases) chart.series.push_back(size_series(*c, metric, cases));
    plan.heading = key;
    if (report.runs.size() > 1) plan.heading_run = r.label;
    plan.caption =
        fmt::format("{} of the per-iteration median time, all groups together; log-log.", metric);
    plans.push_back(std::move(plan));
  }
}

PlannedChart per_device_chart(const Report& report, const RunReport& r, const PerDeviceRates& d) {
  PlannedChart plan;
  plan.run_label = r.label;
  Chart& c = plan.chart;
  c.title = d.c->name + " " + CaseView(*d.c).point_label(d.point);
  c.x_label = "rank";
  c.y_label = d.unit.empty() ? d.metric : d.metric + " (" + d.unit + ")";
  ChartSeries each{"each rank", {}, {}}, peers{"peers' median", {}, {}};
  for (std::size_t i = 0; i < d.ranks.size(); ++i) {
    each.x.push_back(d.ranks[i]);
    each.y.push_back(d.rates[i]);
  }
  peers.x = {static_cast<double>(d.ranks.front()), static_cast<double>(d.ranks.back())};
  peers.y = {d.peers_median, d.peers_median};
  c.series = {std::move(each), std::move(peers)};
  plan.heading = c.title;
  if (report.runs.size() > 1) plan.heading_run = r.label;
  plan.caption = fmt::format(
      "{} each rank reached on its own (its median time), and the median of all of them; "
      "lowest {:.4g}, median {:.4g}.",
      d.metric, *std::min_element(d.rates.begin(), d.rates.end()), d.peers_median);
  return plan;
}

}  // namespace

std::vector<PlannedChart> scaling_charts(const Report& report) {
  using Key = std::tuple<std::string, std::string, std::string, std::string, std::string, bool>;
  std::vector<Key> order;
  std::map<Key, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < report.scaling.size(); ++i) {
    const auto& s = report.scaling[i];
    const Key key{s.run_label, s.family, s.metric, s.unit, s.band, s.aggregate};
    if (!groups.count(key)) order.push_back(key);
    groups[key].push_back(i);
  }
  // The series' order kept; aggregates get their own chart.
  std::vector<PlannedChart> plans;
  for (const auto& key : order) plans.push_back(scaling_chart(report, groups.at(key)));
  return plans;
}

std::vector<PlannedChart> size_charts(const Report& report) {
  std::vector<PlannedChart> plans;
  for (const auto& r : report.runs)
    if (r.run) run_size_charts(report, r, plans);
  return plans;
}

std::vector<PlannedChart> per_device_charts(const Report& report) {
  std::vector<PlannedChart> plans;
  for (const auto& r : report.runs)
    if (r.run)
      for (const auto& d : per_device_rates(*r.run))
        plans.push_back(per_device_chart(report, r, d));
  return plans;
}

FirstChart first_screen_chart(const Report& report, const std::vector<PlannedChart>& scaling,
                              const std::vector<PlannedChart>& sizes) {
  const auto of_finding = [&](const PlannedChart& plan, const Finding& f) {
    return std::any_of(plan.scaling.begin(), plan.scaling.end(), [&](std::size_t i) {
      const auto& s = report.scaling[i];
      return s.run_label == f.run_label && stage_of(s.stage) == f.stage;
    });
  };
  const auto in_band = [&](const PlannedChart& plan, const Finding& f) {
    const auto& band = report.scaling[plan.scaling.front()].band;
    return !band.empty() && f.title.find(band_text(band)) != std::string::npos;
  };
  for (std::size_t rank = 0; rank < report.findings.size(); ++rank) {
    const Finding& f = report.findings[rank];
    if (!f.trustworthy) continue;
    const PlannedChart* match = nullptr;
    for (const auto& plan : scaling) {
      if (!of_finding(plan, f)) continue;
      if (!match) match = &plan;
      if (in_band(plan, f)) {
        match = &plan;
        break;
      }
    }
    if (match)
      return {FirstChart::From::kScaling, static_cast<std::size_t>(match - scaling.data()),
              fmt::format("The chart of finding {} (the first-ranked trustworthy finding with a "
                          "chart): {}",
                          rank + 1, f.title)};
  }
  if (!scaling.empty())
    return {FirstChart::From::kScaling, 0,
            "The first scaling chart (no trustworthy finding has a chart)"};
  if (!sizes.empty())
    return {FirstChart::From::kSizes, 0,
            "The first chart against size (these runs have no scaling chart)"};
  return {};
}

std::vector<PlannedChart> soak_charts(const Report& report) {
  std::vector<PlannedChart> out;
  for (const auto& run : report.runs) {
    if (!run.soak) continue;
    const auto& s = *run.soak;
    for (const auto& node : s.nodes) {
      if (node.patterns.empty()) continue;
      PlannedChart plan;
      plan.run_label = run.label;
      plan.heading = fmt::format("node {}: {}", node.node, soak_verdict(node.verdict));
      plan.heading_run = report.runs.size() > 1 ? run.label : "";
      plan.chart.title = plan.heading;
      plan.chart.x_label = "round";
      plan.chart.y_label = "time against its peers' (1: as fast)";
      plan.chart.draw_title = false;
      ChartSeries line{"its time against its peers'", {}, {}};
      for (std::size_t k = 0; k < s.rounds.size(); ++k) {
        if (std::isnan(node.figure[k])) continue;
        line.x.push_back(static_cast<double>(s.rounds[k].repetition));
        line.y.push_back(node.figure[k]);
      }
      // Without a figure of its own (no case compares its ranks with their peers: a pair sweep
      // alone), the chart is when it was named: 1 in the rounds it was, 0 in the others.
      const bool timeline = line.x.empty();
      if (timeline)
        plan.chart.y_label = "named in the round (1) or not (0)";
      else
        plan.chart.series.push_back(std::move(line));
      std::string caption;
      for (auto i : node.patterns) {
        const auto& p = s.patterns[i];
        caption += (caption.empty() ? "" : "; ") + soak_pattern_line(s, p);
        if (p.kind == SoakPatternKind::kDrift) continue;
        ChartSeries named{fmt::format("named: {} ({})", p.subject.what, name_of(p.kind)), {}, {}};
        if (timeline) {
          std::vector<double> in(s.rounds.size(), 0.0);
          for (auto k : p.rounds) in[k] = 1.0;
          for (std::size_t k = 0; k < s.rounds.size(); ++k) {
            named.x.push_back(static_cast<double>(s.rounds[k].repetition));
            named.y.push_back(in[k]);
          }
        } else {
          for (auto k : p.rounds) {
            named.x.push_back(static_cast<double>(s.rounds[k].repetition));
            named.y.push_back(std::isnan(node.figure[k]) ? 1.0 : node.figure[k]);
          }
        }
        plan.chart.series.push_back(std::move(named));
      }
      plan.caption = caption;
      out.push_back(std::move(plan));
    }
  }
  return out;
}

}  // namespace preflight::report
