// The Markdown summary: verdict first, then bottlenecks, acceptance checks, scaling, regression
// and instance comparison, as tables a wiki or a pull request shows.
#pragma once

#include <string>

#include "analysis/report.hpp"

namespace preflight::report {

std::string render_markdown(const Report& report);

}  // namespace preflight::report
