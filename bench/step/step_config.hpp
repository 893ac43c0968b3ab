// The step family's options: the workload (a model preset or its shape key by key, the batch,
// the split, the gradient's synchronisation, the checkpoint) and how to run it here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/config/config_node.hpp"
#include "harness/config/options.hpp"
#include "matmul/dtype.hpp"
#include "preflight/common/step/workload.hpp"

namespace preflight::step {

struct StepConfig {
  std::string model;  // a preset, or "custom" for the shape keys alone
  std::string model_kind = "transformer";
  int layers = 0, hidden = 0, ffn_hidden = 0, heads = 0, kv_heads = 0, vocab = 0, seq_len = 0;
  int image_size = 0;
  std::string gated_mlp = "preset";  // true, false or preset
  std::string gradient_dtype = "bf16";
  std::int64_t global_batch = 0;
  int micro_batch = 1;
  int target_nodes = 0;  // 0: this run's nodes
  int tensor_parallel = 1, pipeline_parallel = 1;
  std::string gradient_sync = "all-reduce";  // schema::kStepAllReduce
  bool overlap = true;
  std::uint64_t bucket_bytes = kDefaultBucketBytes;
  std::uint64_t checkpoint_bytes = 0;
  double checkpoint_interval_s = 0;
  double mfu = 1;
  std::string comm_backend = "mpi";
  std::string gemm_backend = "openblas";
  std::string gemm_dtype = "auto";  // auto: bfloat16 on a GPU, float32 on a CPU
  int threads = 0;
  std::vector<int> nodes;  // node counts to run the step on; empty: 1, 2, 4, ... of the run's
  // The data feed (image workloads): the dataloader pipeline over data_dir; "" for none.
  std::string data_dir;
  int data_workers = 2;
  std::string data_engine = "psync";
  std::string data_cache = "warm";
  int data_prefetch = 2;
};

const OptionTable<StepConfig>& step_options();

// The layers' GEMM element type: the configured one, or for auto bfloat16 where the GEMMs run on
// a GPU (a training step's mixed precision; float32 there runs on the CUDA cores, at a
// fourteenth of the tensor cores' rate on an H200) and float32 on a CPU.
matmul::DType resolve_gemm_dtype(const std::string& configured, bool on_gpu);

// The workload the config describes on a run of `ranks_per_node` ranks a node: the preset's
// shape with every key given replacing its value. Throws UsageError at the key at fault.
Workload resolve_workload(const StepConfig& c, const ConfigNode& entry, int ranks_per_node,
                          int run_nodes);

}  // namespace preflight::step
