// A chart as the analyses plan it: which series, which axes, which points. Plain data in the
// report's model; render/charts.hpp draws it (gnuplot, SVG) and every other renderer lists its
// points, so that planning a chart never depends on how it is drawn.
#pragma once

#include <string>
#include <vector>

namespace preflight::report {

struct ChartSeries {
  std::string label;  // legend entry (untrusted: sanitised before it reaches gnuplot)
  std::vector<double> x, y;
};

struct Chart {
  std::string title, x_label, y_label;  // untrusted: sanitised
  bool log_x = false, log_y = false;
  bool x_bytes = false;  // x is a size in bytes: ticks at powers of two, labelled 4 KiB, 1 MiB
  int width = 760, height = 380;  // the SVG's view box; it scales to the page
  bool draw_title = true;         // false where the page heads the chart already (the SVG keeps it)
  std::string id;  // prefix for the SVG's element ids, so that several charts share a page
  std::vector<ChartSeries> series;
};

}  // namespace preflight::report
