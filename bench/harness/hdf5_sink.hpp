// Rank 0's results file (layout: results-schema/SPEC.md). Each case is written and flushed
// as soon as it ends, so a run that stops early leaves every finished case readable.
#pragma once

#include <string>
#include <vector>

#include "harness/environment.hpp"
#include "harness/sink.hpp"
#include "preflight/schema/h5.hpp"

namespace preflight {

struct RunInfo {
  std::string command_line;
  std::string config_json;
  std::string start_time;
  int world_size = 0;
  int node_count = 0;
};

class Hdf5Sink final : public ResultSink {
 public:
  // Creates `path`; throws h5::Error if it exists or cannot be created.
  Hdf5Sink(const std::string& path, const RunInfo& run,
           const std::vector<RankEnvironment>& environment);
  void case_started(const CaseHeading&) override {}
  void point_finished(const CaseHeading&, const PointResult&) override {}
  void case_finished(const CaseRecord& record) override;
  void run_finished(const std::string& status, int exit_code) override;

 private:
  h5::Handle file_;
};

// UTC now, ISO 8601 to the second.
std::string utc_timestamp();

}  // namespace preflight
