// Charts for the HTML report, drawn by gnuplot as SVG. The harness of the report never depends on
// gnuplot being installed: a chart that cannot be drawn says why instead.
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
  std::vector<ChartSeries> series;
};

struct ChartResult {
  std::string svg;   // inline <svg>...</svg>, empty when not drawn
  std::string note;  // why it was not drawn, when it was not
};

ChartResult draw_chart(const Chart& chart, const std::string& gnuplot);

}  // namespace preflight::report
