// The storage family's names and their meaning (SPEC.md, "The storage family"): its case
// attributes, stats columns, counters and series. The writer writes these declarations and
// the report's storage plug-in reads the same names.
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

namespace storage {
inline constexpr Attr<std::string> kEngine{"engine", "", "psync (pread), io_uring or mmap"};
inline constexpr Attr<std::int64_t> kDirect{"direct", "",
                                            "1 when the files are opened with O_DIRECT, else 0"};
inline constexpr Attr<std::string> kCacheState{"cache_state", "",
                                               "direct, evicted, other-node or warm"};
inline constexpr Attr<std::string> kAccess{"access", "", "sequential or random"};
inline constexpr Attr<std::string> kFileLayout{"file_layout", "", "file-per-rank or shared"};
inline constexpr Attr<std::int64_t> kQueueDepth{"queue_depth", "", "reads in flight per thread"};
inline constexpr Attr<std::int64_t> kThreads{"threads", "", "reader threads per rank"};
inline constexpr Attr<std::int64_t> kBytesPerRank{
    "bytes_per_rank", "B", "bytes each rank reads per size-bounded iteration"};
inline constexpr Attr<double> kStonewallS{"stonewall_s", "s",
                                          "time bound of one iteration; 0 when size-bounded"};
inline constexpr Attr<double> kIntervalS{"interval_s", "s",
                                         "time one row of series/interval_bw covers"};
inline constexpr Attr<std::int64_t> kRanksPerNode{"ranks_per_node", "ranks",
                                                  "active ranks per node in this case"};
inline constexpr Attr<std::int64_t> kNodes{"nodes", "nodes",
                                           "nodes with active ranks in this case"};
inline constexpr Attr<std::int64_t> kRanks{"ranks", "ranks", "active ranks in this case"};
inline constexpr Attr<std::string> kLayout{"layout", "",
                                           "the scaling step's label; the case name ends with it"};
inline constexpr Attr<std::string> kDatasetDir{"dataset_dir", "", "the data set directory"};
inline constexpr Attr<std::string> kFsType{"fs_type", "",
                                           "file system type of the data set directory"};
inline constexpr Attr<std::int64_t> kVerify{"verify", "",
                                            "1 when the check pass verified every block"};
}  // namespace storage
inline constexpr std::array kStorageCaseAttributes = {
    storage::kEngine.item(),    storage::kDirect.item(),       storage::kCacheState.item(),
    storage::kAccess.item(),    storage::kFileLayout.item(),   storage::kQueueDepth.item(),
    storage::kThreads.item(),   storage::kBytesPerRank.item(), storage::kStonewallS.item(),
    storage::kIntervalS.item(), storage::kRanksPerNode.item(), storage::kNodes.item(),
    storage::kRanks.item(),     storage::kLayout.item(),       storage::kDatasetDir.item(),
    storage::kFsType.item(),    storage::kVerify.item(),
};

// Counters (points/<P>/counters/<name>), in the order an operation reports them: the index
// constants below are that order, checked against the table at compile time.
namespace storage {
inline constexpr Column kBytesCounter{
    "bytes",          Type::kFloat64, "B", "bytes the rank read in the iteration",
    Direction::kNone, Kind::kCount};
inline constexpr Column kOpsCounter{"ops",
                                    Type::kFloat64,
                                    "operations",
                                    "reads the rank completed in the iteration",
                                    Direction::kNone,
                                    Kind::kCount};
inline constexpr Column kResidentBeforeCounter{
    "resident_before",
    Type::kFloat64,
    "",
    "fraction of the rank's bytes in the page cache just before the iteration",
    Direction::kLower,
    Kind::kFraction};
inline constexpr Column kLatP50Counter{
    "lat_p50",         Type::kFloat64, "s", "median latency of the rank's reads in the iteration",
    Direction::kLower, Kind::kTime};
inline constexpr Column kLatP99Counter{
    "lat_p99",         Type::kFloat64, "s", "99th percentile latency of the same",
    Direction::kLower, Kind::kTime};
inline constexpr Column kLatP999Counter{
    "lat_p999",        Type::kFloat64, "s", "99.9th percentile latency of the same",
    Direction::kLower, Kind::kTime};
}  // namespace storage
inline constexpr std::array kStorageCounters = {
    storage::kBytesCounter,  storage::kOpsCounter,    storage::kResidentBeforeCounter,
    storage::kLatP50Counter, storage::kLatP99Counter, storage::kLatP999Counter,
};

// Stats columns: the point column block_bytes, then the figures derived from the samples and
// counters (no batched twins: a storage case has no back-to-back phase), in this order.
namespace storage {
inline constexpr Column kBlockBytesColumn{"block_bytes",        Type::kInt64,     "B",
                                          "bytes of each read", Direction::kNone, Kind::kCount};
inline constexpr Column kAggBwColumn{
    "agg_bw",
    Type::kFloat64,
    "GB/s",
    "median over iterations of bytes of all ranks / (last finish - first start)",
    Direction::kHigher,
    Kind::kDataRate,
    PerIteration::kCounterRate,
    kBytesCounter.name,
    true};
inline constexpr Column kIopsColumn{
    "iops",
    Type::kFloat64,
    "ops/s",
    "median over iterations of reads of all ranks / (last finish - first start)",
    Direction::kHigher,
    Kind::kWorkRate,
    PerIteration::kCounterRate,
    kOpsCounter.name};
inline constexpr Column kRankBwMinColumn{
    "rank_bw_min",      Type::kFloat64, "GB/s", "per-rank bandwidth, lowest rank",
    Direction::kHigher, Kind::kDataRate};
inline constexpr Column kRankBwMedianColumn{
    "rank_bw_median",   Type::kFloat64, "GB/s", "per-rank bandwidth, median rank",
    Direction::kHigher, Kind::kDataRate};
inline constexpr Column kLatP50Column{"lat_p50",
                                      Type::kFloat64,
                                      "s",
                                      "median of the per-rank per-iteration p50 latencies",
                                      Direction::kLower,
                                      Kind::kTime,
                                      PerIteration::kCounterMedian,
                                      kLatP50Counter.name};
inline constexpr Column kLatP99Column{"lat_p99",
                                      Type::kFloat64,
                                      "s",
                                      "median of the per-rank per-iteration p99 latencies",
                                      Direction::kLower,
                                      Kind::kTime,
                                      PerIteration::kCounterMedian,
                                      kLatP99Counter.name};
inline constexpr Column kLatP999Column{"lat_p999",
                                       Type::kFloat64,
                                       "s",
                                       "median of the per-rank per-iteration p99.9 latencies",
                                       Direction::kLower,
                                       Kind::kTime,
                                       PerIteration::kCounterMedian,
                                       kLatP999Counter.name};
inline constexpr Column kResidentBeforeMaxColumn{
    "resident_before_max",
    Type::kFloat64,
    "",
    "largest fraction of a rank's bytes cached just before a timed read",
    Direction::kLower,
    Kind::kFraction};
inline constexpr Column kBytesTotalColumn{
    "bytes_total",    Type::kFloat64, "B", "bytes read over all timed iterations",
    Direction::kNone, Kind::kCount};
}  // namespace storage
inline constexpr std::array kStorageStatsColumns = {
    storage::kBlockBytesColumn, storage::kAggBwColumn,        storage::kIopsColumn,
    storage::kRankBwMinColumn,  storage::kRankBwMedianColumn, storage::kLatP50Column,
    storage::kLatP99Column,     storage::kLatP999Column,      storage::kResidentBeforeMaxColumn,
    storage::kBytesTotalColumn, kReleaseSpreadColumn,
};

// Series (points/<P>/series/<name>).
namespace storage {
inline constexpr Column kIntervalBwSeries{
    "interval_bw",
    Type::kFloat64,
    "GB/s",
    "bandwidth of each rank per interval of its timed reads, iteration after iteration",
    Direction::kHigher,
    Kind::kDataRate};
}  // namespace storage
inline constexpr std::array kStorageSeries = {
    storage::kIntervalBwSeries,
};

// What every storage case declares (SPEC.md, "The storage family", Meaning).
namespace storage {
inline constexpr std::array kQualityRules = {kQualityServedFromMemory};
inline constexpr FamilySchema kDeclaration{
    .name = kStorageFamily,
    .stage = Stage::kDataIn,
    .x_axis = kBlockBytesColumn.name,
    .bands = Bands::kEachPoint,
    .scaling = Scaling::kAggregate,
    .series = "ranks",
    .peer_slow = true,
    .peer_late = false,  // a read does not wait for its peers
    .work_counter = kBytesCounter.name,
    .quality = kQualityRules,
    .min_samples = 3,  // an iteration reads a whole data set
    .case_attributes = kStorageCaseAttributes,
    .stats_columns = kStorageStatsColumns,
    .counters = kStorageCounters,
    .series_datasets = kStorageSeries,
};
}  // namespace storage

}  // namespace preflight::schema
