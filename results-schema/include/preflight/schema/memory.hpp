// The memory family's names and their meaning (SPEC.md, "The memory family"): its case
// attributes, stats columns and series.
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

namespace preflight::schema {

namespace memory {
inline constexpr Attr<std::string> kMemoryOp{
    "memory_op", "", "copy, scale, add, triad (STREAM's); hbm_triad, d2d, h2d, d2h"};
inline constexpr Attr<std::int64_t> kThreads{"threads", "threads", "threads of each rank"};
inline constexpr Attr<std::int64_t> kRanksPerNode{"ranks_per_node", "ranks",
                                                  "active ranks per node in this case"};
inline constexpr Attr<std::int64_t> kNodes{"nodes", "nodes",
                                           "nodes with active ranks in this case"};
inline constexpr Attr<std::int64_t> kRanks{"ranks", "ranks", "active ranks in this case"};
inline constexpr Attr<std::string> kLayout{"layout", "",
                                           "the case's rank layout; the case name ends with it"};
inline constexpr Attr<double> kMemoryPeak{"memory_peak", "GB/s",
                                          "theoretical bandwidth of a node; NaN: unknown"};
inline constexpr Attr<std::string> kMemoryPeakSource{"memory_peak_source", "",
                                                     "where memory_peak came from, or why unknown"};
inline constexpr Attr<double> kIntervalS{"interval_s", "s",
                                         "time one row of series/interval_bw covers"};
inline constexpr Attr<std::string> kTelemetry{"telemetry", "",
                                              "which telemetry series were recorded, or why not"};
inline constexpr Attr<std::string> kBytesCounted{
    "bytes_counted", "",
    "what bytes_moved counts per array element, and the convention it follows"};
}  // namespace memory
inline constexpr std::array kMemoryCaseAttributes = {
    memory::kMemoryOp.item(),     memory::kThreads.item(),
    memory::kRanksPerNode.item(), memory::kNodes.item(),
    memory::kRanks.item(),        memory::kLayout.item(),
    memory::kMemoryPeak.item(),   memory::kMemoryPeakSource.item(),
    memory::kIntervalS.item(),    memory::kTelemetry.item(),
    memory::kBytesCounted.item(),
};

namespace memory {
inline constexpr Column kArrayBytesColumn{
    "array_bytes",    Type::kInt64, "B", "bytes of each of the rank's arrays",
    Direction::kNone, Kind::kCount};
inline constexpr Column kBytesMovedColumn{
    "bytes_moved",
    Type::kInt64,
    "B",
    "bytes one operation reads and writes on one rank, counted as STREAM does",
    Direction::kNone,
    Kind::kCount};
inline constexpr Column kBwColumn{"bw",
                                  Type::kFloat64,
                                  "GB/s",
                                  "bytes_moved / time of the slowest rank: one rank's rate",
                                  Direction::kHigher,
                                  Kind::kDataRate,
                                  PerIteration::kInverseTime,
                                  "",
                                  true};
inline constexpr Column kBatchedBwColumn{"batched_bw",
                                         Type::kFloat64,
                                         "GB/s",
                                         "the same from the back-to-back time",
                                         Direction::kHigher,
                                         Kind::kDataRate,
                                         PerIteration::kInverseTime};
inline constexpr Column kNodeBwColumn{"node_bw",
                                      Type::kFloat64,
                                      "GB/s",
                                      "bw x active ranks per node: one node's rate",
                                      Direction::kHigher,
                                      Kind::kDataRate,
                                      PerIteration::kInverseTime};
inline constexpr Column kBatchedNodeBwColumn{"batched_node_bw",
                                             Type::kFloat64,
                                             "GB/s",
                                             "the same from the back-to-back time",
                                             Direction::kHigher,
                                             Kind::kDataRate,
                                             PerIteration::kInverseTime};
inline constexpr Column kPeakFractionColumn{"peak_fraction",
                                            Type::kFloat64,
                                            "",
                                            "node_bw / memory_peak; NaN when it is unknown",
                                            Direction::kHigher,
                                            Kind::kFraction,
                                            PerIteration::kInverseTime};
inline constexpr Column kBatchedPeakFractionColumn{
    "batched_peak_fraction",         Type::kFloat64,     "",
    "batched_node_bw / memory_peak", Direction::kHigher, Kind::kFraction,
    PerIteration::kInverseTime};
inline constexpr Column kRankBwMinColumn{
    "rank_bw_min",
    Type::kFloat64,
    "GB/s",
    "per-rank rate (bytes_moved / median own time), lowest rank",
    Direction::kHigher,
    Kind::kDataRate};
inline constexpr Column kRankBwMedianColumn{
    "rank_bw_median",   Type::kFloat64, "GB/s", "per-rank rate, median rank",
    Direction::kHigher, Kind::kDataRate};
}  // namespace memory
inline constexpr std::array kMemoryStatsColumns = {
    memory::kArrayBytesColumn,   memory::kBytesMovedColumn,
    memory::kBwColumn,           memory::kBatchedBwColumn,
    memory::kNodeBwColumn,       memory::kBatchedNodeBwColumn,
    memory::kPeakFractionColumn, memory::kBatchedPeakFractionColumn,
    memory::kRankBwMinColumn,    memory::kRankBwMedianColumn,
};

namespace memory {
inline constexpr Column kIntervalBwSeries{
    "interval_bw",
    Type::kFloat64,
    "GB/s",
    "the rank's rate in each interval of interval_s, from its first operation of the point",
    Direction::kHigher,
    Kind::kDataRate};
}  // namespace memory
inline constexpr std::array kMemorySeries = {
    memory::kIntervalBwSeries,
};

// What every memory case declares (SPEC.md, "The memory family", Meaning).
namespace memory {
inline constexpr FamilySchema kDeclaration{
    .name = kMemoryFamily,
    .stage = Stage::kCompute,
    .x_axis = kArrayBytesColumn.name,
    .bands = Bands::kEachPoint,
    .scaling = Scaling::kPerRank,
    .series = "ranks_per_node",
    .peer_slow = true,
    .peer_late = false,
    .min_samples = 5,
    .case_attributes = kMemoryCaseAttributes,
    .stats_columns = kMemoryStatsColumns,
    .series_datasets = kMemorySeries,
};
}  // namespace memory

}  // namespace preflight::schema
