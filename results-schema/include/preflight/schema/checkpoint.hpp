// The checkpoint family's names and their meaning (SPEC.md, "The checkpoint family"): the case
// attributes every checkpoint case has, and the save cases' stats columns and counters. A
// restore case is a storage read (storage.hpp's columns and counters) under the checkpoint
// family's name and stage, with these attributes besides. The writer writes these declarations
// and the report's checkpoint plug-in reads the same names.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "preflight/schema/attr.hpp"
#include "preflight/schema/family_names.hpp"
#include "preflight/schema/family_schema.hpp"
#include "preflight/schema/layout.hpp"
#include "preflight/schema/meaning.hpp"
#include "preflight/schema/storage.hpp"

namespace preflight::schema {

// The phase attribute's values.
inline constexpr std::string_view kCheckpointSave = "save";
inline constexpr std::string_view kCheckpointRestore = "restore";

namespace checkpoint {
inline constexpr Attr<std::string> kPhase{"phase", "", "save (write) or restore (read back)"};
inline constexpr Attr<std::string> kModelPreset{
    "model_preset", "", "model preset the checkpoint size came from, or custom"};
inline constexpr Attr<std::int64_t> kParameters{"parameters", "parameters",
                                                "model parameters; 0 when size was given"};
inline constexpr Attr<double> kBytesPerParam{
    "bytes_per_param", "B", "checkpoint bytes per parameter (weights + optimizer state)"};
inline constexpr Attr<std::int64_t> kTensorParallel{"tensor_parallel", "ranks",
                                                    "tensor-parallel degree the split assumes"};
inline constexpr Attr<std::int64_t> kPipelineParallel{"pipeline_parallel", "ranks",
                                                      "pipeline-parallel degree the split assumes"};
inline constexpr Attr<std::int64_t> kDataParallel{"data_parallel", "ranks",
                                                  "data-parallel degree the split assumes"};
inline constexpr Attr<std::int64_t> kCheckpointBytes{"checkpoint_bytes", "B",
                                                     "bytes of the whole checkpoint, all shards"};
inline constexpr Attr<double> kNodeMtbfS{"node_mtbf_s", "s",
                                         "mean time between failures of one node"};
inline constexpr Attr<std::string> kNodeMtbfSource{"node_mtbf_source", "",
                                                   "where node_mtbf_s comes from"};
inline constexpr Attr<std::int64_t> kJobNodes{"job_nodes", "nodes",
                                              "nodes of the training job the interval is for"};
inline constexpr Attr<double> kPlannedIntervalS{
    "planned_interval_s", "s", "checkpoint interval the user plans; 0 when none was given"};
}  // namespace checkpoint
inline constexpr std::array kCheckpointCaseAttributes = {
    checkpoint::kPhase.item(),          checkpoint::kModelPreset.item(),
    checkpoint::kParameters.item(),     checkpoint::kBytesPerParam.item(),
    checkpoint::kTensorParallel.item(), checkpoint::kPipelineParallel.item(),
    checkpoint::kDataParallel.item(),   checkpoint::kCheckpointBytes.item(),
    checkpoint::kNodeMtbfS.item(),      checkpoint::kNodeMtbfSource.item(),
    checkpoint::kJobNodes.item(),       checkpoint::kPlannedIntervalS.item(),
};

// A save case's own attributes (a restore case has the storage family's instead).
namespace checkpoint {
inline constexpr Attr<std::string> kEngine{"engine", "", "psync (pwrite) or io_uring"};
inline constexpr Attr<std::string> kFileLayout{"file_layout", "", "file-per-rank or shared"};
inline constexpr Attr<std::int64_t> kQueueDepth{"queue_depth", "",
                                                "writes in flight (io_uring); 1 for psync"};
inline constexpr Attr<std::int64_t> kBytesPerRank{"bytes_per_rank", "B",
                                                  "bytes of each rank's shard"};
inline constexpr Attr<std::int64_t> kRanksPerNode{"ranks_per_node", "ranks",
                                                  "active ranks per node in this case"};
inline constexpr Attr<std::int64_t> kNodes{"nodes", "nodes",
                                           "nodes with active ranks in this case"};
inline constexpr Attr<std::int64_t> kRanks{"ranks", "ranks", "active ranks in this case"};
inline constexpr Attr<std::string> kLayout{"layout", "",
                                           "the scaling step's label; the case name ends with it"};
inline constexpr Attr<std::string> kDatasetDir{"dataset_dir", "", "the checkpoint directory"};
inline constexpr Attr<std::string> kFsType{"fs_type", "",
                                           "file system type of the checkpoint directory"};
inline constexpr Attr<std::int64_t> kDurable{
    "durable", "", "1 when the save ends with fdatasync of its file and fsync of the directory"};
}  // namespace checkpoint
inline constexpr std::array kCheckpointSaveAttributes = {
    checkpoint::kEngine.item(),       checkpoint::kFileLayout.item(),
    checkpoint::kQueueDepth.item(),   checkpoint::kBytesPerRank.item(),
    checkpoint::kRanksPerNode.item(), checkpoint::kNodes.item(),
    checkpoint::kRanks.item(),        checkpoint::kLayout.item(),
    checkpoint::kDatasetDir.item(),   checkpoint::kFsType.item(),
    checkpoint::kDurable.item(),
};

// Save counters (points/<P>/counters/<name>), in the order an operation reports them.
namespace checkpoint {
inline constexpr Column kBytesCounter{
    "bytes",          Type::kFloat64, "B", "bytes the rank wrote in the iteration",
    Direction::kNone, Kind::kCount};
inline constexpr Column kHandoffSCounter{
    "handoff_s",
    Type::kFloat64,
    "s",
    "time until the rank's last write call returned (its data handed to the file system)",
    Direction::kLower,
    Kind::kTime};
inline constexpr Column kDurableSCounter{
    "durable_s",
    Type::kFloat64,
    "s",
    "time until its fdatasync and the directory's fsync returned; NaN when not durable",
    Direction::kLower,
    Kind::kTime};
}  // namespace checkpoint
inline constexpr std::array kCheckpointCounters = {
    checkpoint::kBytesCounter,
    checkpoint::kHandoffSCounter,
    checkpoint::kDurableSCounter,
};

// Save stats columns: the point column block_bytes, then the figures derived from the samples
// and counters, in this order.
namespace checkpoint {
inline constexpr Column kBlockBytesColumn{"block_bytes",         Type::kInt64,     "B",
                                          "bytes of each write", Direction::kNone, Kind::kCount};
inline constexpr Column kSaveBwColumn{
    "save_bw",
    Type::kFloat64,
    "GB/s",
    "median over iterations of bytes of all ranks / (last finish - first start); a "
    "durable save finishes when its fsyncs return",
    Direction::kHigher,
    Kind::kDataRate,
    PerIteration::kCounterRate,
    kBytesCounter.name,
    true};
inline constexpr Column kHandoffBwColumn{
    "handoff_bw",
    Type::kFloat64,
    "GB/s",
    "median over iterations of bytes of all ranks / (last handoff - first start)",
    Direction::kHigher,
    Kind::kDataRate};
inline constexpr Column kBlockingSColumn{
    "blocking_s",
    Type::kFloat64,
    "s",
    "median over iterations of last finish - first start: how long a synchronous save "
    "blocks training",
    Direction::kLower,
    Kind::kTime};
inline constexpr Column kHandoffSColumn{
    "handoff_s",       Type::kFloat64, "s", "median over iterations of last handoff - first start",
    Direction::kLower, Kind::kTime};
inline constexpr Column kRankBwMinColumn{
    "rank_bw_min",      Type::kFloat64, "GB/s", "per-rank save bandwidth, lowest rank",
    Direction::kHigher, Kind::kDataRate};
inline constexpr Column kRankBwMedianColumn{
    "rank_bw_median",   Type::kFloat64, "GB/s", "per-rank save bandwidth, median rank",
    Direction::kHigher, Kind::kDataRate};
inline constexpr Column kBytesTotalColumn{
    "bytes_total",    Type::kFloat64, "B", "bytes written over all timed iterations",
    Direction::kNone, Kind::kCount};
}  // namespace checkpoint
inline constexpr std::array kCheckpointStatsColumns = {
    checkpoint::kBlockBytesColumn,   checkpoint::kSaveBwColumn,     checkpoint::kHandoffBwColumn,
    checkpoint::kBlockingSColumn,    checkpoint::kHandoffSColumn,   checkpoint::kRankBwMinColumn,
    checkpoint::kRankBwMedianColumn, checkpoint::kBytesTotalColumn, kReleaseSpreadColumn,
};

// What every save case declares (SPEC.md, "The checkpoint family", Meaning).
namespace checkpoint {
inline constexpr std::array kSaveCaseAttributes =
    concat(kCheckpointSaveAttributes, kCheckpointCaseAttributes);
inline constexpr FamilySchema kDeclaration{
    .name = kCheckpointFamily,
    .stage = Stage::kCheckpoint,
    .x_axis = kBlockBytesColumn.name,
    .bands = Bands::kEachPoint,
    .scaling = Scaling::kAggregate,
    .series = "ranks",
    .peer_slow = true,
    .peer_late = false,  // a write does not wait for its peers
    .work_counter = kBytesCounter.name,
    .min_samples = 3,  // an iteration writes a whole checkpoint
    .case_attributes = kSaveCaseAttributes,
    .stats_columns = kCheckpointStatsColumns,
    .counters = kCheckpointCounters,
};

// A restore case is a storage read under the checkpoint family's name and stage: the storage
// family's meaning and figures, with the checkpoint's attributes after the read's own.
inline constexpr std::array kRestoreCaseAttributes =
    concat(kStorageCaseAttributes, kCheckpointCaseAttributes);
inline constexpr FamilySchema kRestoreDeclaration = [] {
  FamilySchema restore = storage::kDeclaration;
  restore.name = kCheckpointFamily;
  restore.stage = Stage::kCheckpoint;
  restore.case_attributes = kRestoreCaseAttributes;
  return restore;
}();
}  // namespace checkpoint

}  // namespace preflight::schema
