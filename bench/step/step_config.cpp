#include "step/step_config.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "preflight/common/step/presets.hpp"
#include "preflight/schema/step.hpp"

namespace preflight::step {
namespace {

std::vector<std::string> preset_names() {
  std::vector<std::string> out;
  for (const auto& p : model_presets()) out.emplace_back(p.name);
  return out;
}

Option<StepConfig> shape_key(const char* key, const char* flags, const char* help,
                             int StepConfig::*field) {
  return opt::integer({.key = key,
                       .flags = flags,
                       .help = std::string(help) + "; 0: the preset's",
                       .default_value = "0"},
                      field, 0, 1 << 24);
}

int gradient_bytes_of(const std::string& dtype) {
  return dtype == "fp32" ? 4 : 2;
}

}  // namespace

const OptionTable<StepConfig>& step_options() {
  using C = StepConfig;
  static const OptionTable<C> table({
      opt::text({.key = "model",
                 .flags = "--model",
                 .help = fmt::format("Model preset (an illustration of a familiar shape): {}; "
                                     "or custom: the shape keys alone",
                                     fmt::join(preset_names(), ", ")),
                 .default_value = "tiny-transformer"},
                &C::model),
      opt::one_of({.key = "model_kind",
                   .flags = "--model-kind",
                   .help = "Model family of a custom shape",
                   .default_value = "transformer"},
                  &C::model_kind, {"transformer", "resnet50"}),
      shape_key("layers", "--layers", "Transformer layers", &C::layers),
      shape_key("hidden", "--hidden", "Hidden size", &C::hidden),
      shape_key("ffn_hidden", "--ffn-hidden", "The MLP's inner width", &C::ffn_hidden),
      shape_key("heads", "--heads", "Attention heads", &C::heads),
      shape_key("kv_heads", "--kv-heads", "Key and value heads (grouped-query attention)",
                &C::kv_heads),
      shape_key("vocab", "--vocab", "Vocabulary", &C::vocab),
      shape_key("seq_len", "--seq-len", "Tokens per sample", &C::seq_len),
      shape_key("image_size", "--image-size", "Image side in pixels (resnet50)", &C::image_size),
      opt::one_of({.key = "gated_mlp",
                   .flags = "--gated-mlp",
                   .help = "SwiGLU MLP (3 matrices) or not (2)",
                   .default_value = "preset"},
                  &C::gated_mlp, {"true", "false", "preset"}),
      opt::one_of({.key = "gradient_dtype",
                   .flags = "--gradient-dtype",
                   .help = "Gradient element type (its bytes are what the buckets move)",
                   .default_value = "bf16"},
                  &C::gradient_dtype, {"bf16", "fp16", "fp32"}),
      opt::integer({.key = "global_batch",
                    .flags = "--global-batch",
                    .help = "Samples per optimizer step over the whole job; 0: the preset's",
                    .default_value = "0"},
                   &C::global_batch, 0, std::int64_t{1} << 40),
      opt::integer({.key = "micro_batch",
                    .flags = "--micro-batch",
                    .help = "Samples per forward and backward pass on one rank",
                    .default_value = "1"},
                   &C::micro_batch, 1, 1 << 20),
      opt::integer({.key = "target_nodes",
                    .flags = "--target-nodes",
                    .help = "Nodes of the training run to project for; 0: this run's",
                    .default_value = "0"},
                   &C::target_nodes, 0, 1 << 24),
      opt::integer({.key = "tensor_parallel",
                    .flags = "--step-tensor-parallel",
                    .help = "Tensor-parallel ranks",
                    .default_value = "1"},
                   &C::tensor_parallel, 1, 1 << 16),
      opt::integer({.key = "pipeline_parallel",
                    .flags = "--step-pipeline-parallel",
                    .help = "Pipeline-parallel ranks",
                    .default_value = "1"},
                   &C::pipeline_parallel, 1, 1 << 16),
      opt::one_of(
          {.key = "gradient_sync",
           .flags = "--gradient-sync",
           .help = "Plain data parallel (all-reduce) or sharded gradients and optimizer",
           .default_value = std::string(schema::kStepAllReduce)},
          &C::gradient_sync,
          {std::string(schema::kStepAllReduce), std::string(schema::kStepReduceScatterAllGather)}),
      opt::boolean({.key = "overlap",
                    .flags = "--overlap",
                    .help = "Reduce gradient buckets during the backward pass",
                    .default_value = "true"},
                   &C::overlap),
      opt::size({.key = "bucket_size",
                 .flags = "--bucket-size",
                 .help = "Gradient bucket bytes (PyTorch DDP: 25M)",
                 .default_value = "25M",
                 .record = "bucket_bytes"},
                &C::bucket_bytes),
      opt::size({.key = "checkpoint_size",
                 .flags = "--checkpoint-size",
                 .help = "Checkpoint bytes each node saves; 0: no checkpoint",
                 .default_value = "0",
                 .record = "checkpoint_bytes"},
                &C::checkpoint_bytes),
      opt::duration({.key = "checkpoint_interval",
                     .flags = "--checkpoint-interval",
                     .help = "Planned checkpoint interval, e.g. 30m; 0: none",
                     .default_value = "0",
                     .record = "checkpoint_interval_s"},
                    &C::checkpoint_interval_s, 0, "a duration, e.g. 30m"),
      opt::number({.key = "mfu",
                   .flags = "--mfu",
                   .help = "Fraction of the measured GEMM rate the whole step's compute reaches "
                           "(1: the GEMMs alone, as the synthetic step runs)",
                   .default_value = "1"},
                  &C::mfu, 0.01, 1),
      opt::one_of({.key = "comm_backend",
                   .flags = "--step-comm-backend",
                   .help = "Comm backend the gradient buckets go through",
                   .default_value = "mpi"},
                  &C::comm_backend, {"mpi", "nccl"}),
      opt::one_of({.key = "gemm_backend",
                   .flags = "--step-gemm-backend",
                   .help = "GEMM backend of the layers",
                   .default_value = "openblas"},
                  &C::gemm_backend, {"openblas", "cublaslt"}),
      opt::one_of({.key = "gemm_dtype",
                   .flags = "--step-gemm-dtype",
                   .help = "Element type of the layers' GEMMs; auto: bfloat16 on a GPU (mixed "
                           "precision, as training runs there), float32 on a CPU",
                   .default_value = "auto"},
                  &C::gemm_dtype, {"auto", "float32", "bfloat16", "float16"}),
      opt::integer({.key = "threads",
                    .flags = "--step-threads",
                    .help = "BLAS threads per rank; 0: the host's CPUs shared among its ranks",
                    .default_value = "0"},
                   &C::threads, 0, 4096),
      opt::integers({.key = "nodes",
                     .flags = "--step-nodes",
                     .help = "Node counts to run the step on, each dividing the run's nodes",
                     .shown_default = "1, 2, 4, ... up to the run's"},
                    &C::nodes, 1, 1 << 24),
      opt::text({.key = "data_dir",
                 .flags = "--step-data-dir",
                 .help = "Images (a dataloader data set: preflight dataset make) each "
                         "micro-batch is loaded from, through the dataloader's pipeline; "
                         "resnet50 only; none: no data feed",
                 .default_value = ""},
                &C::data_dir),
      opt::integer({.key = "data_workers",
                    .flags = "--step-data-workers",
                    .help = "The data feed's worker threads per rank",
                    .default_value = "2"},
                   &C::data_workers, 1, 1024),
      opt::one_of({.key = "data_engine",
                   .flags = "--step-data-engine",
                   .help = "The data feed's storage engine",
                   .default_value = "psync"},
                  &C::data_engine, {"psync", "io_uring"}),
      opt::one_of({.key = "data_cache",
                   .flags = "--step-data-cache",
                   .help = "Page cache of a step's images before the feed reads them: "
                           "evicted (storage) or warm (memory)",
                   .default_value = "warm"},
                  &C::data_cache, {"evicted", "warm"}),
      opt::integer({.key = "data_prefetch",
                    .flags = "--step-data-prefetch",
                    .help = "Batches each of the feed's workers may have ready ahead",
                    .default_value = "2"},
                   &C::data_prefetch, 1, 1024),
  });
  return table;
}

namespace {

// The shape keys given replace the preset's values; returns their names.
std::vector<std::string> apply_overrides(const StepConfig& c, ModelShape& m) {
  std::vector<std::string> given;
  auto take = [&](const char* key, int value, int& into) {
    if (value <= 0) return;
    into = value;
    given.emplace_back(key);
  };
  take("layers", c.layers, m.layers);
  take("hidden", c.hidden, m.hidden);
  take("ffn_hidden", c.ffn_hidden, m.ffn_hidden);
  take("heads", c.heads, m.heads);
  take("kv_heads", c.kv_heads, m.kv_heads);
  take("vocab", c.vocab, m.vocab);
  take("seq_len", c.seq_len, m.seq_len);
  take("image_size", c.image_size, m.image_size);
  if (c.gated_mlp != "preset") {
    m.gated_mlp = c.gated_mlp == "true";
    given.emplace_back("gated_mlp");
  }
  if (c.kv_heads <= 0 && c.heads > 0) m.kv_heads = m.heads;  // multi-head unless told
  return given;
}

}  // namespace

matmul::DType resolve_gemm_dtype(const std::string& configured, bool on_gpu) {
  if (configured == "auto") return on_gpu ? matmul::DType::kBfloat16 : matmul::DType::kFloat32;
  return matmul::kDTypeNames.parse(configured).value_or(matmul::DType::kFloat32);
}

Workload resolve_workload(const StepConfig& c, const ConfigNode& entry, int ranks_per_node,
                          int run_nodes) {
  Workload w;
  const ModelPreset* preset = nullptr;
  if (c.model != "custom") {
    preset = find_preset(c.model);
    if (preset == nullptr)
      entry.fail("model", fmt::format("one of {} or custom", fmt::join(preset_names(), ", ")),
                 "'" + c.model + "'");
    w.preset = c.model;
    w.model = preset->shape;
    w.source = std::string(preset->source);
  } else {
    w.model.kind = c.model_kind == "resnet50" ? ModelKind::kResNet50 : ModelKind::kTransformer;
    w.source = "custom: the config's shape keys";
  }
  const auto given = apply_overrides(c, w.model);
  if (preset && !given.empty()) {
    w.source = fmt::format("custom: {} with the config's {}", c.model, fmt::join(given, ", "));
    w.preset.clear();
  }
  w.split = {c.tensor_parallel, c.pipeline_parallel};
  if (const auto problem = split_problem(w.model, w.split); !problem.empty())
    entry.fail(given.empty() ? "model" : given.back(), "a shape that fits the split", problem);
  w.gradient_bytes = gradient_bytes_of(c.gradient_dtype);
  w.global_batch = c.global_batch > 0 ? c.global_batch : (preset ? preset->global_batch : 0);
  if (w.global_batch <= 0) entry.fail("global_batch", "samples per step above 0", "0");
  w.micro_batch = c.micro_batch;
  w.ranks_per_node = ranks_per_node;
  w.target_nodes = c.target_nodes > 0 ? c.target_nodes : run_nodes;
  w.sync = c.gradient_sync == schema::kStepAllReduce ? GradientSync::kAllReduce
                                                     : GradientSync::kReduceScatterAllGather;
  w.overlap = c.overlap;
  w.bucket_bytes = c.bucket_bytes;
  if (w.bucket_bytes == 0) entry.fail("bucket_size", "bytes above 0, e.g. 25M", "0");
  w.checkpoint_bytes = c.checkpoint_bytes;
  w.checkpoint_interval_s = c.checkpoint_interval_s;
  w.mfu = c.mfu;
  return w;
}

}  // namespace preflight::step
