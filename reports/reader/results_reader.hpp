// Reads preflight results files through the same schema definitions the writer uses
// (results-schema/). Every problem with a file -- not HDF5, truncated, another schema version,
// a required part missing -- is a ReadError naming the file and the part, never a crash.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace preflight::report {

struct ReadError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One column of a case's stats table; numbers as double (ints fit), or strings.
struct Column {
  std::string unit;
  std::string better;  // "higher", "lower" or "" for no metric
  std::vector<double> numbers;
  std::vector<std::string> strings;
};

struct CaseData {
  std::int64_t index = 0;
  std::string group_name;  // "000012"
  std::string name, family, backend, status;
  std::map<std::string, std::string> params;  // every other string or number attribute, as text
  std::map<std::string, Column> stats;        // empty for a case that timed out before a size ended
  // Per point (size): each timed iteration's time, the slowest rank's, from the raw samples.
  std::vector<std::vector<double>> iteration_times;
  // Per point: bytes all ranks moved in each timed iteration, from counters/bytes where the
  // family writes it (storage; a time-bounded read moves a varying amount); else empty.
  std::vector<std::vector<double>> iteration_bytes;
  // Per counter the family writes (other than bytes; storage: lat_p50, ...), per point: each
  // timed iteration's median over the active ranks.
  std::map<std::string, std::vector<std::vector<double>>> iteration_counters;
  // Per point: each rank's median time over the iterations (NaN where it idled); with
  // counters/bytes, its median time per byte, so that a rank that reads less in a time-bounded
  // read is the slow one.
  std::vector<std::vector<double>> rank_medians;
  std::size_t rows() const;
  // (point, group) -> row of stats, built by the reader so that lookups stay cheap with many
  // groups; empty for a CaseData made by hand (lookups then scan).
  std::map<std::pair<std::int64_t, std::int64_t>, std::size_t> row_index;
};

struct RunData {
  std::string path;
  std::int64_t schema_version = 0;
  std::string status, git_revision, command_line, config, start_time, end_time;
  std::int64_t exit_code = -1, world_size = 0, node_count = 0;
  std::map<std::string, std::vector<std::string>> environment;  // column -> one entry per rank
  std::vector<CaseData> cases;
};

// Throws ReadError.
RunData read_run(const std::string& path);

}  // namespace preflight::report
