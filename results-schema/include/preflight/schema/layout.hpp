// The one definition of the results file layout (results-schema/SPEC.md describes it in
// prose). The writer in bench/ and the reader in reports/ both use these names; a test checks
// that SPEC.md lists every item defined here.
#pragma once

#include <array>
#include <string_view>

namespace preflight::schema {

// Bump on any change a reader of the previous version would misread.
inline constexpr int kVersion = 1;

enum class Type { kInt64, kUInt64, kFloat64, kString };

// One attribute or one column dataset: its name, element type, unit ("" for none) and meaning.
struct Item {
  std::string_view name;
  Type type;
  std::string_view unit;
  std::string_view description;
};

// Group and dataset names.
inline constexpr std::string_view kEnvironmentGroup = "environment";
inline constexpr std::string_view kCasesGroup = "cases";
inline constexpr std::string_view kStatsGroup = "stats";
inline constexpr std::string_view kPointsGroup = "points";
inline constexpr std::string_view kGroupOfRank = "group_of_rank";
inline constexpr std::string_view kSamples = "samples";
inline constexpr std::string_view kBatched = "batched";
inline constexpr std::string_view kWrongPerRank = "wrong_per_rank";
inline constexpr std::string_view kCountersGroup = "counters";        // points/<P>/counters/<name>
inline constexpr std::string_view kSeriesGroup = "series";            // points/<P>/series/<name>
inline constexpr std::string_view kIntervalAttribute = "interval_s";  // on a series dataset

// Attribute names every column dataset carries.
inline constexpr std::string_view kUnitAttribute = "units";
inline constexpr std::string_view kBetterAttribute = "better";  // "higher" or "lower" on metrics
inline constexpr std::string_view kDescriptionAttribute = "description";

// Status strings.
namespace run_status {
inline constexpr std::string_view kIncomplete =
    "incomplete";  // not ended: running, killed, or out of time
inline constexpr std::string_view kComplete = "complete";
inline constexpr std::string_view kFailed = "failed";
inline constexpr std::string_view kTimeout = "timeout";
}  // namespace run_status
namespace case_status {
inline constexpr std::string_view kOk = "ok";
inline constexpr std::string_view kFailed = "failed";
inline constexpr std::string_view kTimeout = "timeout";
}  // namespace case_status

inline constexpr std::array kRunAttributes = {
    Item{"schema_version", Type::kInt64, "", "version of this layout"},
    Item{"preflight_version", Type::kString, "", "preflight release that wrote the file"},
    Item{"git_revision", Type::kString, "", "git revision preflight was built from"},
    Item{"command_line", Type::kString, "", "the exact command line of rank 0"},
    Item{"config", Type::kString, "", "the effective configuration, JSON"},
    Item{"start_time", Type::kString, "", "UTC start of the run, ISO 8601"},
    Item{"end_time", Type::kString, "", "UTC end of the run, ISO 8601; empty while running"},
    Item{"status", Type::kString, "", "incomplete, complete, failed or timeout"},
    Item{"exit_code", Type::kInt64, "", "the exit code preflight ended with; -1 while running"},
    Item{"resumes", Type::kString, "",
         "JSON list of the runs that completed this file with --resume"},
    Item{"world_size", Type::kInt64, "ranks", "number of MPI ranks"},
    Item{"node_count", Type::kInt64, "nodes", "number of nodes (virtual nodes when grouped)"},
};

inline constexpr std::array kEnvironmentColumns = {
    Item{"rank", Type::kInt64, "", "MPI world rank"},
    Item{"host", Type::kString, "", "host name the rank ran on"},
    Item{"node", Type::kInt64, "", "node index, 0-based, in order of first rank"},
    Item{"node_name", Type::kString, "", "node label: the host, or host/vN for a virtual node"},
    Item{"local_rank", Type::kInt64, "", "rank within its node"},
    Item{"cpu_model", Type::kString, "", "CPU model name"},
    Item{"cpu_cores", Type::kInt64, "cores", "online logical CPUs"},
    Item{"memory_bytes", Type::kUInt64, "B", "physical memory"},
    Item{"kernel", Type::kString, "", "operating system kernel release"},
    Item{"mpi_library", Type::kString, "", "MPI library version string"},
    Item{"gpu_count", Type::kInt64, "GPUs", "GPUs visible to the rank; 0 when none"},
    Item{"gpu_model", Type::kString, "", "model of the rank's GPU, empty when none"},
    Item{"gpu_uuid", Type::kString, "", "UUID of the rank's GPU, empty when none"},
    Item{"gpu_driver", Type::kString, "", "CUDA driver version, empty when none"},
    Item{"cuda_runtime", Type::kString, "", "CUDA runtime version preflight uses, empty when none"},
    Item{"nccl_version", Type::kString, "", "NCCL version preflight uses, empty when none"},
};

inline constexpr std::array kCaseAttributes = {
    Item{"index", Type::kInt64, "", "position of the case in the run, 0-based"},
    Item{"name", Type::kString, "", "human-readable case name"},
    Item{"family", Type::kString, "", "benchmark family, e.g. comm"},
    Item{"backend", Type::kString, "", "backend within the family, e.g. mpi"},
    Item{"status", Type::kString, "", "ok, failed or timeout"},
    Item{"wrong_elements", Type::kUInt64, "elements",
         "wrong result elements, all points and ranks"},
    Item{"group_count", Type::kInt64, "groups", "rank groups that ran at the same time"},
    Item{"benchmark", Type::kString, "", "name of the campaign's benchmark entry"},
    Item{"variant", Type::kString, "", "name of the variant (environment) it ran under"},
    Item{"repetition", Type::kInt64, "", "repetition of the campaign, 0-based"},
    Item{"timeout_s", Type::kFloat64, "s", "the watchdog's limit for this case"},
};

// Columns of cases/<id>/stats every family writes: one row per point and group.
inline constexpr std::array kStatsColumns = {
    Item{"point", Type::kInt64, "", "index of the point (size) in the case"},
    Item{"group", Type::kInt64, "", "rank group; -1 is all groups together"},
    Item{"group_ranks", Type::kInt64, "ranks",
         "ranks in the group; in the all-groups row, ranks in all groups"},
    Item{"iterations", Type::kInt64, "iterations", "timed per-iteration samples"},
    Item{"stop_reason", Type::kString, "",
         "why timing stopped: max_iterations, budget or precision"},
    Item{"time_min", Type::kFloat64, "s", "per-iteration time, minimum"},
    Item{"time_p5", Type::kFloat64, "s", "per-iteration time, 5th percentile"},
    Item{"time_median", Type::kFloat64, "s", "per-iteration time, median"},
    Item{"time_p95", Type::kFloat64, "s", "per-iteration time, 95th percentile"},
    Item{"time_max", Type::kFloat64, "s", "per-iteration time, maximum"},
    Item{"time_mean", Type::kFloat64, "s", "per-iteration time, mean"},
    Item{"time_cv", Type::kFloat64, "", "per-iteration time, coefficient of variation"},
    Item{"median_ci_low", Type::kFloat64, "s", "95% confidence interval of the median, low end"},
    Item{"median_ci_high", Type::kFloat64, "s", "95% confidence interval of the median, high end"},
    Item{"batch_blocks", Type::kInt64, "blocks", "timed back-to-back blocks"},
    Item{"batch_ops", Type::kInt64, "operations", "operations in each back-to-back block"},
    Item{"batched_time_median", Type::kFloat64, "s", "back-to-back time per operation, median"},
    Item{"batched_time_min", Type::kFloat64, "s", "back-to-back time per operation, minimum"},
    Item{"batched_time_max", Type::kFloat64, "s", "back-to-back time per operation, maximum"},
    Item{"wrong", Type::kUInt64, "elements", "wrong result elements in the group"},
};

// The storage family (SPEC.md, "The storage family").
inline constexpr std::array kStorageCaseAttributes = {
    Item{"engine", Type::kString, "", "psync (pread), io_uring or mmap"},
    Item{"direct", Type::kInt64, "", "1 when the files are opened with O_DIRECT, else 0"},
    Item{"cache_state", Type::kString, "", "direct, evicted, other-node or warm"},
    Item{"access", Type::kString, "", "sequential or random"},
    Item{"file_layout", Type::kString, "", "file-per-rank or shared"},
    Item{"queue_depth", Type::kInt64, "", "reads in flight per thread"},
    Item{"threads", Type::kInt64, "", "reader threads per rank"},
    Item{"bytes_per_rank", Type::kInt64, "B", "bytes each rank reads per size-bounded iteration"},
    Item{"stonewall_s", Type::kFloat64, "s", "time bound of one iteration; 0 when size-bounded"},
    Item{"interval_s", Type::kFloat64, "s", "time one row of series/interval_bw covers"},
    Item{"ranks_per_node", Type::kInt64, "ranks", "active ranks per node in this case"},
    Item{"nodes", Type::kInt64, "nodes", "nodes with active ranks in this case"},
    Item{"ranks", Type::kInt64, "ranks", "active ranks in this case"},
    Item{"layout", Type::kString, "", "the scaling step's label; the case name ends with it"},
    Item{"dataset_dir", Type::kString, "", "the data set directory"},
    Item{"fs_type", Type::kString, "", "file system type of the data set directory"},
    Item{"verify", Type::kInt64, "", "1 when the check pass verified every block"},
};

inline constexpr std::array kStorageStatsColumns = {
    Item{"block_bytes", Type::kInt64, "B", "bytes of each read"},
    Item{"agg_bw", Type::kFloat64, "GB/s",
         "median over iterations of bytes of all ranks / slowest rank's time"},
    Item{"iops", Type::kFloat64, "ops/s",
         "median over iterations of reads of all ranks / slowest rank's time"},
    Item{"rank_bw_min", Type::kFloat64, "GB/s", "per-rank bandwidth, lowest rank"},
    Item{"rank_bw_median", Type::kFloat64, "GB/s", "per-rank bandwidth, median rank"},
    Item{"lat_p50", Type::kFloat64, "s", "median of the per-rank per-iteration p50 latencies"},
    Item{"lat_p99", Type::kFloat64, "s", "median of the per-rank per-iteration p99 latencies"},
    Item{"lat_p999", Type::kFloat64, "s", "median of the per-rank per-iteration p99.9 latencies"},
    Item{"resident_before_max", Type::kFloat64, "",
         "largest fraction of a rank's bytes cached just before a timed read"},
    Item{"bytes_total", Type::kFloat64, "B", "bytes read over all timed iterations"},
};

inline constexpr std::array kStorageCounters = {
    Item{"bytes", Type::kFloat64, "B", "bytes the rank read in the iteration"},
    Item{"ops", Type::kFloat64, "operations", "reads the rank completed in the iteration"},
    Item{"resident_before", Type::kFloat64, "",
         "fraction of the rank's bytes in the page cache just before the iteration"},
    Item{"lat_p50", Type::kFloat64, "s", "median latency of the rank's reads in the iteration"},
    Item{"lat_p99", Type::kFloat64, "s", "99th percentile latency of the same"},
    Item{"lat_p999", Type::kFloat64, "s", "99.9th percentile latency of the same"},
};

inline constexpr std::string_view kStorageIntervalSeries = "interval_bw";  // GB/s

}  // namespace preflight::schema
