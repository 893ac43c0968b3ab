#include "render/text_format.hpp"

#include <fmt/format.h>

#include <cmath>

namespace preflight::report {

std::string figure(double value, int digits) {
  return std::isnan(value) ? std::string("-") : fmt::format("{:.{}g}", value, digits);
}

std::string join_ranks(const std::vector<int>& ranks) {
  std::string out;
  for (int r : ranks) out += fmt::format("{}{}", out.empty() ? "" : ",", r);
  return out;
}

const char* overall_verdict(const Report& report) {
  switch (report.exit_code()) {
    case 0:
      return "pass";
    case 1:
      return "fail";
    default:
      return "inconclusive";
  }
}

VerdictCounts count_checks(const Report& report) {
  VerdictCounts n;
  for (const auto& c : report.checks) {
    n.pass += c.verdict == CheckVerdict::kPass;
    n.fail += c.verdict == CheckVerdict::kFail;
    n.inconclusive += c.verdict == CheckVerdict::kInconclusive;
  }
  return n;
}

}  // namespace preflight::report
