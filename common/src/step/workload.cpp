#include "preflight/common/step/workload.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace preflight::step {

StepLayout layout_at(const Workload& w, int nodes) {
  StepLayout l;
  l.nodes = nodes;
  l.ranks = nodes * w.ranks_per_node;
  const int model_ranks = w.split.tensor_parallel * w.split.pipeline_parallel;
  if (l.ranks <= 0 || model_ranks <= 0 || w.micro_batch <= 0) {
    l.problem = fmt::format(
        "{} nodes x {} ranks_per_node, tensor_parallel x pipeline_parallel {} and micro_batch {} "
        "must all be above 0",
        nodes, w.ranks_per_node, model_ranks, w.micro_batch);
    return l;
  }
  if (l.ranks % model_ranks != 0) {
    l.problem = fmt::format(
        "{} ranks ({} nodes x {} ranks_per_node) are not a multiple of tensor_parallel x "
        "pipeline_parallel ({}): change ranks_per_node or the split",
        l.ranks, nodes, w.ranks_per_node, model_ranks);
    return l;
  }
  l.data_parallel = l.ranks / model_ranks;
  const std::int64_t per_pass = std::int64_t(l.data_parallel) * w.micro_batch;
  if (w.global_batch % per_pass != 0) {
    l.problem = fmt::format(
        "global_batch ({}) is not a multiple of data-parallel ranks x micro_batch ({} x {} at "
        "{} nodes): change global_batch or micro_batch",
        w.global_batch, l.data_parallel, w.micro_batch, nodes);
    return l;
  }
  l.accumulation = w.global_batch / per_pass;
  return l;
}

std::uint64_t gradient_bytes_per_rank(const Workload& w) {
  const auto shards =
      std::uint64_t(w.split.tensor_parallel) * std::uint64_t(w.split.pipeline_parallel);
  const std::uint64_t params = (parameter_count(w.model) + shards - 1) / shards;
  return params * std::uint64_t(w.gradient_bytes);
}

Buckets buckets_of(std::uint64_t gradient_bytes, std::uint64_t bucket_bytes) {
  if (gradient_bytes == 0 || bucket_bytes == 0) return {};
  Buckets b;
  b.count = (gradient_bytes + bucket_bytes - 1) / bucket_bytes;
  b.bytes = std::min(bucket_bytes, gradient_bytes);
  b.last_bytes = gradient_bytes - (b.count - 1) * bucket_bytes;
  return b;
}

}  // namespace preflight::step
