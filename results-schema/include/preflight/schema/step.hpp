// The step family's names and their meaning (SPEC.md, "The step family"): the workload a case
// ran (so that the report's step plug-in projects the same workload from the other families'
// figures), the stats columns and the per-rank counters of each part's exposed time.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

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

enum StepAttribute : std::size_t {
  kStepModel,
  kStepModelSource,
  kStepModelKind,
  kStepLayers,
  kStepHidden,
  kStepFfnHidden,
  kStepGatedMlp,
  kStepHeads,
  kStepKvHeads,
  kStepVocab,
  kStepSeqLen,
  kStepImageSize,
  kStepParameters,
  kStepGradientBytes,
  kStepGlobalBatch,
  kStepMicroBatch,
  kStepRanksPerNode,
  kStepTargetNodes,
  kStepTensorParallel,
  kStepPipelineParallel,
  kStepGradientSync,
  kStepOverlap,
  kStepBucketBytes,
  kStepCheckpointBytes,
  kStepCheckpointInterval,
  kStepMfu,
  kStepCommBackend,
  kStepGemmLibrary,
  kStepDtype,
  kStepThreads,
  kStepLayout,
  kStepDataDir,
  kStepDataWorkers,
  kStepDataEngine,
  kStepDataCache,
  kStepGemmDevice,
  kStepAttributeCount
};
inline constexpr std::array kStepCaseAttributes = {
    Item{"model_preset", Type::kString, "", "the model preset, or custom"},
    Item{"model_source", Type::kString, "", "where the model's shape comes from"},
    Item{"model_kind", Type::kString, "", "transformer or resnet50"},
    Item{"layers", Type::kInt64, "", "transformer layers"},
    Item{"hidden", Type::kInt64, "", "hidden size"},
    Item{"ffn_hidden", Type::kInt64, "", "the MLP's inner width"},
    Item{"gated_mlp", Type::kInt64, "", "1: SwiGLU (3 matrices), 0: 2 matrices"},
    Item{"heads", Type::kInt64, "", "attention heads"},
    Item{"kv_heads", Type::kInt64, "", "key and value heads (grouped-query attention)"},
    Item{"vocab", Type::kInt64, "", "vocabulary"},
    Item{"seq_len", Type::kInt64, "tokens", "tokens per sample"},
    Item{"image_size", Type::kInt64, "pixels", "image side (resnet50)"},
    Item{"parameters", Type::kInt64, "parameters", "the model's parameters"},
    Item{"gradient_bytes", Type::kInt64, "B", "bytes per gradient element"},
    Item{"global_batch", Type::kInt64, "samples", "samples per optimizer step, whole job"},
    Item{"micro_batch", Type::kInt64, "samples", "samples per forward and backward pass"},
    Item{"workload_ranks_per_node", Type::kInt64, "ranks", "GPUs per node of the training run"},
    Item{"target_nodes", Type::kInt64, "nodes", "nodes of the training run"},
    Item{"tensor_parallel", Type::kInt64, "ranks", "tensor-parallel degree"},
    Item{"pipeline_parallel", Type::kInt64, "ranks", "pipeline-parallel degree"},
    Item{"gradient_sync", Type::kString, "", "all-reduce or reduce-scatter+all-gather (sharded)"},
    Item{"overlap", Type::kInt64, "", "1: buckets reduced during the backward pass"},
    Item{"bucket_bytes", Type::kInt64, "B", "gradient bucket size"},
    Item{"checkpoint_bytes", Type::kInt64, "B", "checkpoint bytes per node; 0: none"},
    Item{"checkpoint_interval_s", Type::kFloat64, "s", "planned checkpoint interval; 0: none"},
    Item{"mfu", Type::kFloat64, "", "fraction of the GEMM rate the whole step reaches"},
    Item{"comm_backend", Type::kString, "", "the comm backend the buckets went through"},
    Item{"gemm_library", Type::kString, "", "the GEMM backend and its library"},
    Item{"dtype", Type::kString, "", "GEMM element type"},
    Item{"threads", Type::kInt64, "threads", "BLAS threads of each rank (CPU)"},
    Item{"layout", Type::kString, "", "the node count's label; the case name ends with it"},
    Item{"data_dir", Type::kString, "", "the images the step's data feed reads; empty: no feed"},
    Item{"data_workers", Type::kInt64, "threads", "the data feed's worker threads per rank"},
    Item{"data_engine", Type::kString, "", "the data feed's storage engine"},
    Item{"data_cache", Type::kString, "", "the images' page-cache state before a step's reads"},
    Item{"gemm_device", Type::kString, "", "where the GEMMs run: cpu or gpu"},
};
static_assert(kStepCaseAttributes.size() == kStepAttributeCount);
static_assert(kStepCaseAttributes[kStepThreads].name == "threads");
static_assert(kStepCaseAttributes[kStepLayout].name == "layout");
static_assert(kStepCaseAttributes[kStepMfu].name == "mfu");
static_assert(kStepCaseAttributes[kStepGradientSync].name == "gradient_sync");
static_assert(kStepCaseAttributes[kStepDataDir].name == "data_dir");
static_assert(kStepCaseAttributes[kStepDataCache].name == "data_cache");
static_assert(kStepCaseAttributes[kStepGemmDevice].name == "gemm_device");

// Counters (points/<P>/counters/<name>), in the order an operation reports them.
enum StepCounter : std::size_t {
  kStepComputeCounter,
  kStepCommCounter,
  kStepDataCounter,
  kStepDataResidentCounter,
  kStepDataBusyCounter,
  kStepDataCpuShareCounter,
  kStepCounterCount
};
inline constexpr std::array kStepCounters = {
    Column{"compute_s", Type::kFloat64, "s",
           "the rank's time in GEMMs in the step (waits for the device included)",
           Direction::kLower, Kind::kTime},
    Column{"comm_exposed_s", Type::kFloat64, "s",
           "the rank's time in gradient collectives that compute did not hide", Direction::kLower,
           Kind::kTime},
    Column{"data_exposed_s", Type::kFloat64, "s",
           "the rank's time waiting for its data feed's next batch; NaN: no feed",
           Direction::kLower, Kind::kTime},
    Column{"data_resident_before", Type::kFloat64, "",
           "fraction of the step's images in the page cache when the feed started on them",
           Direction::kNone, Kind::kFraction},
    Column{"data_busy_s", Type::kFloat64, "s",
           "the feed's workers' time building the step's batches, summed, over the workers; "
           "NaN: no feed",
           Direction::kLower, Kind::kTime},
    Column{"data_cpu_share", Type::kFloat64, "",
           "the feed's workers' part of the CPU time the rank's process used in the step",
           Direction::kNone, Kind::kFraction},
};
static_assert(kStepCounters.size() == kStepCounterCount);
static_assert(kStepCounters[kStepComputeCounter].name == "compute_s");
static_assert(kStepCounters[kStepCommCounter].name == "comm_exposed_s");
static_assert(kStepCounters[kStepDataCounter].name == "data_exposed_s");
static_assert(kStepCounters[kStepDataBusyCounter].name == "data_busy_s");
static_assert(kStepCounters[kStepDataCpuShareCounter].name == "data_cpu_share");

enum StepColumn : std::size_t {
  kStepNodes,
  kStepDataParallel,
  kStepAccumulation,
  kStepStepSeconds,
  kStepSamplesPerS,
  kStepCompute,
  kStepCommExposed,
  kStepDataExposed,
  kStepDataBusy,
  kStepDataCpuShare,
  kStepColumnCount
};
inline constexpr std::array kStepStatsColumns = {
    Column{"nodes", Type::kInt64, "nodes", "nodes of each group running the step", Direction::kNone,
           Kind::kCount},
    Column{"data_parallel", Type::kInt64, "ranks", "data-parallel ranks of each group",
           Direction::kNone, Kind::kCount},
    Column{"accumulation", Type::kInt64, "", "micro-batches each rank runs per step",
           Direction::kNone, Kind::kCount},
    Column{"step_s", Type::kFloat64, "s", "time of one step, the slowest rank's, median",
           Direction::kLower, Kind::kTime, PerIteration::kTime},
    Column{"samples_per_s", Type::kFloat64, "samples/s",
           "global_batch / step_s: the group's training throughput", Direction::kHigher,
           Kind::kWorkRate, PerIteration::kInverseTime, "", true},
    Column{"compute_s", Type::kFloat64, "s",
           "compute_s counter: median over iterations of the mean over the group's ranks",
           Direction::kLower, Kind::kTime, PerIteration::kCounterMedian, "compute_s"},
    Column{"comm_exposed_s", Type::kFloat64, "s",
           "comm_exposed_s counter: median over iterations of the mean over the group's ranks",
           Direction::kLower, Kind::kTime, PerIteration::kCounterMedian, "comm_exposed_s"},
    Column{"data_exposed_s", Type::kFloat64, "s",
           "data_exposed_s counter: median over iterations of the mean over the group's ranks",
           Direction::kLower, Kind::kTime, PerIteration::kCounterMedian, "data_exposed_s"},
    Column{"data_busy_s", Type::kFloat64, "s",
           "data_busy_s counter: median over iterations of the mean over the group's ranks",
           Direction::kLower, Kind::kTime, PerIteration::kCounterMedian, "data_busy_s"},
    Column{"data_cpu_share", Type::kFloat64, "",
           "data_cpu_share counter: median over iterations of the mean over the group's ranks",
           Direction::kNone, Kind::kFraction, PerIteration::kCounterMedian, "data_cpu_share"},
};
static_assert(kStepStatsColumns.size() == kStepColumnCount);
static_assert(kStepStatsColumns[kStepNodes].name == "nodes");
static_assert(kStepStatsColumns[kStepStepSeconds].name == "step_s");
static_assert(kStepStatsColumns[kStepSamplesPerS].name == "samples_per_s");
static_assert(kStepStatsColumns[kStepCompute].name == "compute_s");
static_assert(kStepStatsColumns[kStepCommExposed].name == "comm_exposed_s");
static_assert(kStepStatsColumns[kStepDataExposed].name == "data_exposed_s");
static_assert(kStepStatsColumns[kStepDataBusy].name == "data_busy_s");
static_assert(kStepStatsColumns[kStepDataCpuShare].name == "data_cpu_share");

// What every step case declares (SPEC.md, "The step family", Meaning).
inline constexpr Stage kStepStage = Stage::kStep;
inline constexpr std::string_view kStepXAxis = kStepStatsColumns[kStepNodes].name;
inline constexpr Bands kStepBands = Bands::kEachPoint;
inline constexpr Scaling kStepScaling = Scaling::kNone;  // the projection judges scaling
inline constexpr std::string_view kStepSeriesName = "nodes";
inline constexpr bool kStepPeerSlow = false;  // ranks wait for each other in the collectives
inline constexpr bool kStepPeerLate = false;
inline constexpr int kStepMinSamples = 3;

}  // namespace preflight::schema
