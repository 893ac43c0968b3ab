// Familiar model shapes to project a step for. Each is an illustration of a shape, with its
// source, not a claim about how anyone trains it.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "preflight/common/step/model.hpp"

namespace preflight::step {

struct ModelPreset {
  std::string_view name;
  ModelShape shape;
  std::int64_t global_batch;  // samples per step in the source's training recipe
  std::string_view source;
};

std::span<const ModelPreset> model_presets();
const ModelPreset* find_preset(std::string_view name);  // nullptr when unknown

}  // namespace preflight::step
