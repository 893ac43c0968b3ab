// The tiny transformer both step test files compute by hand: 1 layer, hidden 4, MLP 8 (not
// gated), 2 heads sharing 1 KV head, vocabulary 10, 3 tokens: 204 parameters, 3168 FLOPs a
// sample (2112 of them backward).
#pragma once

#include "preflight/common/step/model.hpp"

namespace preflight::step::testing {

inline ModelShape tiny_model() {
  return {.layers = 1,
          .hidden = 4,
          .ffn_hidden = 8,
          .gated_mlp = false,
          .heads = 2,
          .kv_heads = 1,
          .vocab = 10,
          .seq_len = 3};
}

}  // namespace preflight::step::testing
