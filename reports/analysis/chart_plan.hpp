// The report's own charts (a plug-in plans its own in its Section), planned from what the
// analyses found: which series, which axes, which points, and what is said with each. Plain
// data: the HTML renderer draws them (render/html_charts.hpp) and orders them on its page.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "analysis/chart.hpp"
#include "analysis/report.hpp"

namespace preflight::report {

struct PlannedChart {
  std::string run_label;    // the run it belongs to
  std::string heading;      // what it shows, in words
  std::string heading_run;  // the run to name after the heading ("" when the heading need not)
  Chart chart;
  std::string caption;  // what goes under it ("" for nothing)
  // A scaling chart's series (indices into Report::scaling), the axis they are read against
  // and their unit: its table of efficiencies, and the finding it belongs to.
  std::vector<std::size_t> scaling;
  bool by_ranks = false;
  std::string unit;
};

// Scaling: per run, per family and metric (and size band, and for aggregates which of their
// curves), the metric against the scales, one line per subject and series.
std::vector<PlannedChart> scaling_charts(const Report& report);
// Per run, per group of size-banded cases that differ only in where they ran (the same declared
// subject), the headline figure against the size, one line per case.
std::vector<PlannedChart> size_charts(const Report& report);
// Each rank's rate beside its peers' median, one chart per case that compares peers
// (analysis/per_device.hpp): the slow device is the point below the line.
std::vector<PlannedChart> per_device_charts(const Report& report);

// A soak's nodes that a pattern names: its figure against its peers' round by round (1: as
// fast as they), and for each pattern the rounds it was named in, marked on that line.
std::vector<PlannedChart> soak_charts(const Report& report);

// The chart the first screen shows, and the sentence that says why (docs/report.md): the
// scaling chart of the first-ranked trustworthy finding that has one (a chart of the finding's
// run whose series are of the finding's stage, the one of its size band first), else the first
// scaling chart, else the first chart against size.
struct FirstChart {
  enum class From { kNone, kScaling, kSizes } from = From::kNone;
  std::size_t index = 0;  // into the charts it is from
  std::string why;
};
FirstChart first_screen_chart(const Report& report, const std::vector<PlannedChart>& scaling,
                              const std::vector<PlannedChart>& sizes);

}  // namespace preflight::report
