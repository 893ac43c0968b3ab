// Small text helpers the renderers share: numbers that may be missing, rank lists, the verdict.
#pragma once

#include <string>
#include <vector>

#include "analysis/report.hpp"

namespace preflight::report {

// "-" for NaN, else the value with `digits` significant digits.
std::string figure(double value, int digits = 4);
std::string join_ranks(const std::vector<int>& ranks);
// "pass", "fail" or "inconclusive": the report's overall verdict, from its exit code.
const char* overall_verdict(const Report& report);
struct VerdictCounts {
  std::size_t pass = 0, fail = 0, inconclusive = 0;
};
VerdictCounts count_checks(const Report& report);

}  // namespace preflight::report
