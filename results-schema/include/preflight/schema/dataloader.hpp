// The dataloader family's names and their meaning (SPEC.md, "The dataloader family"): its case
// attributes, stats columns and counters. The writer writes these declarations and the
// report's dataloader plug-in reads the same names.
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

namespace dataloader {
inline constexpr Attr<std::string> kDataDir{"data_dir", "", "the data set directory"};
inline constexpr Attr<std::string> kDataLayout{"data_layout", "",
                                               "files (one image per file) or shards (tar files)"};
inline constexpr Attr<std::string> kFsType{"fs_type", "",
                                           "file system type of the data set directory"};
inline constexpr Attr<std::int64_t> kImages{"images", "images",
                                            "images of the data set the pipeline reads"};
inline constexpr Attr<std::int64_t> kBadImages{
    "bad_images", "images", "images found corrupt or truncated before the run, left out of it"};
inline constexpr Attr<std::string> kBadImageNames{
    "bad_image_names", "", "the first bad images, 'name: reason' separated by '; '"};
inline constexpr Attr<std::string> kEngine{"engine", "",
                                           "the storage engine that reads the images"};
inline constexpr Attr<std::string> kCacheState{"cache_state", "",
                                               "evicted or warm (as the storage family's)"};
inline constexpr Attr<std::string> kDecoder{"decoder", "",
                                            "the decoders: libjpeg-turbo+libpng (CPU)"};
inline constexpr Attr<std::int64_t> kBatchSize{"batch_size", "images",
                                               "images per batch (per GPU)"};
inline constexpr Attr<std::int64_t> kCrop{"crop", "pixels",
                                          "side of the square random-resized crop"};
inline constexpr Attr<std::string> kElementType{"element_type", "",
                                                "float32 (normalised) or uint8"};
inline constexpr Attr<std::string> kBatchMemory{
    "batch_memory", "",
    "pinned (cudaHostRegister) where every rank has a GPU, else 'pageable: ' and why"};
inline constexpr Attr<std::int64_t> kPrefetch{"prefetch", "batches",
                                              "batches each worker may have ready ahead"};
inline constexpr Attr<std::int64_t> kBatchesPerIteration{"batches_per_iteration", "batches",
                                                         "batches each rank loads per iteration"};
inline constexpr Attr<double> kComputePerBatchS{
    "compute_per_batch_s", "s",
    "emulated accelerator time per batch (a sleep); 0: none, AU not measured"};
inline constexpr Attr<std::string> kComputeSource{"compute_source", "",
                                                  "where compute_per_batch_s comes from"};
inline constexpr Attr<double> kAuTarget{"au_target", "",
                                        "accelerator utilisation the pipeline must allow"};
inline constexpr Attr<std::int64_t> kSeed{"seed", "", "seed of the shuffle and the augmentations"};
inline constexpr Attr<std::int64_t> kRanksPerNode{"ranks_per_node", "ranks",
                                                  "active ranks per node in this case"};
inline constexpr Attr<std::int64_t> kNodes{"nodes", "nodes",
                                           "nodes with active ranks in this case"};
inline constexpr Attr<std::int64_t> kRanks{"ranks", "ranks", "active ranks in this case"};
inline constexpr Attr<std::string> kLayout{"layout", "",
                                           "the scaling step's label; the case name ends with it"};
}  // namespace dataloader
inline constexpr std::array kDataloaderCaseAttributes = {
    dataloader::kDataDir.item(),
    dataloader::kDataLayout.item(),
    dataloader::kFsType.item(),
    dataloader::kImages.item(),
    dataloader::kBadImages.item(),
    dataloader::kBadImageNames.item(),
    dataloader::kEngine.item(),
    dataloader::kCacheState.item(),
    dataloader::kDecoder.item(),
    dataloader::kBatchSize.item(),
    dataloader::kCrop.item(),
    dataloader::kElementType.item(),
    dataloader::kBatchMemory.item(),
    dataloader::kPrefetch.item(),
    dataloader::kBatchesPerIteration.item(),
    dataloader::kComputePerBatchS.item(),
    dataloader::kComputeSource.item(),
    dataloader::kAuTarget.item(),
    dataloader::kSeed.item(),
    dataloader::kRanksPerNode.item(),
    dataloader::kNodes.item(),
    dataloader::kRanks.item(),
    dataloader::kLayout.item(),
};

// Counters (points/<P>/counters/<name>), in the order an operation reports them.
namespace dataloader {
inline constexpr Column kImagesCounter{"images",         Type::kFloat64,
                                       "images",         "images the rank delivered in batches",
                                       Direction::kNone, Kind::kCount};
inline constexpr Column kBytesCounter{
    "bytes", Type::kFloat64, "B", "encoded bytes the rank read", Direction::kNone, Kind::kCount};
inline constexpr Column kReadSCounter{
    "read_s",          Type::kFloat64, "s", "time the rank's workers spent reading, summed",
    Direction::kLower, Kind::kTime};
inline constexpr Column kDecodeSCounter{
    "decode_s",        Type::kFloat64, "s", "time the rank's workers spent decoding, summed",
    Direction::kLower, Kind::kTime};
inline constexpr Column kAugmentSCounter{
    "augment_s",
    Type::kFloat64,
    "s",
    "time the rank's workers spent on crop, resize and flip, summed",
    Direction::kLower,
    Kind::kTime};
inline constexpr Column kBatchSCounter{
    "batch_s",
    Type::kFloat64,
    "s",
    "time the rank's workers spent normalising into the batch buffer, summed",
    Direction::kLower,
    Kind::kTime};
inline constexpr Column kComputeSCounter{
    "compute_s",      Type::kFloat64, "s", "emulated accelerator time of the rank (sleeps)",
    Direction::kNone, Kind::kTime};
inline constexpr Column kStallSCounter{
    "stall_s",         Type::kFloat64, "s", "time the rank's accelerator waited for a batch",
    Direction::kLower, Kind::kTime};
inline constexpr Column kBatchP50SCounter{
    "batch_p50_s",     Type::kFloat64, "s", "median time from a batch's start to its last image",
    Direction::kLower, Kind::kTime};
inline constexpr Column kBatchP95SCounter{
    "batch_p95_s",     Type::kFloat64, "s", "95th percentile of the same",
    Direction::kLower, Kind::kTime};
inline constexpr Column kDecodeErrorsCounter{
    "decode_errors",
    Type::kFloat64,
    "images",
    "images that failed to decode in the iteration (named on stderr), left out of batches",
    Direction::kLower,
    Kind::kCount};
inline constexpr Column kResidentBeforeCounter{
    "resident_before",
    Type::kFloat64,
    "",
    "fraction of the rank's bytes in the page cache just before the iteration",
    Direction::kNone,
    Kind::kFraction};
}  // namespace dataloader
inline constexpr std::array kDataloaderCounters = {
    dataloader::kImagesCounter,       dataloader::kBytesCounter,
    dataloader::kReadSCounter,        dataloader::kDecodeSCounter,
    dataloader::kAugmentSCounter,     dataloader::kBatchSCounter,
    dataloader::kComputeSCounter,     dataloader::kStallSCounter,
    dataloader::kBatchP50SCounter,    dataloader::kBatchP95SCounter,
    dataloader::kDecodeErrorsCounter, dataloader::kResidentBeforeCounter,
};

// Stats columns: the point column workers, then the figures derived from the samples and
// counters, in this order.
namespace dataloader {
inline constexpr Column kWorkersColumn{
    "workers", Type::kInt64, "threads", "worker threads per rank", Direction::kNone, Kind::kCount};
inline constexpr Column kImagesPerSColumn{
    "images_per_s",
    Type::kFloat64,
    "images/s",
    "median over iterations of images of all the group's ranks / the slowest rank's time",
    Direction::kHigher,
    Kind::kWorkRate,
    PerIteration::kCounterRate,
    kImagesCounter.name,
    true};
inline constexpr Column kMbPerSColumn{
    "mb_per_s",
    Type::kFloat64,
    "MB/s",
    "median over iterations of encoded bytes of all ranks / the slowest rank's time",
    Direction::kHigher,
    Kind::kDataRate};
inline constexpr Column kAuColumn{
    "au",
    Type::kFloat64,
    "",
    "accelerator utilisation (DLIO): median over iterations of the lowest rank's "
    "compute_s / own time; NaN without compute",
    Direction::kHigher,
    Kind::kFraction};
inline constexpr Column kAuMetColumn{
    "au_met",         Type::kFloat64, "", "1 when au >= au_target, else 0 (also without compute)",
    Direction::kNone, Kind::kCount};
inline constexpr Column kValidImagesPerSColumn{
    "valid_images_per_s",
    Type::kFloat64,
    "images/s",
    "images_per_s where au_met, else NaN (as MLPerf Storage reports only valid runs)",
    Direction::kHigher,
    Kind::kWorkRate};
inline constexpr Column kWorkersNeededColumn{
    "workers_needed",
    Type::kFloat64,
    "threads",
    "workers per rank (GPU) the au_target needs if workers scale linearly: "
    "ceil(au_target x batch_size / compute_per_batch_s x worker seconds per image); "
    "-1 without compute",
    Direction::kLower,
    Kind::kCount};
inline constexpr Column kReadSColumn{"read_s",
                                     Type::kFloat64,
                                     "s",
                                     "median over iterations of the median rank's counters/read_s",
                                     Direction::kLower,
                                     Kind::kTime};
inline constexpr Column kDecodeSColumn{
    "decode_s",        Type::kFloat64, "s", "the same of counters/decode_s",
    Direction::kLower, Kind::kTime};
inline constexpr Column kAugmentSColumn{
    "augment_s",       Type::kFloat64, "s", "the same of counters/augment_s",
    Direction::kLower, Kind::kTime};
inline constexpr Column kBatchSColumn{
    "batch_s", Type::kFloat64, "s", "the same of counters/batch_s", Direction::kLower, Kind::kTime};
inline constexpr Column kBatchP50SColumn{
    "batch_p50_s",
    Type::kFloat64,
    "s",
    "median over iterations of the median rank's counters/batch_p50_s",
    Direction::kLower,
    Kind::kTime};
inline constexpr Column kBatchP95SColumn{
    "batch_p95_s",
    Type::kFloat64,
    "s",
    "median over iterations of the highest rank's counters/batch_p95_s",
    Direction::kLower,
    Kind::kTime};
inline constexpr Column kDecodeErrorsColumn{
    "decode_errors",   Type::kFloat64,
    "images",          "images of the group that failed to decode, summed over timed iterations",
    Direction::kLower, Kind::kCount};
inline constexpr Column kResidentBeforeMaxColumn{
    "resident_before_max",
    Type::kFloat64,
    "",
    "highest counters/resident_before of any rank and iteration",
    Direction::kNone,
    Kind::kFraction};
}  // namespace dataloader
inline constexpr std::array kDataloaderStatsColumns = {
    dataloader::kWorkersColumn,
    dataloader::kImagesPerSColumn,
    dataloader::kMbPerSColumn,
    dataloader::kAuColumn,
    dataloader::kAuMetColumn,
    dataloader::kValidImagesPerSColumn,
    dataloader::kWorkersNeededColumn,
    dataloader::kReadSColumn,
    dataloader::kDecodeSColumn,
    dataloader::kAugmentSColumn,
    dataloader::kBatchSColumn,
    dataloader::kBatchP50SColumn,
    dataloader::kBatchP95SColumn,
    dataloader::kDecodeErrorsColumn,
    dataloader::kResidentBeforeMaxColumn,
};

namespace dataloader {
// The pipeline's stages, in order: the stats columns of their times and the names a finding uses
// ("data in: decode").
inline constexpr std::array kStages = {
    std::pair{&kReadSColumn, std::string_view("read")},
    std::pair{&kDecodeSColumn, std::string_view("decode")},
    std::pair{&kAugmentSColumn, std::string_view("augment")},
    std::pair{&kBatchSColumn, std::string_view("batch")},
};
}  // namespace dataloader

// What every dataloader case declares (SPEC.md, "The dataloader family", Meaning).
namespace dataloader {
// Its figures are labelled by the page cache's state, as a storage read's, and count only where
// the pipeline feeds the accelerator.
inline constexpr std::array kQualityRules = {kQualityServedFromMemory, kQualityFeedsAccelerator};
inline constexpr FamilySchema kDeclaration{
    .name = kDataloaderFamily,
    .stage = Stage::kDataIn,
    .x_axis = kWorkersColumn.name,
    .bands = Bands::kEachPoint,
    .scaling = Scaling::kAggregate,
    .series = "ranks",
    .peer_slow = true,
    .peer_late = false,  // a rank's pipeline waits for no peer
    .work_counter = kImagesCounter.name,
    .quality = kQualityRules,
    .min_samples = 3,
    .case_attributes = kDataloaderCaseAttributes,
    .stats_columns = kDataloaderStatsColumns,
    .counters = kDataloaderCounters,
};
}  // namespace dataloader

}  // namespace preflight::schema
