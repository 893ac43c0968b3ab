// One self-contained HTML file: every section of the report, charts as inline SVG drawn by
// gnuplot (a plain note where gnuplot is not installed), no network needed to view it. Every
// string that came from a results file is escaped.
#pragma once

#include <string>

#include "analysis/report.hpp"

namespace preflight::report {

struct HtmlOptions {
  std::string gnuplot = "gnuplot";  // program name or path; "" draws no charts
};

std::string render_html(const Report& report, const HtmlOptions& options = {});

// Text made safe for HTML element content and attribute values.
std::string escape_html(const std::string& text);

}  // namespace preflight::report
