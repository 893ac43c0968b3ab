// The terminal summary: what each file holds, case by case, with the figures that matter most.
#pragma once

#include <cstdio>

#include "reader/results_reader.hpp"

namespace preflight::report {

void print_summary(std::FILE* out, const RunData& run);

}  // namespace preflight::report
