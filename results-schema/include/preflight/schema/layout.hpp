// The one definition of the results file layout (results-schema/SPEC.md describes it in
// prose). The writer in bench/ and the reader in reports/ both use these names; a test checks
// that SPEC.md lists every item defined here.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "preflight/schema/attr.hpp"
#include "preflight/schema/item.hpp"
#include "preflight/schema/meaning.hpp"

namespace preflight::schema {

// Bump on any change a reader of the previous version would misread.
// 2: every case declares what its figures mean (meaning.hpp); `better` became `direction`.
inline constexpr int kVersion = 2;

// Group and dataset names.
inline constexpr std::string_view kEnvironmentGroup = "environment";
inline constexpr std::string_view kCasesGroup = "cases";
inline constexpr std::string_view kStatsGroup = "stats";
inline constexpr std::string_view kPointsGroup = "points";
inline constexpr std::string_view kGroupOfRank = "group_of_rank";
inline constexpr std::string_view kSamples = "samples";
inline constexpr std::string_view kBatched = "batched";
inline constexpr std::string_view kWrongPerRank = "wrong_per_rank";
// points/<P>/starts: each rank's start of each timed iteration on rank 0's clock, of a case
// whose figure spans its ranks (SPEC.md, "Spans across ranks").
inline constexpr std::string_view kStarts = "starts";
inline constexpr std::string_view kCountersGroup = "counters";        // points/<P>/counters/<name>
inline constexpr std::string_view kSeriesGroup = "series";            // points/<P>/series/<name>
inline constexpr std::string_view kIntervalAttribute = "interval_s";  // on a series dataset

// Attribute names every column dataset carries.
inline constexpr std::string_view kUnitAttribute = "units";
inline constexpr std::string_view kDescriptionAttribute = "description";
// Version 1 only ("higher" or "lower" on metrics); version 2 writes kDirectionAttribute instead.
inline constexpr std::string_view kBetterAttribute = "better";

// An attribute X with a unit (a run or case attribute whose Item has one) carries it in the
// string attribute X.units: attributes have no attributes of their own in HDF5.
inline constexpr std::string_view kUnitSuffix = ".units";
inline std::string unit_attribute_name(std::string_view name) {
  return std::string(name) + std::string(kUnitSuffix);
}

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
// On a case with status timeout: why the watchdog stopped it (attribute timeout_reason).
inline constexpr std::string_view kTimeoutReasonAttribute = "timeout_reason";
namespace timeout_reason {
inline constexpr std::string_view kNoProgress = "no_progress";  // no operation completed
inline constexpr std::string_view kCaseBudget = "case_budget";  // progressing, past its budget
}  // namespace timeout_reason
// Why a point's per-iteration phase ended (the stats column stop_reason).
namespace stop_reason {
inline constexpr std::string_view kMaxIterations = "max_iterations";  // reached max_iters
inline constexpr std::string_view kBudget = "budget";                 // spent its time budget
inline constexpr std::string_view kPrecision = "precision";  // the median's CI became narrow
inline constexpr std::array kAll = {kMaxIterations, kBudget, kPrecision};
}  // namespace stop_reason

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

// Present on a soak (campaign `soak:`): the campaign's cases were repeated in rounds (the case
// attribute `repetition` is the round) until this much time was spent running them; absent on any
// other run. The report reads such a file as a time series per node (docs/guide-burn-in.md).
inline constexpr std::string_view kSoakAttribute = "soak_s";
inline constexpr std::array kSoakRunAttributes = {
    Item{kSoakAttribute, Type::kFloat64, "s",
         "the soak's duration: rounds of the campaign's cases were started until it was spent"},
};

// A soak's cases may be written as summaries (campaign `soak.samples: summary`, the default): each
// point keeps what the report reads of its per-iteration x per-rank matrices (point_summary.hpp),
// not the matrices. The case attribute `samples` says which form a case's points have; a file
// written before it lacks it (full).
namespace samples_form {
inline constexpr std::string_view kFull = "full";
inline constexpr std::string_view kSummary = "summary";
}  // namespace samples_form
namespace harness {
inline constexpr Attr<std::string> kSamplesForm{
    "samples", "",
    "full: points hold their per-iteration x per-rank matrices; summary: their reductions "
    "(section Summary points)"};
}  // namespace harness
inline constexpr std::array kCaseSamplesAttributes = {harness::kSamplesForm.item()};

// What a summary point holds in place of samples, batched, starts, counters and the interval
// series (points/<P>/<name>; watched series per case, cases/<C>/watched/<name>).
inline constexpr std::string_view kRankTimeMedian = "rank_time_median";
inline constexpr std::string_view kRankBatchedMedian = "rank_batched_median";
inline constexpr std::string_view kIterationSlowest = "iteration_slowest";
inline constexpr std::string_view kCounterSummariesGroup = "counter_summaries";
inline constexpr std::string_view kFaultCellsGroup = "fault_cells";
inline constexpr std::string_view kWatchedGroup = "watched";
inline constexpr std::array kSummaryDatasets = {
    Item{kRankTimeMedian, Type::kFloat64, "s",
         "each rank's median time over the point's iterations; with a work counter, per unit of "
         "work; NaN where the rank idled"},
    Item{kRankBatchedMedian, Type::kFloat64, "s",
         "each rank's median back-to-back time per operation; absent without back-to-back blocks"},
    Item{kIterationSlowest, Type::kFloat64, "s",
         "each timed iteration's time: the slowest active rank's"},
    Item{kCounterSummariesGroup, Type::kFloat64, "",
         "per counter, 2 x iterations: its median over the active ranks (NaN where none), then "
         "its sum over them"},
    Item{kFaultCellsGroup, Type::kFloat64, "",
         "per counter of what should not happen, cells x 3: iteration, rank, value of each cell "
         "neither 0 nor NaN; absent where it has none"},
    Item{kWatchedGroup, Type::kFloat64, "",
         "per watched series, on the case, 4 x world_size: each rank's figure of the rule, its "
         "reference's highest reading (margin: lowest), its readings, those that break the "
         "rule"},
};
// The rows of a watched series' summary (cases/<C>/watched/<name>), in order.
namespace watched_row {
inline constexpr std::size_t kPerRank = 0;    // the rule's figure per rank
inline constexpr std::size_t kReference = 1;  // reference: its highest reading; margin: lowest
inline constexpr std::size_t kReadings = 2;   // readings the rank had
inline constexpr std::size_t kBroken = 3;     // zero: not 0; grows: above the one before
inline constexpr std::size_t kCount = 4;
}  // namespace watched_row
// The rows of a counter's summary (points/<P>/counter_summaries/<name>), in order.
namespace counter_row {
inline constexpr std::size_t kMedian = 0;
inline constexpr std::size_t kTotal = 1;
inline constexpr std::size_t kCount = 2;
}  // namespace counter_row
// The columns of a fault cell (points/<P>/fault_cells/<name>), in order.
namespace fault_column {
inline constexpr std::size_t kIteration = 0;
inline constexpr std::size_t kRank = 1;
inline constexpr std::size_t kValue = 2;
inline constexpr std::size_t kCount = 3;
}  // namespace fault_column

// Present when the campaign left something out because the job's layout makes it meaningless:
// a JSON list of lines, each naming what and why ("benchmark comm: topology inter: every group
// has one rank ...").
inline constexpr std::string_view kSkippedAttribute = "skipped";

// The environment columns a reader names a rank's place by: its host (what a scheduler drains),
// its node label and its GPU.
namespace env {
inline constexpr Item kHost{"host", Type::kString, "", "host name the rank ran on"};
inline constexpr Item kNodeName{"node_name", Type::kString, "",
                                "node label: the host, or host/vN for a virtual node"};
inline constexpr Item kGpuUuid{"gpu_uuid", Type::kString, "",
                               "UUID of the rank's GPU, empty when none"};
}  // namespace env

inline constexpr std::array kEnvironmentColumns = {
    Item{"rank", Type::kInt64, "", "MPI world rank"},
    env::kHost,
    Item{"node", Type::kInt64, "", "node index, 0-based, in order of first rank"},
    env::kNodeName,
    Item{"local_rank", Type::kInt64, "", "rank within its node"},
    Item{"cpu_model", Type::kString, "", "CPU model name"},
    Item{"cpu_cores", Type::kInt64, "cores", "online logical CPUs"},
    Item{"memory_bytes", Type::kUInt64, "B", "physical memory"},
    Item{"kernel", Type::kString, "", "operating system kernel release"},
    Item{"mpi_library", Type::kString, "", "MPI library version string"},
    Item{"gpu_count", Type::kInt64, "GPUs", "GPUs visible to the rank; 0 when none"},
    Item{"gpu_model", Type::kString, "", "model of the rank's GPU, empty when none"},
    env::kGpuUuid,
    Item{"gpu_driver", Type::kString, "", "CUDA driver version, empty when none"},
    Item{"cuda_runtime", Type::kString, "", "CUDA runtime version preflight uses, empty when none"},
    Item{"nccl_version", Type::kString, "", "NCCL version preflight uses, empty when none"},
};

// The environment checks run before anything was measured (bench/harness/env/env_checks.hpp), one
// row per check; files written before the checks existed, or by `--env-check off`, lack the group.
inline constexpr std::string_view kEnvChecksGroup = "env_checks";
inline constexpr std::array kEnvCheckColumns = {
    Item{"check", Type::kString, "", "what was checked, e.g. memlock limit"},
    Item{"status", Type::kString, "", "pass, warn, fail or skipped"},
    Item{"where", Type::kString, "", "the nodes or ranks it concerns: every rank, or their names"},
    Item{"detail", Type::kString, "", "what was found, with the figures"},
    Item{"fix", Type::kString, "", "what to do about a warn or a fail; empty otherwise"},
};
namespace env_check_status {
inline constexpr std::string_view kPass = "pass";
inline constexpr std::string_view kWarn = "warn";
inline constexpr std::string_view kFail = "fail";
inline constexpr std::string_view kSkipped = "skipped";
}  // namespace env_check_status

// Present when the job ran under a scheduler: a JSON object of the job's facts as the scheduler
// gave them to rank 0 (Slurm: kind, job_id, job_name, node_list, partition, nodes, ntasks,
// tasks_per_node, cluster).
inline constexpr std::string_view kSchedulerAttribute = "scheduler";
// Environment columns of the GPU and NCCL, added after the columns above: a reader takes them
// when present (files written before them lack them). Empty, 0 or -1 where there is none.
inline constexpr std::array kGpuEnvironmentColumns = {
    Item{"gpu_pci_bus_id", Type::kString, "",
         "PCI bus id of the rank's GPU (domain:bus:device.function), empty when none"},
    Item{"gpu_memory_bytes", Type::kUInt64, "B", "memory of the rank's GPU, 0 when none"},
    Item{"gpu_nvlinks", Type::kInt64, "links",
         "active NVLinks of the rank's GPU (NVML); -1: not measured (no GPU, or NVML not "
         "loaded)"},
    Item{"nccl_built_version", Type::kString, "",
         "NCCL version preflight was compiled against, empty when built without NCCL"},
    Item{"nccl_env", Type::kString, "",
         "the NCCL_* variables of the rank's environment at start, NAME=VALUE, space-separated"},
};

// Environment columns of the host's RDMA network, added after the GPU columns: a reader takes
// them when present (files written before them lack them). Empty or 0 where there is none.
inline constexpr std::array kNetworkEnvironmentColumns = {
    Item{"rdma_ports", Type::kString, "",
         "the host's active RDMA ports and their rates as the kernel states them, e.g. "
         "`mlx5_0/1 400 Gb/sec (4X NDR)`, comma-separated; empty when none"},
    Item{"rdma_port_count", Type::kInt64, "ports", "active RDMA ports of the host"},
    Item{"rdma_port_gbps", Type::kFloat64, "Gb/s",
         "the link rate of the host's fastest active RDMA port; 0 when none"},
};

namespace harness {
inline constexpr Attr<std::int64_t> kIndex{"index", "", "position of the case in the run, 0-based"};
inline constexpr Attr<std::string> kName{"name", "", "human-readable case name"};
inline constexpr Attr<std::string> kFamily{"family", "", "benchmark family, e.g. comm"};
inline constexpr Attr<std::string> kBackend{"backend", "", "backend within the family, e.g. mpi"};
inline constexpr Attr<std::string> kStatus{"status", "", "ok, failed or timeout"};
inline constexpr Attr<std::uint64_t> kWrongElements{"wrong_elements", "elements",
                                                    "wrong result elements, all points and ranks"};
inline constexpr Attr<std::int64_t> kGroupCount{"group_count", "groups",
                                                "rank groups that ran at the same time"};
inline constexpr Attr<std::string> kBenchmark{"benchmark", "",
                                              "name of the campaign's benchmark entry"};
inline constexpr Attr<std::string> kVariant{"variant", "",
                                            "name of the variant (environment) it ran under"};
inline constexpr Attr<std::int64_t> kRepetition{
    "repetition", "", "repetition of the campaign (a soak's round), 0-based"};
inline constexpr Attr<double> kTimeoutS{
    "timeout_s", "s",
    "the watchdog's limit on this case making no progress (no operation completing)"};
}  // namespace harness
inline constexpr std::array kCaseAttributes = {
    harness::kIndex.item(),      harness::kName.item(),      harness::kFamily.item(),
    harness::kBackend.item(),    harness::kStatus.item(),    harness::kWrongElements.item(),
    harness::kGroupCount.item(), harness::kBenchmark.item(), harness::kVariant.item(),
    harness::kRepetition.item(), harness::kTimeoutS.item(),
};

// When a case ran, written by the harness on every case: the time axis of a soak's rounds and of
// any run's cases. Files written before them lack them; the report then has no time of a case.
namespace harness {
inline constexpr Attr<std::string> kStartTime{
    "start_time", "", "UTC start of the case on rank 0's clock, ISO 8601 to the millisecond"};
inline constexpr Attr<double> kDurationS{
    "duration_s", "s", "how long the case ran on rank 0, its start to its last point's end"};
}  // namespace harness
inline constexpr std::array kCaseTimeAttributes = {
    harness::kStartTime.item(),
    harness::kDurationS.item(),
};

// Further attributes of a case with status timeout (case_budget_s only with case_budget).
inline constexpr std::string_view kCaseBudgetAttribute = "case_budget_s";
namespace harness {
inline constexpr Attr<std::string> kTimeoutMessage{
    "timeout_message", "",
    "what the watchdog found: which ranks on which hosts did not arrive, what each was doing"};
inline constexpr Attr<std::string> kTimeoutReason{kTimeoutReasonAttribute, "",
                                                  "no_progress or case_budget"};
inline constexpr Attr<double> kCaseBudgetS{kCaseBudgetAttribute, "s",
                                           "the longest the case could run while making progress"};
}  // namespace harness
inline constexpr std::array kTimeoutCaseAttributes = {
    harness::kTimeoutMessage.item(),
    harness::kTimeoutReason.item(),
    harness::kCaseBudgetS.item(),
};

// How much of the hosts' CPU went to others while the case ran (bench/harness/run/host_load.hpp),
// written by the harness on every case; NaN where /proc/stat or a rank's boot id could not be
// read, or the case timed out. Files written before it was measured lack them: the report reads
// that as not measured, so they are not required of a file.
inline constexpr std::string_view kHostCpuStolenAttribute = "host_cpu_stolen";
inline constexpr std::string_view kHostCpuForeignAttribute = "host_cpu_foreign";
inline constexpr std::string_view kHostCpuSecondsAttribute = "host_cpu_s";
namespace harness {
inline constexpr Attr<double> kHostCpuStolen{
    kHostCpuStolenAttribute, "",
    "on the host others took the most from while the case ran: the share of its CPU time "
    "the hypervisor gave to other machines"};
inline constexpr Attr<double> kHostCpuForeign{
    kHostCpuForeignAttribute, "",
    "on that host: the share of its CPU time processes other than preflight's ranks used "
    "in user mode; a short case's can be a little below zero (ticks against microseconds)"};
inline constexpr Attr<double> kHostCpuS{
    kHostCpuSecondsAttribute, "s",
    "that host's CPU time over the case (cores x wall): the shares' weight when a run's "
    "cases are pooled"};
}  // namespace harness
inline constexpr std::array kCaseHostLoadAttributes = {
    harness::kHostCpuStolen.item(),
    harness::kHostCpuForeign.item(),
    harness::kHostCpuS.item(),
};

// A case whose figure spans its ranks, first start to last finish (bench/harness/run/rank_span.hpp:
// storage), has these attributes besides its family's, written by the harness.
namespace harness {
inline constexpr Attr<double> kClockErrorS{
    "clock_error_s", "s",
    "how far an active rank's start may be off rank 0's clock: half the round trip its "
    "clock offset was measured with; 0 where every active rank shares rank 0's clock"};
}  // namespace harness
inline constexpr std::array kSpanCaseAttributes = {
    harness::kClockErrorS.item(),
};

// The stats column of such a family beside its span-derived figures: one declaration for all.
inline constexpr Column kReleaseSpreadColumn{
    "release_spread",
    Type::kFloat64,
    "s",
    "median over iterations of the last rank's start - the first's, on rank 0's clock",
    Direction::kNone,
    Kind::kTime};

// Columns of cases/<id>/stats every family writes: one row per point and group.
namespace harness {
inline constexpr Column kPointColumn{
    "point",          Type::kInt64, "", "index of the point (size) in the case",
    Direction::kNone, Kind::kLabel};
inline constexpr Column kGroupColumn{
    "group",          Type::kInt64, "", "rank group; -1 is all groups together",
    Direction::kNone, Kind::kLabel};
inline constexpr Column kGroupRanksColumn{
    "group_ranks",    Type::kInt64,
    "ranks",          "ranks in the group; in the all-groups row, ranks in all groups",
    Direction::kNone, Kind::kLabel};
inline constexpr Column kIterationsColumn{"iterations",     Type::kInt64,
                                          "iterations",     "timed per-iteration samples",
                                          Direction::kNone, Kind::kCount};
inline constexpr Column kStopReasonColumn{
    "stop_reason",    Type::kString, "", "why timing stopped: max_iterations, budget or precision",
    Direction::kNone, Kind::kLabel};
inline constexpr Column kTimeMinColumn{
    "time_min", Type::kFloat64, "s", "per-iteration time, minimum", Direction::kLower, Kind::kTime};
inline constexpr Column kTimeP5Column{
    "time_p5",         Type::kFloat64, "s", "per-iteration time, 5th percentile",
    Direction::kLower, Kind::kTime};
inline constexpr Column kTimeMedianColumn{
    "time_median", Type::kFloat64,     "s", "per-iteration time, median", Direction::kLower,
    Kind::kTime,   PerIteration::kTime};
inline constexpr Column kTimeP95Column{
    "time_p95",        Type::kFloat64, "s", "per-iteration time, 95th percentile",
    Direction::kLower, Kind::kTime};
inline constexpr Column kTimeMaxColumn{
    "time_max", Type::kFloat64, "s", "per-iteration time, maximum", Direction::kLower, Kind::kTime};
inline constexpr Column kTimeMeanColumn{
    "time_mean", Type::kFloat64, "s", "per-iteration time, mean", Direction::kLower, Kind::kTime};
inline constexpr Column kTimeCvColumn{
    "time_cv",         Type::kFloat64, "", "per-iteration time, coefficient of variation",
    Direction::kLower, Kind::kFraction};
inline constexpr Column kMedianCiLowColumn{
    "median_ci_low",   Type::kFloat64, "s", "95% confidence interval of the median, low end",
    Direction::kLower, Kind::kTime};
inline constexpr Column kMedianCiHighColumn{
    "median_ci_high",  Type::kFloat64, "s", "95% confidence interval of the median, high end",
    Direction::kLower, Kind::kTime};
inline constexpr Column kBatchBlocksColumn{"batch_blocks",   Type::kInt64,
                                           "blocks",         "timed back-to-back blocks",
                                           Direction::kNone, Kind::kCount};
inline constexpr Column kBatchOpsColumn{"batch_ops",      Type::kInt64,
                                        "operations",     "operations in each back-to-back block",
                                        Direction::kNone, Kind::kCount};
inline constexpr Column kBatchedTimeMedianColumn{
    "batched_time_median", Type::kFloat64, "s", "back-to-back time per operation, median",
    Direction::kLower,     Kind::kTime};
inline constexpr Column kBatchedTimeMinColumn{
    "batched_time_min", Type::kFloat64, "s", "back-to-back time per operation, minimum",
    Direction::kLower,  Kind::kTime};
inline constexpr Column kBatchedTimeMaxColumn{
    "batched_time_max", Type::kFloat64, "s", "back-to-back time per operation, maximum",
    Direction::kLower,  Kind::kTime};
inline constexpr Column kWrongColumn{"wrong",          Type::kUInt64,
                                     "elements",       "wrong result elements in the group",
                                     Direction::kNone, Kind::kCount};
}  // namespace harness
inline constexpr std::array kStatsColumns = {
    harness::kPointColumn,
    harness::kGroupColumn,
    harness::kGroupRanksColumn,
    harness::kIterationsColumn,
    harness::kStopReasonColumn,
    harness::kTimeMinColumn,
    harness::kTimeP5Column,
    harness::kTimeMedianColumn,
    harness::kTimeP95Column,
    harness::kTimeMaxColumn,
    harness::kTimeMeanColumn,
    harness::kTimeCvColumn,
    harness::kMedianCiLowColumn,
    harness::kMedianCiHighColumn,
    harness::kBatchBlocksColumn,
    harness::kBatchOpsColumn,
    harness::kBatchedTimeMedianColumn,
    harness::kBatchedTimeMinColumn,
    harness::kBatchedTimeMaxColumn,
    harness::kWrongColumn,
};

// What a case declares about its figures (meaning.hpp), written as the case attributes
// kCaseMeaningAttributes. A family fills all but span_nodes, which the harness computes.
struct CaseMeaning {
  Stage stage = Stage::kStep;
  std::string x_axis;  // a stats column; "" = the point index
  Bands bands = Bands::kSizeBands;
  Scaling scaling = Scaling::kNone;
  std::string subject;          // what stays the same along a scaling series
  std::string series;           // which scaling curve the case is on
  std::int64_t span_nodes = 0;  // set by the harness: nodes group 0's ranks span
  bool peer_slow = false;
  bool peer_late = false;
  std::string work_counter;          // a counter, or ""
  std::vector<std::string> quality;  // rule names, e.g. kQualityServedFromMemory
  std::int64_t min_samples = 1;
};

namespace harness {
inline constexpr Attr<std::string> kStage{kStageAttribute, "", "stage in a training step's chain"};
inline constexpr Attr<std::string> kXAxis{
    kXAxisAttribute, "",
    "stats column that is a point's x-axis and identity across runs; empty: point index"};
inline constexpr Attr<std::string> kBands{kBandsAttribute, "",
                                          "how points group: size_bands or each_point"};
inline constexpr Attr<std::string> kScaling{
    kScalingAttribute, "", "how the headline scales with ranks: aggregate, per_rank or none"};
inline constexpr Attr<std::string> kSubject{
    kSubjectAttribute, "",
    "what stays the same along a scaling series: the name without its layout label"};
inline constexpr Attr<std::string> kSeries{kSeriesAttribute, "",
                                           "which scaling curve the case is on"};
inline constexpr Attr<std::int64_t> kSpanNodes{kSpanNodesAttribute, "nodes",
                                               "nodes spanned by group 0's ranks"};
inline constexpr Attr<std::int64_t> kPeerSlow{
    kPeerSlowAttribute, "", "1: a rank whose own time is longer than its peers' is slow"};
inline constexpr Attr<std::int64_t> kPeerLate{
    kPeerLateAttribute, "", "1: a rank whose own time is shorter than its peers' arrived late"};
inline constexpr Attr<std::string> kWorkCounter{
    kWorkCounterAttribute, "",
    "counter of the work each iteration did, when it varies; empty: none"};
inline constexpr Attr<std::string> kQuality{kQualityAttribute, "",
                                            "comma-separated measurement-quality rules"};
inline constexpr Attr<std::int64_t> kMinSamples{
    kMinSamplesAttribute, "iterations",
    "fewer timed iterations than this at a point is too few samples"};
}  // namespace harness
inline constexpr std::array kCaseMeaningAttributes = {
    harness::kStage.item(),       harness::kXAxis.item(),    harness::kBands.item(),
    harness::kScaling.item(),     harness::kSubject.item(),  harness::kSeries.item(),
    harness::kSpanNodes.item(),   harness::kPeerSlow.item(), harness::kPeerLate.item(),
    harness::kWorkCounter.item(), harness::kQuality.item(),  harness::kMinSamples.item(),
};

// Attributes on every stats column dataset, and on every counter and series dataset.
inline constexpr std::array kStatsColumnAttributes = {
    Item{kUnitAttribute, Type::kString, "", "unit of the values; empty when none"},
    Item{kDescriptionAttribute, Type::kString, "", "what the column holds"},
    Item{kDirectionAttribute, Type::kString, "", "which way is better: higher, lower or none"},
    Item{kKindAttribute, Type::kString, "", "label, time, data_rate, work_rate, count or fraction"},
    Item{kHeadlineAttribute, Type::kInt64, "", "1 on the case's one headline column, else 0"},
    Item{kPerIterationAttribute, Type::kString, "",
         "where per-iteration values come from: none, time, inverse_time, counter_rate or "
         "counter_median"},
    Item{kPerIterationSourceAttribute, Type::kString, "",
         "the counter counter_rate and counter_median read; empty otherwise"},
};
inline constexpr std::array kCounterAttributes = {
    kStatsColumnAttributes[0],
    kStatsColumnAttributes[1],
    kStatsColumnAttributes[2],
    kStatsColumnAttributes[3],
};

// What the report watches on a series (meaning.hpp, Watch), written on the series dataset as
// kSeriesWatchAttributes when rule is not none.
struct SeriesWatch {
  Watch rule = Watch::kNone;
  std::string_view finding;       // what a broken rule means, e.g. "throttled"
  double tolerance = 0;           // peers: the fraction a median may lie from the peers';
                                  // margin: how close (in the unit) to the limit is too close
  std::string_view reference;     // reference: the series holding the value to reach; margin:
                                  // the series holding the limit to stay clear of
  std::string_view labels;        // zero: "0x4 name; 0x8 name", the bits of a reading
  Remedy remedy = Remedy::kNone;  // what an operator does when it is broken round after round
};
inline constexpr std::array kSeriesWatchAttributes = {
    Item{kWatchAttribute, Type::kString, "", "the rule: zero, peers, reference, grows or margin"},
    Item{kWatchFindingAttribute, Type::kString, "", "what a reading that breaks it means"},
    Item{kWatchToleranceAttribute, Type::kFloat64, "",
         "peers: how far, as a fraction, a rank's median may lie from its peers'; margin: how "
         "close, in the series' unit, a reading may come to its limit; else 0"},
    Item{kWatchReferenceAttribute, Type::kString, "",
         "reference: the series whose highest reading must be reached; margin: the series "
         "holding the limit; else empty"},
    Item{kWatchLabelsAttribute, Type::kString, "",
         "zero: the reading's bits and their names, `0x4 name; 0x8 name`; else empty"},
    Item{kWatchRemedyAttribute, Type::kString, "",
         "what an operator does when a soak finds it broken again and again: isolate, reboot, "
         "reset or monitor"},
};

// An attribute's value, of its Item's type (kInt64: int64_t, kFloat64: double, else string).
using Value = std::variant<std::int64_t, double, std::string>;

// The values of the tables above, entry by entry in the tables' order.
inline std::array<Value, kCaseMeaningAttributes.size()> values_of(const CaseMeaning& m) {
  std::string quality;
  for (const auto& q : m.quality) quality += (quality.empty() ? "" : ",") + q;
  return {
      std::string(name_of(m.stage)),
      m.x_axis,
      std::string(name_of(m.bands)),
      std::string(name_of(m.scaling)),
      m.subject,
      m.series,
      m.span_nodes,
      std::int64_t{m.peer_slow},
      std::int64_t{m.peer_late},
      m.work_counter,
      quality,
      m.min_samples,
  };
}
inline std::array<Value, kStatsColumnAttributes.size()> values_of(const Column& c) {
  return {
      std::string(c.unit),
      std::string(c.description),
      std::string(name_of(c.direction)),
      std::string(name_of(c.kind)),
      std::int64_t{c.headline},
      std::string(name_of(c.per_iteration)),
      std::string(c.per_iteration_source),
  };
}
inline std::array<Value, kSeriesWatchAttributes.size()> values_of(const SeriesWatch& w) {
  return {std::string(name_of(w.rule)), std::string(w.finding), w.tolerance,
          std::string(w.reference),     std::string(w.labels),  std::string(name_of(w.remedy))};
}
inline std::array<Value, kCounterAttributes.size()> counter_values_of(const Column& c) {
  const auto all = values_of(c);
  return {all[0], all[1], all[2], all[3]};
}

}  // namespace preflight::schema
