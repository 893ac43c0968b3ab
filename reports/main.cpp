// preflight-report: turns results files into summaries. Links HDF5, not MPI: runs anywhere.
#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <cstdio>

#include "preflight/schema/h5.hpp"
#include "reader/results_reader.hpp"
#include "render/terminal.hpp"

namespace {

// The report's exit codes (docs/report.md): 0 all read (and no regression), 1 a regression was
// found, 2 bad input.
constexpr int kOk = 0;
constexpr int kCheckFailed = 1;
constexpr int kBadInput = 2;

}  // namespace

int main(int argc, char** argv) {
  preflight::h5::silence_library_errors();
  CLI::App app{"preflight-report: summaries of preflight results files"};
  std::vector<std::string> files;
  app.add_option("files", files, "Results files written by preflight")->required();
  std::string baseline_path;
  preflight::report::RegressionOptions regression;
  app.add_option("--baseline", baseline_path,
                 "Compare each file with this earlier run (regression)");
  app.add_option("--alpha", regression.alpha, "Significance level of the comparison (0.01)")
      ->check(CLI::Range(1e-9, 0.5));
  app.add_option("--min-change", regression.min_change,
                 "Smallest relative change flagged, e.g. 0.05 for 5% (0.05)")
      ->check(CLI::Range(0.0, 10.0));
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "preflight-report: {}\nRun 'preflight-report --help' for the options.\n",
               e.what());
    return kBadInput;
  }
  // Every file is read before anything is printed: one bad file stops the report with its reason.
  std::vector<preflight::report::RunData> runs;
  for (const auto& path : files) {
    try {
      runs.push_back(preflight::report::read_run(path));
    } catch (const preflight::report::ReadError& e) {
      fmt::print(stderr, "preflight-report: {}\n", e.what());
      return kBadInput;
    }
  }
  if (baseline_path.empty()) {
    for (const auto& run : runs) preflight::report::print_summary(stdout, run);
    return kOk;
  }
  preflight::report::RunData baseline;
  try {
    baseline = preflight::report::read_run(baseline_path);
  } catch (const preflight::report::ReadError& e) {
    fmt::print(stderr, "preflight-report: --baseline: {}\n", e.what());
    return kBadInput;
  }
  bool slower = false;
  for (const auto& run : runs) {
    const auto report = preflight::report::compare_runs(baseline, run, regression);
    preflight::report::print_regression(stdout, baseline, run, report, regression);
    slower = slower || report.count(preflight::report::Verdict::kSlower) > 0;
  }
  return slower ? kCheckFailed : kOk;
}
