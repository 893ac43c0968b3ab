// JUnit XML: one test case per acceptance check, so CI systems list them; a failed check is a
// failure, an inconclusive one is skipped with its reason.
#pragma once

#include <string>

#include "analysis/report.hpp"

namespace preflight::report {

std::string render_junit(const Report& report);

}  // namespace preflight::report
