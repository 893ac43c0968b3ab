// The dataloader family's names and their meaning (SPEC.md, "The dataloader family"): its case
// attributes, stats columns and counters. The writer writes these declarations and the
// report's dataloader plug-in reads the same names.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#include "preflight/schema/layout.hpp"
#include "preflight/schema/meaning.hpp"

namespace preflight::schema {

inline constexpr std::array kDataloaderCaseAttributes = {
    Item{"data_dir", Type::kString, "", "the data set directory"},
    Item{"data_layout", Type::kString, "", "files (one image per file) or shards (tar files)"},
    Item{"fs_type", Type::kString, "", "file system type of the data set directory"},
    Item{"images", Type::kInt64, "images", "images of the data set the pipeline reads"},
    Item{"bad_images", Type::kInt64, "images",
         "images found corrupt or truncated before the run, left out of it"},
    Item{"bad_image_names", Type::kString, "",
         "the first bad images, 'name: reason' separated by '; '"},
    Item{"engine", Type::kString, "", "the storage engine that reads the images"},
    Item{"cache_state", Type::kString, "", "evicted or warm (as the storage family's)"},
    Item{"decoder", Type::kString, "", "the decoders: libjpeg-turbo+libpng (CPU)"},
    Item{"batch_size", Type::kInt64, "images", "images per batch (per GPU)"},
    Item{"crop", Type::kInt64, "pixels", "side of the square random-resized crop"},
    Item{"element_type", Type::kString, "", "float32 (normalised) or uint8"},
    Item{"batch_memory", Type::kString, "",
         "pinned (cudaHostRegister) where every rank has a GPU, else 'pageable: ' and why"},
    Item{"prefetch", Type::kInt64, "batches", "batches each worker may have ready ahead"},
    Item{"batches_per_iteration", Type::kInt64, "batches", "batches each rank loads per iteration"},
    Item{"compute_per_batch_s", Type::kFloat64, "s",
         "emulated accelerator time per batch (a sleep); 0: none, AU not measured"},
    Item{"compute_source", Type::kString, "", "where compute_per_batch_s comes from"},
    Item{"au_target", Type::kFloat64, "", "accelerator utilisation the pipeline must allow"},
    Item{"seed", Type::kInt64, "", "seed of the shuffle and the augmentations"},
    Item{"ranks_per_node", Type::kInt64, "ranks", "active ranks per node in this case"},
    Item{"nodes", Type::kInt64, "nodes", "nodes with active ranks in this case"},
    Item{"ranks", Type::kInt64, "ranks", "active ranks in this case"},
    Item{"layout", Type::kString, "", "the scaling step's label; the case name ends with it"},
};

// Counters (points/<P>/counters/<name>), in the order an operation reports them.
enum DataloaderCounter : std::size_t {
  kDataloaderImages,
  kDataloaderBytes,
  kDataloaderReadS,
  kDataloaderDecodeS,
  kDataloaderAugmentS,
  kDataloaderBatchS,
  kDataloaderComputeS,
  kDataloaderStallS,
  kDataloaderBatchP50,
  kDataloaderBatchP95,
  kDataloaderDecodeErrors,
  kDataloaderResidentBefore,
  kDataloaderCounterCount
};
inline constexpr std::array kDataloaderCounters = {
    Column{"images", Type::kFloat64, "images", "images the rank delivered in batches",
           Direction::kNone, Kind::kCount},
    Column{"bytes", Type::kFloat64, "B", "encoded bytes the rank read", Direction::kNone,
           Kind::kCount},
    Column{"read_s", Type::kFloat64, "s", "time the rank's workers spent reading, summed",
           Direction::kLower, Kind::kTime},
    Column{"decode_s", Type::kFloat64, "s", "time the rank's workers spent decoding, summed",
           Direction::kLower, Kind::kTime},
    Column{"augment_s", Type::kFloat64, "s",
           "time the rank's workers spent on crop, resize and flip, summed", Direction::kLower,
           Kind::kTime},
    Column{"batch_s", Type::kFloat64, "s",
           "time the rank's workers spent normalising into the batch buffer, summed",
           Direction::kLower, Kind::kTime},
    Column{"compute_s", Type::kFloat64, "s", "emulated accelerator time of the rank (sleeps)",
           Direction::kNone, Kind::kTime},
    Column{"stall_s", Type::kFloat64, "s", "time the rank's accelerator waited for a batch",
           Direction::kLower, Kind::kTime},
    Column{"batch_p50_s", Type::kFloat64, "s", "median time from a batch's start to its last image",
           Direction::kLower, Kind::kTime},
    Column{"batch_p95_s", Type::kFloat64, "s", "95th percentile of the same", Direction::kLower,
           Kind::kTime},
    Column{"decode_errors", Type::kFloat64, "images",
           "images that failed to decode in the iteration (named on stderr), left out of batches",
           Direction::kLower, Kind::kCount},
    Column{"resident_before", Type::kFloat64, "",
           "fraction of the rank's bytes in the page cache just before the iteration",
           Direction::kNone, Kind::kFraction},
};
static_assert(kDataloaderCounters.size() == kDataloaderCounterCount);
static_assert(kDataloaderCounters[kDataloaderImages].name == "images");
static_assert(kDataloaderCounters[kDataloaderBytes].name == "bytes");
static_assert(kDataloaderCounters[kDataloaderReadS].name == "read_s");
static_assert(kDataloaderCounters[kDataloaderDecodeS].name == "decode_s");
static_assert(kDataloaderCounters[kDataloaderAugmentS].name == "augment_s");
static_assert(kDataloaderCounters[kDataloaderBatchS].name == "batch_s");
static_assert(kDataloaderCounters[kDataloaderComputeS].name == "compute_s");
static_assert(kDataloaderCounters[kDataloaderStallS].name == "stall_s");
static_assert(kDataloaderCounters[kDataloaderBatchP50].name == "batch_p50_s");
static_assert(kDataloaderCounters[kDataloaderBatchP95].name == "batch_p95_s");
static_assert(kDataloaderCounters[kDataloaderDecodeErrors].name == "decode_errors");
static_assert(kDataloaderCounters[kDataloaderResidentBefore].name == "resident_before");

// Stats columns: the point column workers, then the figures derived from the samples and
// counters, in this order.
enum DataloaderColumn : std::size_t {
  kDataloaderWorkers,
  kDataloaderImagesPerS,
  kDataloaderMbPerS,
  kDataloaderAu,
  kDataloaderAuMet,
  kDataloaderValidImagesPerS,
  kDataloaderWorkersNeeded,
  kDataloaderReadColumn,
  kDataloaderDecodeColumn,
  kDataloaderAugmentColumn,
  kDataloaderBatchColumn,
  kDataloaderBatchP50Column,
  kDataloaderBatchP95Column,
  kDataloaderDecodeErrorsTotal,
  kDataloaderResidentBeforeMax,
  kDataloaderColumnCount
};
inline constexpr std::array kDataloaderStatsColumns = {
    Column{"workers", Type::kInt64, "threads", "worker threads per rank", Direction::kNone,
           Kind::kCount},
    Column{"images_per_s", Type::kFloat64, "images/s",
           "median over iterations of images of all the group's ranks / the slowest rank's time",
           Direction::kHigher, Kind::kWorkRate, PerIteration::kCounterRate,
           kDataloaderCounters[kDataloaderImages].name, true},
    Column{"mb_per_s", Type::kFloat64, "MB/s",
           "median over iterations of encoded bytes of all ranks / the slowest rank's time",
           Direction::kHigher, Kind::kDataRate},
    Column{"au", Type::kFloat64, "",
           "accelerator utilisation (DLIO): median over iterations of the lowest rank's "
           "compute_s / own time; NaN without compute",
           Direction::kHigher, Kind::kFraction},
    Column{"au_met", Type::kFloat64, "", "1 when au >= au_target, else 0 (also without compute)",
           Direction::kNone, Kind::kCount},
    Column{"valid_images_per_s", Type::kFloat64, "images/s",
           "images_per_s where au_met, else NaN (as MLPerf Storage reports only valid runs)",
           Direction::kHigher, Kind::kWorkRate},
    Column{"workers_needed", Type::kFloat64, "threads",
           "workers per rank (GPU) the au_target needs if workers scale linearly: "
           "ceil(au_target x batch_size / compute_per_batch_s x worker seconds per image); "
           "-1 without compute",
           Direction::kLower, Kind::kCount},
    Column{"read_s", Type::kFloat64, "s",
           "median over iterations of the median rank's counters/read_s", Direction::kLower,
           Kind::kTime},
    Column{"decode_s", Type::kFloat64, "s", "the same of counters/decode_s", Direction::kLower,
           Kind::kTime},
    Column{"augment_s", Type::kFloat64, "s", "the same of counters/augment_s", Direction::kLower,
           Kind::kTime},
    Column{"batch_s", Type::kFloat64, "s", "the same of counters/batch_s", Direction::kLower,
           Kind::kTime},
    Column{"batch_p50_s", Type::kFloat64, "s",
           "median over iterations of the median rank's counters/batch_p50_s", Direction::kLower,
           Kind::kTime},
    Column{"batch_p95_s", Type::kFloat64, "s",
           "median over iterations of the highest rank's counters/batch_p95_s", Direction::kLower,
           Kind::kTime},
    Column{"decode_errors", Type::kFloat64, "images",
           "images of the group that failed to decode, summed over timed iterations",
           Direction::kLower, Kind::kCount},
    Column{"resident_before_max", Type::kFloat64, "",
           "highest counters/resident_before of any rank and iteration", Direction::kNone,
           Kind::kFraction},
};
static_assert(kDataloaderStatsColumns.size() == kDataloaderColumnCount);
static_assert(kDataloaderStatsColumns[kDataloaderWorkers].name == "workers");
static_assert(kDataloaderStatsColumns[kDataloaderImagesPerS].name == "images_per_s");
static_assert(kDataloaderStatsColumns[kDataloaderMbPerS].name == "mb_per_s");
static_assert(kDataloaderStatsColumns[kDataloaderAu].name == "au");
static_assert(kDataloaderStatsColumns[kDataloaderAuMet].name == "au_met");
static_assert(kDataloaderStatsColumns[kDataloaderValidImagesPerS].name == "valid_images_per_s");
static_assert(kDataloaderStatsColumns[kDataloaderWorkersNeeded].name == "workers_needed");
static_assert(kDataloaderStatsColumns[kDataloaderReadColumn].name == "read_s");
static_assert(kDataloaderStatsColumns[kDataloaderDecodeColumn].name == "decode_s");
static_assert(kDataloaderStatsColumns[kDataloaderAugmentColumn].name == "augment_s");
static_assert(kDataloaderStatsColumns[kDataloaderBatchColumn].name == "batch_s");
static_assert(kDataloaderStatsColumns[kDataloaderBatchP50Column].name == "batch_p50_s");
static_assert(kDataloaderStatsColumns[kDataloaderBatchP95Column].name == "batch_p95_s");
static_assert(kDataloaderStatsColumns[kDataloaderDecodeErrorsTotal].name == "decode_errors");
static_assert(kDataloaderStatsColumns[kDataloaderResidentBeforeMax].name == "resident_before_max");

// The pipeline's stages, in order: the stats columns of their times and the names a finding
// uses ("data in: decode").
inline constexpr std::array kDataloaderStageColumns = {
    std::pair{kDataloaderReadColumn, std::string_view("read")},
    std::pair{kDataloaderDecodeColumn, std::string_view("decode")},
    std::pair{kDataloaderAugmentColumn, std::string_view("augment")},
    std::pair{kDataloaderBatchColumn, std::string_view("batch")},
};

// What every dataloader case declares (SPEC.md, "The dataloader family", Meaning).
inline constexpr Stage kDataloaderStage = Stage::kDataIn;
inline constexpr std::string_view kDataloaderXAxis =
    kDataloaderStatsColumns[kDataloaderWorkers].name;
inline constexpr Bands kDataloaderBands = Bands::kEachPoint;
inline constexpr Scaling kDataloaderScaling = Scaling::kAggregate;
inline constexpr std::string_view kDataloaderSeriesName = "ranks";
inline constexpr bool kDataloaderPeerSlow = true;
inline constexpr bool kDataloaderPeerLate = false;  // a rank's pipeline waits for no peer
inline constexpr std::string_view kDataloaderWorkCounter =
    kDataloaderCounters[kDataloaderImages].name;
inline constexpr int kDataloaderMinSamples = 3;
// Its figures are labelled by the page cache's state, as a storage read's, and count only where
// the pipeline feeds the accelerator.
inline constexpr std::array kDataloaderQuality = {kQualityServedFromMemory,
                                                  kQualityFeedsAccelerator};

}  // namespace preflight::schema
