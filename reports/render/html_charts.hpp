// Charts on the HTML page: each drawn by gnuplot (render/charts.hpp) into a <figure>, with its
// legend beside the plot where the SVG has none, or a note where it could not be drawn. What a
// chart shows is planned elsewhere (analysis/chart_plan.hpp, a plug-in's Section).
#pragma once

#include <string>

#include "analysis/chart.hpp"
#include "analysis/chart_plan.hpp"

namespace preflight::report {

// Where a figure sits on the page: its SVG's id prefix, its anchor and its CSS classes.
struct FigurePlace {
  std::string svg_id, anchor, classes;
};

// The <figure>: `caption` is HTML ("" for none); `gnuplot` as HtmlOptions has it.
std::string chart_figure(Chart chart, const FigurePlace& place, const std::string& caption,
                         const std::string& gnuplot);
// A section's chart, numbered so that its SVG ids (c<number>) and anchor (chart-<number>) are
// its own.
std::string numbered_chart(const Chart& chart, int number, const std::string& caption,
                           const std::string& gnuplot);
// A planned chart's heading, escaped: what it shows and, where it says, its run.
std::string chart_heading(const PlannedChart& plan);

}  // namespace preflight::report
