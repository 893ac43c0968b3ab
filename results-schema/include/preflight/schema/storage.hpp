// The storage family's names and their meaning (SPEC.md, "The storage family"): its case
// attributes, stats columns, counters and series. The writer writes these declarations and
// the report's storage plug-in reads the same names.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#include "preflight/schema/layout.hpp"
#include "preflight/schema/meaning.hpp"

namespace preflight::schema {

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

// Counters (points/<P>/counters/<name>), in the order an operation reports them: the index
// constants below are that order, checked against the table at compile time.
enum StorageCounter : std::size_t {
  kStorageBytes,
  kStorageOps,
  kStorageResidentBefore,
  kStorageLatP50,
  kStorageLatP99,
  kStorageLatP999,
  kStorageCounterCount
};
inline constexpr std::array kStorageCounters = {
    Column{"bytes", Type::kFloat64, "B", "bytes the rank read in the iteration", Direction::kNone,
           Kind::kCount},
    Column{"ops", Type::kFloat64, "operations", "reads the rank completed in the iteration",
           Direction::kNone, Kind::kCount},
    Column{"resident_before", Type::kFloat64, "",
           "fraction of the rank's bytes in the page cache just before the iteration",
           Direction::kLower, Kind::kFraction},
    Column{"lat_p50", Type::kFloat64, "s", "median latency of the rank's reads in the iteration",
           Direction::kLower, Kind::kTime},
    Column{"lat_p99", Type::kFloat64, "s", "99th percentile latency of the same", Direction::kLower,
           Kind::kTime},
    Column{"lat_p999", Type::kFloat64, "s", "99.9th percentile latency of the same",
           Direction::kLower, Kind::kTime},
};
static_assert(kStorageCounters.size() == kStorageCounterCount);
static_assert(kStorageCounters[kStorageBytes].name == "bytes");
static_assert(kStorageCounters[kStorageOps].name == "ops");
static_assert(kStorageCounters[kStorageResidentBefore].name == "resident_before");
static_assert(kStorageCounters[kStorageLatP50].name == "lat_p50");
static_assert(kStorageCounters[kStorageLatP99].name == "lat_p99");
static_assert(kStorageCounters[kStorageLatP999].name == "lat_p999");

// Stats columns: the point column block_bytes, then the figures derived from the samples and
// counters (no batched twins: a storage case has no back-to-back phase), in this order.
enum StorageColumn : std::size_t {
  kStorageBlockBytes,
  kStorageAggBw,
  kStorageIops,
  kStorageRankBwMin,
  kStorageRankBwMedian,
  kStorageLatP50Column,
  kStorageLatP99Column,
  kStorageLatP999Column,
  kStorageResidentBeforeMax,
  kStorageBytesTotal,
  kStorageReleaseSpread,
  kStorageColumnCount
};
inline constexpr std::array kStorageStatsColumns = {
    Column{"block_bytes", Type::kInt64, "B", "bytes of each read", Direction::kNone, Kind::kCount},
    Column{"agg_bw", Type::kFloat64, "GB/s",
           "median over iterations of bytes of all ranks / (last finish - first start)",
           Direction::kHigher, Kind::kDataRate, PerIteration::kCounterRate,
           kStorageCounters[kStorageBytes].name, true},
    Column{"iops", Type::kFloat64, "ops/s",
           "median over iterations of reads of all ranks / (last finish - first start)",
           Direction::kHigher, Kind::kWorkRate, PerIteration::kCounterRate,
           kStorageCounters[kStorageOps].name},
    Column{"rank_bw_min", Type::kFloat64, "GB/s", "per-rank bandwidth, lowest rank",
           Direction::kHigher, Kind::kDataRate},
    Column{"rank_bw_median", Type::kFloat64, "GB/s", "per-rank bandwidth, median rank",
           Direction::kHigher, Kind::kDataRate},
    Column{"lat_p50", Type::kFloat64, "s", "median of the per-rank per-iteration p50 latencies",
           Direction::kLower, Kind::kTime, PerIteration::kCounterMedian,
           kStorageCounters[kStorageLatP50].name},
    Column{"lat_p99", Type::kFloat64, "s", "median of the per-rank per-iteration p99 latencies",
           Direction::kLower, Kind::kTime, PerIteration::kCounterMedian,
           kStorageCounters[kStorageLatP99].name},
    Column{"lat_p999", Type::kFloat64, "s", "median of the per-rank per-iteration p99.9 latencies",
           Direction::kLower, Kind::kTime, PerIteration::kCounterMedian,
           kStorageCounters[kStorageLatP999].name},
    Column{"resident_before_max", Type::kFloat64, "",
           "largest fraction of a rank's bytes cached just before a timed read", Direction::kLower,
           Kind::kFraction},
    Column{"bytes_total", Type::kFloat64, "B", "bytes read over all timed iterations",
           Direction::kNone, Kind::kCount},
    kReleaseSpreadColumn,
};
static_assert(kStorageStatsColumns.size() == kStorageColumnCount);
static_assert(kStorageStatsColumns[kStorageBlockBytes].name == "block_bytes");
static_assert(kStorageStatsColumns[kStorageAggBw].name == "agg_bw");
static_assert(kStorageStatsColumns[kStorageIops].name == "iops");
static_assert(kStorageStatsColumns[kStorageRankBwMin].name == "rank_bw_min");
static_assert(kStorageStatsColumns[kStorageRankBwMedian].name == "rank_bw_median");
static_assert(kStorageStatsColumns[kStorageLatP50Column].name == "lat_p50");
static_assert(kStorageStatsColumns[kStorageLatP99Column].name == "lat_p99");
static_assert(kStorageStatsColumns[kStorageLatP999Column].name == "lat_p999");
static_assert(kStorageStatsColumns[kStorageResidentBeforeMax].name == "resident_before_max");
static_assert(kStorageStatsColumns[kStorageBytesTotal].name == "bytes_total");
static_assert(kStorageStatsColumns[kStorageReleaseSpread].name == "release_spread");

// Series (points/<P>/series/<name>).
inline constexpr std::array kStorageSeries = {
    Column{"interval_bw", Type::kFloat64, "GB/s",
           "bandwidth of each rank per interval of its timed reads, iteration after iteration",
           Direction::kHigher, Kind::kDataRate},
};
inline constexpr std::string_view kStorageIntervalSeries = kStorageSeries[0].name;

// What every storage case declares (SPEC.md, "The storage family", Meaning).
inline constexpr Stage kStorageStage = Stage::kDataIn;
inline constexpr std::string_view kStorageXAxis = kStorageStatsColumns[kStorageBlockBytes].name;
inline constexpr Bands kStorageBands = Bands::kEachPoint;
inline constexpr Scaling kStorageScaling = Scaling::kAggregate;
inline constexpr std::string_view kStorageSeriesName = "ranks";
inline constexpr bool kStoragePeerSlow = true;
inline constexpr bool kStoragePeerLate = false;  // a read does not wait for its peers
inline constexpr std::string_view kStorageWorkCounter = kStorageCounters[kStorageBytes].name;
inline constexpr std::string_view kStorageQuality = kQualityServedFromMemory;
inline constexpr int kStorageMinSamples = 3;  // an iteration reads a whole data set

}  // namespace preflight::schema
