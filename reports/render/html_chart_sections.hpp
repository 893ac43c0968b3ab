// The HTML page's sections of charts: scaling (each chart with its table of efficiencies),
// against size, the plug-ins' sections (their tables, then their charts) and per device. The
// charts are planned in analysis (analysis/chart_plan.hpp, a plug-in's Section); each is
// numbered on from the charts before it on the page (`numbered_before`), so that its SVG ids
// and its anchor are its own. Each appends to `out`, the page.
#pragma once

#include <string>
#include <vector>

#include "analysis/chart_plan.hpp"
#include "analysis/report.hpp"
#include "render/html_charts.hpp"

namespace preflight::report {

// Numbered from 1: the page draws them first.
void scaling_section(std::string& out, const Report& report, const std::vector<PlannedChart>& plans,
                     ChartFigures& charts);
void size_section(std::string& out, const Report& report, const std::vector<PlannedChart>& plans,
                  int numbered_before, ChartFigures& charts);
// Returns the number of the last chart drawn.
int plugin_sections(std::string& out, const Report& report, int numbered_before,
                    ChartFigures& charts);
// A soak's nodes and its charts (the first 24); nothing for a run that is not a soak. Returns
// the number of the last chart drawn.
int soak_section(std::string& out, const Report& report, int numbered_before, ChartFigures& charts);
// The first 24 (the rest counted); no section when no case compares peers.
void per_device_section(std::string& out, const Report& report, int numbered_before,
                        ChartFigures& charts);

}  // namespace preflight::report
