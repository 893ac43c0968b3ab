// Small text helpers the renderers share: rank lists, a chart listed as text.
#pragma once

#include <string>
#include <vector>

#include "analysis/chart.hpp"

namespace preflight::report {

std::string join_ranks(const std::vector<int>& ranks);
// A chart for text outputs: one line per series, "label: x1 -> y1, x2 -> y2, ..." with every
// `every`-th point (and the last), so that a terminal shows what the HTML draws.
std::vector<std::string> chart_as_text(const Chart& chart, std::size_t every = 5);

}  // namespace preflight::report
