#include "render/junit.hpp"

#include <fmt/format.h>

#include <map>

#include "analysis/format.hpp"
#include "analysis/report_text.hpp"
#include "render/html.hpp"

namespace preflight::report {
namespace {

// HTML's escaping is XML's; XML 1.0 also allows no control characters but tab, newline and
// carriage return.
std::string xml(const std::string& text) {
  std::string clean = text;
  for (char& c : clean)
    if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') c = ' ';
  return escape_html(clean);
}

std::string test_name(const Check& c) {
  std::string name = c.rule;
  if (!c.case_name.empty()) name += ": " + c.case_name;
  if (!c.size.empty()) name += " @ " + c.size;
  return name;
}

}  // namespace

std::string render_junit(const Report& report) {
  // One suite per run, so CI systems group the checks by run.
  std::map<std::string, std::vector<const Check*>> suites;
  std::vector<std::string> order;
  for (const auto& c : report.checks) {
    if (!suites.count(c.run_label)) order.push_back(c.run_label);
    suites[c.run_label].push_back(&c);
  }
  const auto n = count_checks(report);
  std::string out = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"preflight acceptance\" "
      "tests=\"{}\" failures=\"{}\" skipped=\"{}\" errors=\"0\">\n",
      report.checks.size(), n.fail, n.inconclusive + n.not_measured);
  for (const auto& label : order) {
    const auto& checks = suites[label];
    std::size_t failures = 0, skipped = 0;
    for (const auto* c : checks) {
      failures += c->verdict == CheckVerdict::kFail;
      skipped +=
          c->verdict == CheckVerdict::kInconclusive || c->verdict == CheckVerdict::kNotMeasured;
    }
    out += fmt::format(
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" errors=\"0\">\n",
        xml(label), checks.size(), failures, skipped);
    for (const auto* c : checks) {
      out += fmt::format("    <testcase classname=\"{}\" name=\"{}\">\n",
                         xml("preflight." + c->rule), xml(test_name(*c)));
      const auto detail = fmt::format("{} = {} {} (expected {}, threshold {}, {} samples): {}",
                                      c->metric, figure(c->value), c->unit, figure(c->expected),
                                      figure(c->threshold), c->samples, c->reason);
      if (c->verdict == CheckVerdict::kFail)
        out += fmt::format("      <failure message=\"{}\">{}</failure>\n", xml(c->reason),
                           xml(detail));
      else if (c->verdict != CheckVerdict::kPass)
        out += fmt::format("      <skipped message=\"{}: {}\"/>\n", name_of(c->verdict),
                           xml(c->reason));
      out += fmt::format("      <system-out>{}</system-out>\n    </testcase>\n", xml(detail));
    }
    out += "  </testsuite>\n";
  }
  return out + "</testsuites>\n";
}

}  // namespace preflight::report
