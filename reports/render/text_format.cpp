#include "render/text_format.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "analysis/format.hpp"

namespace preflight::report {

std::string join_ranks(const std::vector<int>& ranks) {
  std::string out;
  for (int r : ranks) out += fmt::format("{}{}", out.empty() ? "" : ",", r);
  return out;
}

std::vector<std::string> chart_as_text(const Chart& chart, std::size_t every) {
  std::vector<std::string> out;
  for (const auto& series : chart.series) {
    std::string line = fmt::format("{} ({} -> {}):", series.label, chart.x_label, chart.y_label);
    const std::size_t n = std::min(series.x.size(), series.y.size());
    for (std::size_t i = 0; i < n; ++i)
      if (i % every == 0 || i + 1 == n)
        line += fmt::format(" {} -> {}{}", figure(series.x[i], 3), figure(series.y[i], 3),
                            i + 1 == n ? "" : ",");
    if (n == 0) line += " no points (not drawn)";
    out.push_back(std::move(line));
  }
  return out;
}

}  // namespace preflight::report
