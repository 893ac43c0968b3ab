// preflight-report: turns results files into summaries. Links HDF5, not MPI: runs anywhere.
#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <cstdio>

#include "preflight/schema/h5.hpp"
#include "reader/results_reader.hpp"
#include "render/terminal.hpp"

namespace {

// The report's exit codes (README.md): 0 all read, 2 bad input.
constexpr int kOk = 0;
constexpr int kBadInput = 2;

}  // namespace

int main(int argc, char** argv) {
  preflight::h5::silence_library_errors();
  CLI::App app{"preflight-report: summaries of preflight results files"};
  std::vector<std::string> files;
  app.add_option("files", files, "Results files written by preflight")->required();
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
  for (const auto& run : runs) preflight::report::print_summary(stdout, run);
  return kOk;
}
