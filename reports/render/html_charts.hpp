// Charts on the HTML page: each drawn by gnuplot (render/charts.hpp) into a <figure>, with its
// legend beside the plot where the SVG has none, or a note where it could not be drawn. What a
// chart shows is planned elsewhere (analysis/chart_plan.hpp, a plug-in's Section).
#pragma once

#include <memory>
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

// The page's figures, drawn as the page asks for them but not waited for: gnuplot draws several
// at once (as many as the machine has cores), and each figure's place on the page holds a marker
// until fill() puts the figure there. One after another, a page of 27 charts took 2.6 s.
class ChartFigures {
 public:
  explicit ChartFigures(std::string gnuplot);
  ~ChartFigures();  // waits for the figures still being drawn
  ChartFigures(const ChartFigures&) = delete;
  ChartFigures& operator=(const ChartFigures&) = delete;
  // The figure's marker (an HTML comment: no escaped text can hold one).
  std::string figure(Chart chart, const FigurePlace& place, const std::string& caption);
  // A section's chart, numbered so that its SVG ids (c<number>) and anchor (chart-<number>) are
  // its own.
  std::string numbered(const Chart& chart, int number, const std::string& caption);
  // `page` with every marker replaced by its figure.
  std::string fill(const std::string& page);

 private:
  struct Drawing;
  std::unique_ptr<Drawing> drawing_;
};
// A planned chart's heading, escaped: what it shows and, where it says, its run.
std::string chart_heading(const PlannedChart& plan);

}  // namespace preflight::report
