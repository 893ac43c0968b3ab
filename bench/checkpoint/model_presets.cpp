#include "checkpoint/model_presets.hpp"

#include <array>
#include <cmath>

#include "preflight/common/find_named.hpp"

namespace preflight::checkpoint {
namespace {

constexpr std::array kPresets = {
    ModelPreset{"llama3-8b", 8'030'261'248, "Llama 3 8B (Meta, 2024), MLPerf Storage v2.0 8B"},
    ModelPreset{"llama3-70b", 70'553'706'496, "Llama 3 70B (Meta, 2024), MLPerf Storage v2.0 70B"},
    ModelPreset{"llama3-405b", 405'853'388'800,
                "Llama 3.1 405B (Meta, 2024), MLPerf Storage v2.0 405B"},
    ModelPreset{"1t", 1'000'000'000'000, "a 1-trillion-parameter model, MLPerf Storage v2.0 1T"},
};

}  // namespace

std::span<const ModelPreset> model_presets() {
  return kPresets;
}

const ModelPreset* find_preset(std::string_view name) {
  return find_named(model_presets(), name);
}

std::uint64_t checkpoint_bytes(std::uint64_t parameters, double bytes_per_param) {
  return static_cast<std::uint64_t>(
      std::llround(static_cast<double>(parameters) * bytes_per_param));
}

std::uint64_t shard_bytes(std::uint64_t total, int tensor_parallel, int pipeline_parallel,
                          int data_parallel, std::uint64_t align) {
  const auto shards = static_cast<std::uint64_t>(tensor_parallel) *
                      static_cast<std::uint64_t>(pipeline_parallel) *
                      static_cast<std::uint64_t>(data_parallel);
  if (total == 0 || shards == 0) return 0;
  const std::uint64_t each = (total + shards - 1) / shards;
  return align == 0 ? each : (each + align - 1) / align * align;
}

}  // namespace preflight::checkpoint
