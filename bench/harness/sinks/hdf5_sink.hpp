// Rank 0's results file (layout: results-schema/SPEC.md). Each case is written and flushed
// as soon as it ends, so a run that stops early leaves every finished case readable.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "harness/env/env_checks.hpp"
#include "harness/env/environment.hpp"
#include "harness/sinks/sink.hpp"
#include "preflight/schema/h5.hpp"

namespace preflight {

struct RunInfo {
  std::string command_line;
  std::string config_json;
  std::string start_time;
  int world_size = 0;
  int node_count = 0;
  std::vector<std::string> skipped = {};  // what the campaign left out, and why (skipped_in)
  std::vector<EnvCheck> env_checks = {};  // run before anything was measured; empty: not run
  std::string scheduler_json = {};        // the scheduler's facts (scheduler.hpp); empty: none
  double soak_s = 0;                      // the soak's duration; 0: not a soak
  // A soak's points written as summaries (soak.samples: summary; SPEC.md "Summary points").
  bool summary_points = false;
};

// What an earlier run left in a file that --resume completes.
// Finished means status ok or failed; a case that timed out, or whose write was cut short,
// is run again.
struct ExistingCases {
  std::vector<std::size_t> finished;    // indices of the finished cases
  std::vector<std::string> names;       // their names, to check the campaign is the same
  std::vector<std::string> unfinished;  // groups of the cases to run again
  bool any_failed = false;
  double soaked_s = 0;  // the finished cases' duration_s, summed: time a soak has run
  std::string config;   // the effective config the file was written with
  std::int64_t world_size = 0;
  std::int64_t node_count = 0;
};

class Hdf5Sink final : public ResultSink {
 public:
  // Creates `path`; throws h5::Error if it cannot be created.
  static std::unique_ptr<Hdf5Sink> create(const std::string& path, const RunInfo& run,
                                          const std::vector<RankEnvironment>& environment);
  // Reads what a file to complete holds, changing nothing; throws h5::Error when it is no
  // preflight results file of this schema version.
  static ExistingCases inspect(const std::string& path);
  // Opens it to complete: drops the unfinished cases and records this resume.
  static std::unique_ptr<Hdf5Sink> resume(const std::string& path, const RunInfo& run,
                                          const ExistingCases& existing);

  void case_started(const CaseHeading&) override {}
  void point_finished(const CaseHeading&, const PointResult&) override {}
  void case_finished(const CaseRecord& record) override;
  void case_timed_out(const CaseRecord& partial, const TimeoutVerdict& verdict) override;
  void run_finished(const std::string& status, int exit_code, const std::string& note) override;

 private:
  Hdf5Sink(h5::Handle file, bool summaries) : file_(std::move(file)), summaries_(summaries) {}
  h5::Handle file_;
  bool summaries_ = false;  // points written as summaries (write_summary_points)
};

// UTC now, ISO 8601 to the second.
std::string utc_timestamp();

}  // namespace preflight
