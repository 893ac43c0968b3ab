#include "preflight/common/step/presets.hpp"

#include <array>

#include "preflight/common/find_named.hpp"

namespace preflight::step {
namespace {

constexpr ModelShape kLlama2_7b{.layers = 32,
                                .hidden = 4096,
                                .ffn_hidden = 11008,
                                .heads = 32,
                                .kv_heads = 32,
                                .vocab = 32000,
                                .seq_len = 4096};
constexpr ModelShape kLlama2_70b{.layers = 80,
                                 .hidden = 8192,
                                 .ffn_hidden = 28672,
                                 .heads = 64,
                                 .kv_heads = 8,
                                 .vocab = 32000,
                                 .seq_len = 4096};
constexpr ModelShape kTinyTransformer{.layers = 2,
                                      .hidden = 512,
                                      .ffn_hidden = 2048,
                                      .gated_mlp = false,
                                      .heads = 8,
                                      .kv_heads = 8,
                                      .vocab = 1024,
                                      .seq_len = 128};
constexpr ModelShape kResNet50{.kind = ModelKind::kResNet50, .image_size = 224};

constexpr std::array kPresets = {
    ModelPreset{"tiny-transformer", kTinyTransformer, 8,
                "illustration: a GPT-style transformer small enough for a CPU (2 layers, hidden "
                "512, MLP 2048, 128-token samples; the shape of Radford et al. 2019's layers, "
                "scaled down), the default so that a step runs anywhere"},
    ModelPreset{"llama2-7b", kLlama2_7b, 1024,
                "illustration: Llama 2 7B's shape (Touvron et al. 2023, Table 1 and the released "
                "config: 32 layers, hidden 4096, SwiGLU 11008, vocabulary 32000, 4096-token "
                "context; a 4M-token batch, sec. 2.2)"},
    ModelPreset{"llama2-70b", kLlama2_70b, 1024,
                "illustration: Llama 2 70B's shape (Touvron et al. 2023, Table 1 and the "
                "released config: 80 layers, hidden 8192, 8 KV heads of 64, SwiGLU 28672, "
                "4096-token context; a 4M-token batch, sec. 2.2)"},
    ModelPreset{"resnet50", kResNet50, 256,
                "illustration: a ResNet-50-like image model, torchvision's ResNet-50 v1.5 "
                "(He et al. 2016, Table 1; 25.6M parameters, 4.1 G multiply-adds per 224x224 "
                "image), 256 images a step (Goyal et al. 2017's reference batch)"},
};

}  // namespace

std::span<const ModelPreset> model_presets() {
  return kPresets;
}

const ModelPreset* find_preset(std::string_view name) {
  return find_named(model_presets(), name);
}

}  // namespace preflight::step
