// Charts for the HTML report (planned in analysis/chart.hpp), drawn by gnuplot as SVG. The harness
// of the report never depends on gnuplot being installed: a chart that cannot be drawn says why
// instead.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "analysis/chart.hpp"

namespace preflight::report {

// More series than this and the legend would crowd the plot (long labels, one per line): the SVG
// is drawn without one and the page lists the series beside it (ChartResult::legend).
inline constexpr std::size_t kMaxSeriesInPlotLegend = 8;

// How one drawn series looks, so that a legend outside the SVG matches its line.
struct LegendEntry {
  std::string label;   // sanitised, as gnuplot would print it
  std::string colour;  // "#0072b2"
  int dash = 1;        // gnuplot dash type: 1 solid, 2 dashed, 3 dotted, 4 dash-dot
  int marker = 0;      // 0 circle, 1 square, 2 triangle, 3 diamond
};

struct ChartResult {
  std::string svg;                  // inline <svg>...</svg>, empty when not drawn
  std::string note;                 // why it was not drawn, when it was not
  std::vector<LegendEntry> legend;  // every drawn series, in plot order
  bool legend_in_plot = true;       // false: the SVG has no legend; show `legend` beside it
};

// Runs `gnuplot` (a program name looked up on PATH, or a path; no shell) on a script written to
// a temporary file. Points that are not finite, or not positive on a log axis, are skipped, and
// so are series left without points.
ChartResult draw_chart(const Chart& chart, const std::string& gnuplot);

// Text reduced to characters that are inert in a gnuplot single-quoted string and in SVG text:
// letters, digits, space and . , : ; / ( ) [ ] + - _ % = # * | ! ?; anything else becomes a
// space (runs of spaces are folded). Used for every title, axis label and legend entry.
std::string sanitize_chart_text(const std::string& text);

}  // namespace preflight::report
