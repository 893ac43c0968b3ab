// The workload's arithmetic: parameter counts against the published ones, FLOPs against
// Narayanan et al.'s formula and against sums done by hand, layout and buckets.
#include <gtest/gtest.h>

#include "preflight/common/step/model.hpp"
#include "preflight/common/step/presets.hpp"
#include "preflight/common/step/workload.hpp"
#include "step/step_config.hpp"
#include "step_tiny_model.hpp"

namespace preflight::step {
namespace {

using testing::tiny_model;

TEST(StepModel, TinyTransformerParametersByHand) {
  // attention 4 x (4 + 2 x 2) + 4 x 4 = 48; MLP 2 x 4 x 8 = 64; norms 8; embeddings 2 x 10 x 4
  // = 80; final norm 4.
  EXPECT_EQ(parameter_count(tiny_model()), 48u + 64 + 8 + 80 + 4);
}

TEST(StepModel, TinyTransformerFlopsByHand) {
  // Forward, 3 tokens: qkv 2x3x8x4 = 192, out 2x3x4x4 = 96, up 192, down 2x3x4x8 = 192,
  // scores 2 heads x 2x3x3x2 = 72, values 72, logits 2x3x10x4 = 240: 1056; training is 3x.
  const auto gemms = step_gemms(tiny_model(), {}, 1);
  EXPECT_DOUBLE_EQ(total_flops(gemms), 3 * 1056.0);
  // Halved over 2 tensor-parallel ranks (each holds half the heads and MLP columns).
  EXPECT_DOUBLE_EQ(total_flops(step_gemms(tiny_model(), {.tensor_parallel = 2}, 1)), 3 * 528.0);
  // Two samples: twice the work.
  EXPECT_DOUBLE_EQ(total_flops(step_gemms(tiny_model(), {}, 2)), 2 * 3 * 1056.0);
}

TEST(StepModel, BackwardGemmsAreTheTransposedShapes) {
  const auto gemms = step_gemms(tiny_model(), {}, 1);
  ASSERT_GE(gemms.size(), 3u);
  EXPECT_EQ(gemms[0].name, "layer.qkv.fwd");
  EXPECT_EQ((std::array{gemms[0].m, gemms[0].n, gemms[0].k}),
            (std::array<std::int64_t, 3>{3, 8, 4}));
  EXPECT_EQ((std::array{gemms[1].m, gemms[1].n, gemms[1].k}),
            (std::array<std::int64_t, 3>{3, 4, 8}));
  EXPECT_EQ((std::array{gemms[2].m, gemms[2].n, gemms[2].k}),
            (std::array<std::int64_t, 3>{4, 8, 3}));
}

TEST(StepModel, GptShapeMatchesNarayananFormula) {
  // Narayanan et al. 2021 (eq. 3 without recomputation): 72 B s l h^2 (1 + s / 6h) + 6 B s h V
  // for a GPT layer (4h MLP, multi-head attention).
  const ModelShape gpt{.layers = 2,
                       .hidden = 64,
                       .ffn_hidden = 256,
                       .gated_mlp = false,
                       .heads = 4,
                       .kv_heads = 4,
                       .vocab = 1000,
                       .seq_len = 32};
  const double B = 2, s = 32, l = 2, h = 64, V = 1000;
  const double expected = 72 * B * s * l * h * h * (1 + s / (6 * h)) + 6 * B * s * h * V;
  EXPECT_DOUBLE_EQ(total_flops(step_gemms(gpt, {}, 2)), expected);
}

TEST(StepModel, PresetsMatchPublishedParameterCounts) {
  // Llama 2's released checkpoints: 6,738,415,616 and 68,976,648,192 parameters; torchvision's
  // ResNet-50: 25,557,032.
  EXPECT_EQ(parameter_count(find_preset("llama2-7b")->shape), 6'738'415'616u);
  EXPECT_EQ(parameter_count(find_preset("llama2-70b")->shape), 68'976'648'192u);
  EXPECT_EQ(parameter_count(find_preset("resnet50")->shape), 25'557'032u);
  for (const auto& p : model_presets()) {
    EXPECT_NE(p.source.find("illustration"), std::string_view::npos) << p.name;
    EXPECT_EQ(split_problem(p.shape, {}), "") << p.name;
  }
  EXPECT_EQ(find_preset("gpt-5"), nullptr);
}

TEST(StepModel, PresetsFlops) {
  // ResNet-50: torchvision lists 4.09 G multiply-adds per 224x224 image forward.
  const auto resnet = step_gemms(find_preset("resnet50")->shape, {}, 1);
  EXPECT_NEAR(total_flops(resnet) / 3 / 2, 4.09e9, 0.01 * 4.09e9);
  // Llama 2 7B: 6 N per token for the weights plus attention, 12 l h s per token (Kaplan et
  // al. 2020 count the same): (6 x 6.738e9 + 12 x 32 x 4096 x 4096) x 4096 tokens.
  const auto& llama = find_preset("llama2-7b")->shape;
  const double weights_without_input_embedding = 6'738'415'616.0 - 32000.0 * 4096 - 4096 * 65;
  const double per_token = 6 * weights_without_input_embedding + 12.0 * 32 * 4096 * 4096;
  EXPECT_NEAR(total_flops(step_gemms(llama, {}, 1)), per_token * 4096, 1e-9 * per_token * 4096);
}

TEST(StepModel, SplitProblemsNameTheKeys) {
  auto m = tiny_model();
  EXPECT_NE(split_problem(m, {.pipeline_parallel = 2}).find("pipeline_parallel"),
            std::string::npos);
  EXPECT_NE(split_problem(m, {.tensor_parallel = 2}).find("tensor_parallel"), std::string::npos);
  m.heads = 3;
  EXPECT_NE(split_problem(m, {}).find("heads"), std::string::npos);
  EXPECT_NE(split_problem(ModelShape{}, {}).find("preset"), std::string::npos);
  EXPECT_NE(split_problem(find_preset("resnet50")->shape, {.tensor_parallel = 2}), "");
}

TEST(StepModel, LayoutAndAccumulation) {
  Workload w;
  w.model = tiny_model();
  w.split = {.tensor_parallel = 2, .pipeline_parallel = 2};
  w.ranks_per_node = 8;
  w.global_batch = 64;
  w.micro_batch = 2;
  const auto l = layout_at(w, 2);  // 16 ranks, 4 model ranks each: 4 data-parallel ranks
  EXPECT_EQ(l.problem, "");
  EXPECT_EQ(l.data_parallel, 4);
  EXPECT_EQ(l.accumulation, 8);  // 64 / (4 x 2)
  w.global_batch = 60;
  EXPECT_NE(layout_at(w, 2).problem.find("global_batch"), std::string::npos);
  w.ranks_per_node = 6;
  EXPECT_NE(layout_at(w, 1).problem.find("ranks_per_node"), std::string::npos);
  w.ranks_per_node = 0;  // a file without the attribute: refused, not divided by
  EXPECT_NE(layout_at(w, 1).problem.find("above 0"), std::string::npos);
}

TEST(StepModel, GradientBytesAndBuckets) {
  Workload w;
  w.model = tiny_model();  // 204 parameters
  EXPECT_EQ(gradient_bytes_per_rank(w), 408u);
  w.split.tensor_parallel = 2;
  EXPECT_EQ(gradient_bytes_per_rank(w), 204u);
  const auto b = buckets_of(100, 30);
  EXPECT_EQ(b.count, 4u);
  EXPECT_EQ(b.bytes, 30u);
  EXPECT_EQ(b.last_bytes, 10u);
  EXPECT_EQ(buckets_of(60, 30).last_bytes, 30u);
  EXPECT_EQ(buckets_of(10, 30).bytes, 10u);
  EXPECT_EQ(buckets_of(0, 30).count, 0u);
}

}  // namespace
}  // namespace preflight::step

// The device check on an H200 (2026-12-04) ran two llama2-7b layers' step at 43 TFLOP/s: its
// GEMMs were float32, which a GPU runs on its CUDA cores; training runs them in bfloat16.
TEST(StepGemmDtype, AutoIsBfloat16OnAGpuAndFloat32OnACpu) {
  EXPECT_EQ(preflight::step::resolve_gemm_dtype("auto", true), preflight::matmul::DType::kBfloat16);
  EXPECT_EQ(preflight::step::resolve_gemm_dtype("auto", false), preflight::matmul::DType::kFloat32);
  EXPECT_EQ(preflight::step::resolve_gemm_dtype("float16", true),
            preflight::matmul::DType::kFloat16);
  EXPECT_EQ(preflight::step::resolve_gemm_dtype("float32", true),
            preflight::matmul::DType::kFloat32);
}
