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

// A soak's nodes, one test case each in a suite of their own: isolate, reboot and reset fail,
// monitor and ok pass (a monitor's patterns in its output).
struct SoakSuite {
  std::string text;
  std::size_t tests = 0, failures = 0;
};

SoakSuite soak_suite(const RunReport& run) {
  SoakSuite out;
  if (!run.soak) return out;
  const auto& s = *run.soak;
  std::string cases;
  for (const auto& n : s.nodes) {
    ++out.tests;
    std::string detail;
    for (auto i : n.patterns) detail += soak_pattern_line(s, s.patterns[i]) + "\n";
    for (const auto& c : n.commands) detail += "$ " + c + "\n";
    cases +=
        fmt::format("    <testcase classname=\"preflight.soak\" name=\"{}\">\n",
                    xml(fmt::format("node {} ({}): {}", n.node, n.host, soak_verdict(n.verdict))));
    const bool fails = n.verdict == schema::Remedy::kIsolate ||
                       n.verdict == schema::Remedy::kReboot || n.verdict == schema::Remedy::kReset;
    if (fails) {
      ++out.failures;
      cases += fmt::format("      <failure message=\"{}\">{}</failure>\n",
                           xml(fmt::format("soak: {} node {}", soak_verdict(n.verdict), n.node)),
                           xml(detail));
    }
    cases += fmt::format("      <system-out>{}</system-out>\n    </testcase>\n",
                         xml(detail.empty() ? "no pattern over the soak's rounds" : detail));
  }
  out.text = fmt::format(
      "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" skipped=\"0\" errors=\"0\">\n{}"
      "  </testsuite>\n",
      xml(run.label + " soak"), out.tests, out.failures, cases);
  return out;
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
  std::vector<SoakSuite> soaks;
  std::size_t soak_tests = 0, soak_failures = 0;
  for (const auto& run : report.runs) {
    soaks.push_back(soak_suite(run));
    soak_tests += soaks.back().tests;
    soak_failures += soaks.back().failures;
  }
  std::string out = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"preflight acceptance\" "
      "tests=\"{}\" failures=\"{}\" skipped=\"{}\" errors=\"0\">\n",
      report.checks.size() + soak_tests, n.fail + soak_failures, n.inconclusive + n.not_measured);
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
  for (const auto& suite : soaks) out += suite.text;
  return out + "</testsuites>\n";
}

}  // namespace preflight::report
