// The terminal summary: what each file holds, case by case, with the figures that matter most.
#pragma once

#include <cstdio>

#include "analysis/regression.hpp"
#include "reader/results_reader.hpp"

namespace preflight::report {

void print_summary(std::FILE* out, const RunData& run);

// The environment changes first, then every size that differs beyond the noise, then counts.
void print_regression(std::FILE* out, const RunData& baseline, const RunData& current,
                      const RegressionReport& report, const RegressionOptions& options);

}  // namespace preflight::report
