// The terminal report: what each file holds, case by case, with the figures that matter most,
// then what the analyses found.
#pragma once

#include <cstdio>

#include "analysis/report.hpp"

namespace preflight::report {

// Everything in the report: each run's cases, then bottlenecks, checks, scaling, fits,
// regressions and the instance comparison, and the verdict last. Colour only when `colour`.
void print_report(std::FILE* out, const Report& report, bool colour);

}  // namespace preflight::report
