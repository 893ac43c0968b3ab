// The memory family's names and their meaning (SPEC.md, "The memory family"): its case
// attributes, stats columns and series.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#include "preflight/schema/layout.hpp"
#include "preflight/schema/meaning.hpp"

namespace preflight::schema {

inline constexpr std::array kMemoryCaseAttributes = {
    Item{"memory_op", Type::kString, "",
         "copy, scale, add, triad (STREAM's); hbm_triad, d2d, h2d, d2h"},
    Item{"threads", Type::kInt64, "threads", "threads of each rank"},
    Item{"ranks_per_node", Type::kInt64, "ranks", "active ranks per node in this case"},
    Item{"nodes", Type::kInt64, "nodes", "nodes with active ranks in this case"},
    Item{"ranks", Type::kInt64, "ranks", "active ranks in this case"},
    Item{"layout", Type::kString, "", "the case's rank layout; the case name ends with it"},
    Item{"memory_peak", Type::kFloat64, "GB/s", "theoretical bandwidth of a node; NaN: unknown"},
    Item{"memory_peak_source", Type::kString, "", "where memory_peak came from, or why unknown"},
    Item{"interval_s", Type::kFloat64, "s", "time one row of series/interval_bw covers"},
    Item{"telemetry", Type::kString, "", "which telemetry series were recorded, or why not"},
    Item{"bytes_counted", Type::kString, "",
         "what bytes_moved counts per array element, and the convention it follows"},
};

enum MemoryColumn : std::size_t {
  kMemoryArrayBytes,
  kMemoryBytesMoved,
  kMemoryBw,
  kMemoryBatchedBw,
  kMemoryNodeBw,
  kMemoryBatchedNodeBw,
  kMemoryPeakFraction,
  kMemoryBatchedPeakFraction,
  kMemoryRankBwMin,
  kMemoryRankBwMedian,
  kMemoryColumnCount
};
inline constexpr std::array kMemoryStatsColumns = {
    Column{"array_bytes", Type::kInt64, "B", "bytes of each of the rank's arrays", Direction::kNone,
           Kind::kCount},
    Column{"bytes_moved", Type::kInt64, "B",
           "bytes one operation reads and writes on one rank, counted as STREAM does",
           Direction::kNone, Kind::kCount},
    Column{"bw", Type::kFloat64, "GB/s", "bytes_moved / time of the slowest rank: one rank's rate",
           Direction::kHigher, Kind::kDataRate, PerIteration::kInverseTime, "", true},
    Column{"batched_bw", Type::kFloat64, "GB/s", "the same from the back-to-back time",
           Direction::kHigher, Kind::kDataRate, PerIteration::kInverseTime},
    Column{"node_bw", Type::kFloat64, "GB/s", "bw x active ranks per node: one node's rate",
           Direction::kHigher, Kind::kDataRate, PerIteration::kInverseTime},
    Column{"batched_node_bw", Type::kFloat64, "GB/s", "the same from the back-to-back time",
           Direction::kHigher, Kind::kDataRate, PerIteration::kInverseTime},
    Column{"peak_fraction", Type::kFloat64, "", "node_bw / memory_peak; NaN when it is unknown",
           Direction::kHigher, Kind::kFraction, PerIteration::kInverseTime},
    Column{"batched_peak_fraction", Type::kFloat64, "", "batched_node_bw / memory_peak",
           Direction::kHigher, Kind::kFraction, PerIteration::kInverseTime},
    Column{"rank_bw_min", Type::kFloat64, "GB/s",
           "per-rank rate (bytes_moved / median own time), lowest rank", Direction::kHigher,
           Kind::kDataRate},
    Column{"rank_bw_median", Type::kFloat64, "GB/s", "per-rank rate, median rank",
           Direction::kHigher, Kind::kDataRate},
};
static_assert(kMemoryStatsColumns.size() == kMemoryColumnCount);
static_assert(kMemoryStatsColumns[kMemoryArrayBytes].name == "array_bytes");
static_assert(kMemoryStatsColumns[kMemoryBytesMoved].name == "bytes_moved");
static_assert(kMemoryStatsColumns[kMemoryBw].name == "bw");
static_assert(kMemoryStatsColumns[kMemoryBatchedBw].name == "batched_bw");
static_assert(kMemoryStatsColumns[kMemoryNodeBw].name == "node_bw");
static_assert(kMemoryStatsColumns[kMemoryBatchedNodeBw].name == "batched_node_bw");
static_assert(kMemoryStatsColumns[kMemoryPeakFraction].name == "peak_fraction");
static_assert(kMemoryStatsColumns[kMemoryBatchedPeakFraction].name == "batched_peak_fraction");
static_assert(kMemoryStatsColumns[kMemoryRankBwMin].name == "rank_bw_min");
static_assert(kMemoryStatsColumns[kMemoryRankBwMedian].name == "rank_bw_median");

inline constexpr std::array kMemorySeries = {
    Column{"interval_bw", Type::kFloat64, "GB/s",
           "the rank's rate in each interval of interval_s, from its first operation of the point",
           Direction::kHigher, Kind::kDataRate},
};

// What every memory case declares (SPEC.md, "The memory family", Meaning).
inline constexpr Stage kMemoryStage = Stage::kCompute;
inline constexpr std::string_view kMemoryXAxis = kMemoryStatsColumns[kMemoryArrayBytes].name;
inline constexpr Bands kMemoryBands = Bands::kEachPoint;
inline constexpr Scaling kMemoryScaling = Scaling::kPerRank;
inline constexpr std::string_view kMemorySeriesName = "ranks_per_node";
inline constexpr bool kMemoryPeerSlow = true;
inline constexpr bool kMemoryPeerLate = false;
inline constexpr int kMemoryMinSamples = 5;

}  // namespace preflight::schema
