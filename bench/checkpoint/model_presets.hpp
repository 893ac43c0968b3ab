// How big a checkpoint is: a model preset's parameter count times the bytes each parameter
// takes in the checkpoint (weights and optimizer state), split into one shard per rank over
// the tensor-, pipeline- and data-parallel ranks that hold distinct parts of it.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace preflight::checkpoint {

struct ModelPreset {
  std::string_view name;
  std::uint64_t parameters;
  std::string_view source;  // where the count comes from
};

// MLPerf Storage v2.0's checkpointing models (8B, 70B, 405B, 1T).
std::span<const ModelPreset> model_presets();
const ModelPreset* find_preset(std::string_view name);  // nullptr when unknown

// bf16 weights (2 bytes) + fp32 master weights (4) + fp32 Adam first and second moments (4 + 4):
// what mixed-precision training with Adam saves per parameter.
inline constexpr double kDefaultBytesPerParam = 14;

// parameters x bytes_per_param, rounded to the nearest byte.
std::uint64_t checkpoint_bytes(std::uint64_t parameters, double bytes_per_param);

// One rank's shard of `total` bytes split over tp x pp x dp ranks, rounded up to a multiple of
// `align` (a write's block size) so that every write is a whole block; 0 when total is 0.
std::uint64_t shard_bytes(std::uint64_t total, int tensor_parallel, int pipeline_parallel,
                          int data_parallel, std::uint64_t align);

}  // namespace preflight::checkpoint
