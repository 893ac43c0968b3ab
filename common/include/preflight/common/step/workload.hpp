// The training run a step is projected and measured for: the model, how it is split and
// batched over the cluster, how its gradients are synchronised, and how often it checkpoints.
#pragma once

#include <cstdint>
#include <string>

#include "preflight/common/step/model.hpp"

namespace preflight::step {

enum class GradientSync {
  kAllReduce,               // plain data parallel (PyTorch DDP)
  kReduceScatterAllGather,  // sharded gradients and optimizer (ZeRO, FSDP)
};

// PyTorch DDP's default bucket: 25 MiB.
inline constexpr std::uint64_t kDefaultBucketBytes = 25ull << 20;

struct Workload {
  std::string preset;  // "" when the shape is given key by key
  std::string source;  // where the shape comes from
  ModelShape model;
  ModelSplit split;
  int gradient_bytes = 2;         // per gradient element: bf16
  std::int64_t global_batch = 0;  // samples per optimizer step, over the whole job
  int micro_batch = 1;            // samples per forward and backward pass on one rank
  int ranks_per_node = 8;         // GPUs per node
  int target_nodes = 1;
  GradientSync sync = GradientSync::kAllReduce;
  bool overlap = true;  // gradient buckets reduced during the backward pass
  std::uint64_t bucket_bytes = kDefaultBucketBytes;
  std::uint64_t checkpoint_bytes = 0;  // per node; 0: no checkpoint in the step
  double checkpoint_interval_s = 0;
  // The fraction of the measured GEMM rate the whole step's compute reaches (the rest goes to
  // attention's softmax, norms, the optimizer, launches); 1 for the GEMMs alone.
  double mfu = 1;
};

// Where the step runs at `nodes` nodes: ranks, data-parallel ranks, micro-batches per step.
struct StepLayout {
  int nodes = 0, ranks = 0, data_parallel = 0;
  std::int64_t accumulation = 0;  // micro-batches each rank runs per step
  std::string problem;            // "" when the workload fits; else what does not, and the fix
};

StepLayout layout_at(const Workload& w, int nodes);

// The gradient one rank synchronises each step: its share of the parameters (over tensor and
// pipeline ranks) times the gradient dtype's bytes.
std::uint64_t gradient_bytes_per_rank(const Workload& w);

// Buckets of the gradient: ceil(gradient / bucket), and the last one's bytes.
struct Buckets {
  std::uint64_t count = 0, bytes = 0, last_bytes = 0;
};
Buckets buckets_of(std::uint64_t gradient_bytes, std::uint64_t bucket_bytes);

}  // namespace preflight::step
