// The Prometheus exposition: names from a results file are escaped and cannot add labels or
// lines; repeated label sets stay apart; every check and environment check is a sample.
#include "render/prometheus.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace preflight::report {
namespace {

TEST(Prometheus, LabelValuesAreEscaped) {
  EXPECT_EQ(prometheus_label_value(R"(a"b\c)"), R"(a\"b\\c)");
  EXPECT_EQ(prometheus_label_value("two\nlines"), "two\\nlines");
  EXPECT_EQ(prometheus_label_value("caf\xc3\xa9"), "caf\xc3\xa9");  // UTF-8 kept
  EXPECT_EQ(prometheus_label_value("bad\xff"), "bad?");             // not UTF-8: replaced
}

TEST(Prometheus, ChecksAndEnvironmentChecksAreSamples) {
  RunData run;
  run.path = "r.h5";
  run.env_checks.push_back({"memlock limit", "fail", "every rank", "64 KiB", "ulimit -l"});
  run.environment["host"] = {"node\"1"};
  run.environment["node_name"] = {"node\"1"};
  Report report;
  report.runs.push_back({&run, "r", {}, {}});
  Check c;
  c.rule = "bus \"bandwidth\"\n} evil 1";
  c.run_label = "r";
  c.case_name = "000001 allreduce";
  c.metric = "busbw";
  c.value = 12.5;
  c.verdict = CheckVerdict::kFail;
  report.checks.push_back(c);
  report.checks.push_back(c);  // the same labels twice
  const std::string text = render_prometheus(report);
  EXPECT_NE(text.find("# TYPE preflight_report_exit_code gauge\npreflight_report_exit_code 1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(R"(rule="bus \"bandwidth\"\n} evil 1")"), std::string::npos) << text;
  EXPECT_NE(text.find(R"(,duplicate="1"} 12.5)"), std::string::npos) << text;
  EXPECT_NE(
      text.find(
          R"(preflight_env_check{run="r",check="memlock limit",where="every rank",status="fail"} 1)"),
      std::string::npos)
      << text;
  // Every line is a comment or one sample: name, labels, one value, nothing after.
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("# ", 0) == 0) continue;
    EXPECT_EQ(line.rfind("preflight_", 0), 0u) << line;
  }
}

}  // namespace
}  // namespace preflight::report
