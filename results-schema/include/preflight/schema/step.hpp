// The step family's names and their meaning (SPEC.md, "The step family"): the workload a case
// ran (so that the report's step plug-in projects the same workload from the other families'
// figures), the stats columns and the per-rank counters of each part's exposed time.
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

// The gradient_sync attribute's values.
inline constexpr std::string_view kStepAllReduce = "all-reduce";
inline constexpr std::string_view kStepReduceScatterAllGather = "reduce-scatter+all-gather";
// The model_kind attribute's values.
inline constexpr std::string_view kStepTransformer = "transformer";
inline constexpr std::string_view kStepResNet50 = "resnet50";
// gemm_device: where the GEMMs run (a loader's workers share the CPUs with them on "cpu").
inline constexpr std::string_view kStepOnCpu = "cpu";
inline constexpr std::string_view kStepOnGpu = "gpu";

namespace step {
inline constexpr Attr<std::string> kModelPreset{"model_preset", "", "the model preset, or custom"};
inline constexpr Attr<std::string> kModelSource{"model_source", "",
                                                "where the model's shape comes from"};
inline constexpr Attr<std::string> kModelKind{"model_kind", "", "transformer or resnet50"};
inline constexpr Attr<std::int64_t> kLayers{"layers", "", "transformer layers"};
inline constexpr Attr<std::int64_t> kHidden{"hidden", "", "hidden size"};
inline constexpr Attr<std::int64_t> kFfnHidden{"ffn_hidden", "", "the MLP's inner width"};
inline constexpr Attr<std::int64_t> kGatedMlp{"gated_mlp", "",
                                              "1: SwiGLU (3 matrices), 0: 2 matrices"};
inline constexpr Attr<std::int64_t> kHeads{"heads", "", "attention heads"};
inline constexpr Attr<std::int64_t> kKvHeads{"kv_heads", "",
                                             "key and value heads (grouped-query attention)"};
inline constexpr Attr<std::int64_t> kVocab{"vocab", "", "vocabulary"};
inline constexpr Attr<std::int64_t> kSeqLen{"seq_len", "tokens", "tokens per sample"};
inline constexpr Attr<std::int64_t> kImageSize{"image_size", "pixels", "image side (resnet50)"};
inline constexpr Attr<std::int64_t> kParameters{"parameters", "parameters",
                                                "the model's parameters"};
inline constexpr Attr<std::int64_t> kGradientBytes{"gradient_bytes", "B",
                                                   "bytes per gradient element"};
inline constexpr Attr<std::int64_t> kGlobalBatch{"global_batch", "samples",
                                                 "samples per optimizer step, whole job"};
inline constexpr Attr<std::int64_t> kMicroBatch{"micro_batch", "samples",
                                                "samples per forward and backward pass"};
inline constexpr Attr<std::int64_t> kWorkloadRanksPerNode{"workload_ranks_per_node", "ranks",
                                                          "GPUs per node of the training run"};
inline constexpr Attr<std::int64_t> kTargetNodes{"target_nodes", "nodes",
                                                 "nodes of the training run"};
inline constexpr Attr<std::int64_t> kTensorParallel{"tensor_parallel", "ranks",
                                                    "tensor-parallel degree"};
inline constexpr Attr<std::int64_t> kPipelineParallel{"pipeline_parallel", "ranks",
                                                      "pipeline-parallel degree"};
inline constexpr Attr<std::string> kGradientSync{
    "gradient_sync", "", "all-reduce or reduce-scatter+all-gather (sharded)"};
inline constexpr Attr<std::int64_t> kOverlap{"overlap", "",
                                             "1: buckets reduced during the backward pass"};
inline constexpr Attr<std::int64_t> kBucketBytes{"bucket_bytes", "B", "gradient bucket size"};
inline constexpr Attr<std::int64_t> kCheckpointBytes{"checkpoint_bytes", "B",
                                                     "checkpoint bytes per node; 0: none"};
inline constexpr Attr<double> kCheckpointIntervalS{"checkpoint_interval_s", "s",
                                                   "planned checkpoint interval; 0: none"};
inline constexpr Attr<double> kMfu{"mfu", "", "fraction of the GEMM rate the whole step reaches"};
inline constexpr Attr<std::string> kCommBackend{"comm_backend", "",
                                                "the comm backend the buckets went through"};
inline constexpr Attr<std::string> kGemmLibrary{"gemm_library", "",
                                                "the GEMM backend and its library"};
inline constexpr Attr<std::string> kDtype{"dtype", "", "GEMM element type"};
inline constexpr Attr<std::int64_t> kThreads{"threads", "threads",
                                             "BLAS threads of each rank (CPU)"};
inline constexpr Attr<std::string> kLayout{"layout", "",
                                           "the node count's label; the case name ends with it"};
inline constexpr Attr<std::string> kDataDir{
    "data_dir", "", "the images the step's data feed reads; empty: no feed"};
inline constexpr Attr<std::int64_t> kDataWorkers{"data_workers", "threads",
                                                 "the data feed's worker threads per rank"};
inline constexpr Attr<std::string> kDataEngine{"data_engine", "", "the data feed's storage engine"};
inline constexpr Attr<std::string> kDataCache{"data_cache", "",
                                              "the images' page-cache state before a step's reads"};
inline constexpr Attr<std::string> kGemmDevice{"gemm_device", "",
                                               "where the GEMMs run: cpu or gpu"};
}  // namespace step
inline constexpr std::array kStepCaseAttributes = {
    step::kModelPreset.item(),
    step::kModelSource.item(),
    step::kModelKind.item(),
    step::kLayers.item(),
    step::kHidden.item(),
    step::kFfnHidden.item(),
    step::kGatedMlp.item(),
    step::kHeads.item(),
    step::kKvHeads.item(),
    step::kVocab.item(),
    step::kSeqLen.item(),
    step::kImageSize.item(),
    step::kParameters.item(),
    step::kGradientBytes.item(),
    step::kGlobalBatch.item(),
    step::kMicroBatch.item(),
    step::kWorkloadRanksPerNode.item(),
    step::kTargetNodes.item(),
    step::kTensorParallel.item(),
    step::kPipelineParallel.item(),
    step::kGradientSync.item(),
    step::kOverlap.item(),
    step::kBucketBytes.item(),
    step::kCheckpointBytes.item(),
    step::kCheckpointIntervalS.item(),
    step::kMfu.item(),
    step::kCommBackend.item(),
    step::kGemmLibrary.item(),
    step::kDtype.item(),
    step::kThreads.item(),
    step::kLayout.item(),
    step::kDataDir.item(),
    step::kDataWorkers.item(),
    step::kDataEngine.item(),
    step::kDataCache.item(),
    step::kGemmDevice.item(),
};

// Counters (points/<P>/counters/<name>), in the order an operation reports them.
namespace step {
inline constexpr Column kComputeSCounter{
    "compute_s",
    Type::kFloat64,
    "s",
    "the rank's time in GEMMs in the step (waits for the device included)",
    Direction::kLower,
    Kind::kTime};
inline constexpr Column kCommExposedSCounter{
    "comm_exposed_s",
    Type::kFloat64,
    "s",
    "the rank's time in gradient collectives that compute did not hide",
    Direction::kLower,
    Kind::kTime};
inline constexpr Column kDataExposedSCounter{
    "data_exposed_s",
    Type::kFloat64,
    "s",
    "the rank's time waiting for its data feed's next batch; NaN: no feed",
    Direction::kLower,
    Kind::kTime};
inline constexpr Column kDataResidentBeforeCounter{
    "data_resident_before",
    Type::kFloat64,
    "",
    "fraction of the step's images in the page cache when the feed started on them",
    Direction::kNone,
    Kind::kFraction};
inline constexpr Column kDataBusySCounter{
    "data_busy_s",
    Type::kFloat64,
    "s",
    "the feed's workers' time building the step's batches, summed, over the workers; "
    "NaN: no feed",
    Direction::kLower,
    Kind::kTime};
inline constexpr Column kDataCpuShareCounter{
    "data_cpu_share",
    Type::kFloat64,
    "",
    "the feed's workers' part of the CPU time the rank's process used in the step",
    Direction::kNone,
    Kind::kFraction};
}  // namespace step
inline constexpr std::array kStepCounters = {
    step::kComputeSCounter,           step::kCommExposedSCounter, step::kDataExposedSCounter,
    step::kDataResidentBeforeCounter, step::kDataBusySCounter,    step::kDataCpuShareCounter,
};

namespace step {
inline constexpr Column kNodesColumn{"nodes",          Type::kInt64,
                                     "nodes",          "nodes of each group running the step",
                                     Direction::kNone, Kind::kCount};
inline constexpr Column kDataParallelColumn{"data_parallel",  Type::kInt64,
                                            "ranks",          "data-parallel ranks of each group",
                                            Direction::kNone, Kind::kCount};
inline constexpr Column kAccumulationColumn{
    "accumulation",   Type::kInt64, "", "micro-batches each rank runs per step",
    Direction::kNone, Kind::kCount};
inline constexpr Column kStepSColumn{"step_s",
                                     Type::kFloat64,
                                     "s",
                                     "time of one step, the slowest rank's, median",
                                     Direction::kLower,
                                     Kind::kTime,
                                     PerIteration::kTime};
inline constexpr Column kSamplesPerSColumn{"samples_per_s",
                                           Type::kFloat64,
                                           "samples/s",
                                           "global_batch / step_s: the group's training throughput",
                                           Direction::kHigher,
                                           Kind::kWorkRate,
                                           PerIteration::kInverseTime,
                                           "",
                                           true};
inline constexpr Column kComputeSColumn{
    "compute_s",
    Type::kFloat64,
    "s",
    "compute_s counter: median over iterations of the mean over the group's ranks",
    Direction::kLower,
    Kind::kTime,
    PerIteration::kCounterMedian,
    "compute_s"};
inline constexpr Column kCommExposedSColumn{
    "comm_exposed_s",
    Type::kFloat64,
    "s",
    "comm_exposed_s counter: median over iterations of the mean over the group's ranks",
    Direction::kLower,
    Kind::kTime,
    PerIteration::kCounterMedian,
    "comm_exposed_s"};
inline constexpr Column kDataExposedSColumn{
    "data_exposed_s",
    Type::kFloat64,
    "s",
    "data_exposed_s counter: median over iterations of the mean over the group's ranks",
    Direction::kLower,
    Kind::kTime,
    PerIteration::kCounterMedian,
    "data_exposed_s"};
inline constexpr Column kDataBusySColumn{
    "data_busy_s",
    Type::kFloat64,
    "s",
    "data_busy_s counter: median over iterations of the mean over the group's ranks",
    Direction::kLower,
    Kind::kTime,
    PerIteration::kCounterMedian,
    "data_busy_s"};
inline constexpr Column kDataCpuShareColumn{
    "data_cpu_share",
    Type::kFloat64,
    "",
    "data_cpu_share counter: median over iterations of the mean over the group's ranks",
    Direction::kNone,
    Kind::kFraction,
    PerIteration::kCounterMedian,
    "data_cpu_share"};
}  // namespace step
inline constexpr std::array kStepStatsColumns = {
    step::kNodesColumn,        step::kDataParallelColumn, step::kAccumulationColumn,
    step::kStepSColumn,        step::kSamplesPerSColumn,  step::kComputeSColumn,
    step::kCommExposedSColumn, step::kDataExposedSColumn, step::kDataBusySColumn,
    step::kDataCpuShareColumn,
};

// What every step case declares (SPEC.md, "The step family", Meaning).
namespace step {
inline constexpr FamilySchema kDeclaration{
    .name = kStepFamily,
    .stage = Stage::kStep,
    .x_axis = kNodesColumn.name,
    .bands = Bands::kEachPoint,
    .scaling = Scaling::kNone,  // the projection judges scaling
    .series = "nodes",
    .peer_slow = false,  // ranks wait for each other in the collectives
    .peer_late = false,
    .min_samples = 3,
    .case_attributes = kStepCaseAttributes,
    .stats_columns = kStepStatsColumns,
    .counters = kStepCounters,
};
}  // namespace step

}  // namespace preflight::schema
