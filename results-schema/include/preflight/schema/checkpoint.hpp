// The checkpoint family's names and their meaning (SPEC.md, "The checkpoint family"): the case
// attributes every checkpoint case has, and the save cases' stats columns and counters. A
// restore case is a storage read (storage.hpp's columns and counters) under the checkpoint
// family's name and stage, with these attributes besides. The writer writes these declarations
// and the report's checkpoint plug-in reads the same names.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#include "preflight/schema/layout.hpp"
#include "preflight/schema/meaning.hpp"

namespace preflight::schema {

// The phase attribute's values.
inline constexpr std::string_view kCheckpointSave = "save";
inline constexpr std::string_view kCheckpointRestore = "restore";

inline constexpr std::array kCheckpointCaseAttributes = {
    Item{"phase", Type::kString, "", "save (write) or restore (read back)"},
    Item{"model_preset", Type::kString, "",
         "model preset the checkpoint size came from, or custom"},
    Item{"parameters", Type::kInt64, "parameters", "model parameters; 0 when size was given"},
    Item{"bytes_per_param", Type::kFloat64, "B",
         "checkpoint bytes per parameter (weights + optimizer state)"},
    Item{"tensor_parallel", Type::kInt64, "ranks", "tensor-parallel degree the split assumes"},
    Item{"pipeline_parallel", Type::kInt64, "ranks", "pipeline-parallel degree the split assumes"},
    Item{"data_parallel", Type::kInt64, "ranks", "data-parallel degree the split assumes"},
    Item{"checkpoint_bytes", Type::kInt64, "B", "bytes of the whole checkpoint, all shards"},
    Item{"node_mtbf_s", Type::kFloat64, "s", "mean time between failures of one node"},
    Item{"node_mtbf_source", Type::kString, "", "where node_mtbf_s comes from"},
    Item{"job_nodes", Type::kInt64, "nodes", "nodes of the training job the interval is for"},
    Item{"planned_interval_s", Type::kFloat64, "s",
         "checkpoint interval the user plans; 0 when none was given"},
};

// A save case's own attributes (a restore case has the storage family's instead).
inline constexpr std::array kCheckpointSaveAttributes = {
    Item{"engine", Type::kString, "", "psync (pwrite) or io_uring"},
    Item{"file_layout", Type::kString, "", "file-per-rank or shared"},
    Item{"queue_depth", Type::kInt64, "", "writes in flight (io_uring); 1 for psync"},
    Item{"bytes_per_rank", Type::kInt64, "B", "bytes of each rank's shard"},
    Item{"ranks_per_node", Type::kInt64, "ranks", "active ranks per node in this case"},
    Item{"nodes", Type::kInt64, "nodes", "nodes with active ranks in this case"},
    Item{"ranks", Type::kInt64, "ranks", "active ranks in this case"},
    Item{"layout", Type::kString, "", "the scaling step's label; the case name ends with it"},
    Item{"dataset_dir", Type::kString, "", "the checkpoint directory"},
    Item{"fs_type", Type::kString, "", "file system type of the checkpoint directory"},
    Item{"durable", Type::kInt64, "",
         "1 when the save ends with fdatasync of its file and fsync of the directory"},
};

// Save counters (points/<P>/counters/<name>), in the order an operation reports them.
enum CheckpointCounter : std::size_t {
  kCheckpointBytes,
  kCheckpointHandoff,
  kCheckpointDurable,
  kCheckpointCounterCount
};
inline constexpr std::array kCheckpointCounters = {
    Column{"bytes", Type::kFloat64, "B", "bytes the rank wrote in the iteration", Direction::kNone,
           Kind::kCount},
    Column{"handoff_s", Type::kFloat64, "s",
           "time until the rank's last write call returned (its data handed to the file system)",
           Direction::kLower, Kind::kTime},
    Column{"durable_s", Type::kFloat64, "s",
           "time until its fdatasync and the directory's fsync returned; NaN when not durable",
           Direction::kLower, Kind::kTime},
};
static_assert(kCheckpointCounters.size() == kCheckpointCounterCount);
static_assert(kCheckpointCounters[kCheckpointBytes].name == "bytes");
static_assert(kCheckpointCounters[kCheckpointHandoff].name == "handoff_s");
static_assert(kCheckpointCounters[kCheckpointDurable].name == "durable_s");

// Save stats columns: the point column block_bytes, then the figures derived from the samples
// and counters, in this order.
enum CheckpointColumn : std::size_t {
  kCheckpointBlockBytes,
  kCheckpointSaveBw,
  kCheckpointHandoffBw,
  kCheckpointBlockingS,
  kCheckpointHandoffS,
  kCheckpointRankBwMin,
  kCheckpointRankBwMedian,
  kCheckpointBytesTotal,
  kCheckpointReleaseSpread,
  kCheckpointColumnCount
};
inline constexpr std::array kCheckpointStatsColumns = {
    Column{"block_bytes", Type::kInt64, "B", "bytes of each write", Direction::kNone, Kind::kCount},
    Column{"save_bw", Type::kFloat64, "GB/s",
           "median over iterations of bytes of all ranks / (last finish - first start); a "
           "durable save finishes when its fsyncs return",
           Direction::kHigher, Kind::kDataRate, PerIteration::kCounterRate,
           kCheckpointCounters[kCheckpointBytes].name, true},
    Column{"handoff_bw", Type::kFloat64, "GB/s",
           "median over iterations of bytes of all ranks / (last handoff - first start)",
           Direction::kHigher, Kind::kDataRate},
    Column{"blocking_s", Type::kFloat64, "s",
           "median over iterations of last finish - first start: how long a synchronous save "
           "blocks training",
           Direction::kLower, Kind::kTime},
    Column{"handoff_s", Type::kFloat64, "s", "median over iterations of last handoff - first start",
           Direction::kLower, Kind::kTime},
    Column{"rank_bw_min", Type::kFloat64, "GB/s", "per-rank save bandwidth, lowest rank",
           Direction::kHigher, Kind::kDataRate},
    Column{"rank_bw_median", Type::kFloat64, "GB/s", "per-rank save bandwidth, median rank",
           Direction::kHigher, Kind::kDataRate},
    Column{"bytes_total", Type::kFloat64, "B", "bytes written over all timed iterations",
           Direction::kNone, Kind::kCount},
    kReleaseSpreadColumn,
};
static_assert(kCheckpointStatsColumns.size() == kCheckpointColumnCount);
static_assert(kCheckpointStatsColumns[kCheckpointBlockBytes].name == "block_bytes");
static_assert(kCheckpointStatsColumns[kCheckpointSaveBw].name == "save_bw");
static_assert(kCheckpointStatsColumns[kCheckpointHandoffBw].name == "handoff_bw");
static_assert(kCheckpointStatsColumns[kCheckpointBlockingS].name == "blocking_s");
static_assert(kCheckpointStatsColumns[kCheckpointHandoffS].name == "handoff_s");
static_assert(kCheckpointStatsColumns[kCheckpointRankBwMin].name == "rank_bw_min");
static_assert(kCheckpointStatsColumns[kCheckpointRankBwMedian].name == "rank_bw_median");
static_assert(kCheckpointStatsColumns[kCheckpointBytesTotal].name == "bytes_total");
static_assert(kCheckpointStatsColumns[kCheckpointReleaseSpread].name == "release_spread");

// What every save case declares (SPEC.md, "The checkpoint family", Meaning); a restore case
// declares the storage family's meaning with this stage.
inline constexpr Stage kCheckpointStage = Stage::kCheckpoint;
inline constexpr std::string_view kCheckpointXAxis =
    kCheckpointStatsColumns[kCheckpointBlockBytes].name;
inline constexpr Bands kCheckpointBands = Bands::kEachPoint;
inline constexpr Scaling kCheckpointScaling = Scaling::kAggregate;
inline constexpr std::string_view kCheckpointSeriesName = "ranks";
inline constexpr bool kCheckpointPeerSlow = true;
inline constexpr bool kCheckpointPeerLate = false;  // a write does not wait for its peers
inline constexpr std::string_view kCheckpointWorkCounter =
    kCheckpointCounters[kCheckpointBytes].name;
inline constexpr int kCheckpointMinSamples = 3;  // an iteration writes a whole checkpoint

}  // namespace preflight::schema
