#include "preflight/common/step/model.hpp"

#include <fmt/format.h>

namespace preflight::step {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

// A layer's forward GEMM and its two backward GEMMs (input and weight gradients).
void add_trained(std::vector<Gemm>& out, const std::string& name, std::int64_t m, std::int64_t n,
                 std::int64_t k, std::int64_t count) {
  out.push_back({name + ".fwd", m, n, k, count, false});
  out.push_back({name + ".dgrad", m, k, n, count, true});
  out.push_back({name + ".wgrad", k, n, m, count, true});
}

std::int64_t kv_width(const ModelShape& t) {
  return std::int64_t(t.hidden) / t.heads * t.kv_heads;
}

std::uint64_t transformer_parameters(const ModelShape& t) {
  const std::uint64_t h = t.hidden, f = t.ffn_hidden;
  const std::uint64_t attention = h * (h + 2 * std::uint64_t(kv_width(t))) + h * h;
  const std::uint64_t mlp = (t.gated_mlp ? 3 : 2) * h * f;
  const std::uint64_t norms = 2 * h;
  const std::uint64_t embeddings = 2 * std::uint64_t(t.vocab) * h;  // input and output, untied
  return std::uint64_t(t.layers) * (attention + mlp + norms) + embeddings + h;  // + final norm
}

void transformer_gemms(std::vector<Gemm>& out, const ModelShape& t, const ModelSplit& s,
                       int samples) {
  const std::int64_t tokens = std::int64_t(samples) * t.seq_len, h = t.hidden;
  const std::int64_t tp = s.tensor_parallel, layers = t.layers / s.pipeline_parallel;
  const std::int64_t head = h / t.heads, heads = t.heads / tp;
  const std::int64_t up = (t.gated_mlp ? 2 : 1) * std::int64_t(t.ffn_hidden) / tp;
  add_trained(out, "layer.qkv", tokens, (h + 2 * kv_width(t)) / tp, h, layers);
  add_trained(out, "layer.attn_out", tokens, h, h / tp, layers);
  add_trained(out, "layer.mlp_up", tokens, up, h, layers);
  add_trained(out, "layer.mlp_down", tokens, h, t.ffn_hidden / tp, layers);
  const std::int64_t per_head = layers * samples * heads;
  add_trained(out, "layer.scores", t.seq_len, t.seq_len, head, per_head);
  add_trained(out, "layer.values", t.seq_len, head, t.seq_len, per_head);
  // The output projection to the vocabulary: on the last pipeline stage, the slowest one.
  add_trained(out, "logits", tokens, ceil_div(t.vocab, tp), h, 1);
}

// One convolution as the GEMM it is lowered to (im2col): rows are output pixels.
struct Conv {
  std::string name;
  std::int64_t in_channels, out_channels, kernel, out_side;
};

// ResNet-50 v1.5 (torchvision's): bottleneck blocks of 3, 4, 6 and 3 at widths 64 to 512, the
// stride on the 3x3 convolution, a 1x1 projection on each stage's first block.
std::vector<Conv> resnet50_convs(int image_size) {
  std::vector<Conv> convs;
  std::int64_t side = ceil_div(image_size, 2);
  convs.push_back({"stem", 3, 64, 7, side});
  side = ceil_div(side, 2);  // max pool
  const int blocks[] = {3, 4, 6, 3};
  std::int64_t in = 64;
  for (int stage = 0; stage < 4; ++stage) {
    const std::int64_t width = std::int64_t(64) << stage;
    for (int b = 0; b < blocks[stage]; ++b) {
      const std::string name = fmt::format("stage{}.block{}", stage + 1, b + 1);
      const std::int64_t out_side = (b == 0 && stage > 0) ? ceil_div(side, 2) : side;
      convs.push_back({name + ".reduce", in, width, 1, side});
      convs.push_back({name + ".conv3x3", width, width, 3, out_side});
      convs.push_back({name + ".expand", width, 4 * width, 1, out_side});
      if (b == 0) convs.push_back({name + ".projection", in, 4 * width, 1, out_side});
      in = 4 * width;
      side = out_side;
    }
  }
  return convs;
}

constexpr std::int64_t kResNetFeatures = 2048, kResNetClasses = 1000;

std::uint64_t resnet50_parameters(const ModelShape& m) {
  std::uint64_t total = 0;
  for (const auto& c : resnet50_convs(m.image_size))
    total += std::uint64_t(c.in_channels * c.kernel * c.kernel * c.out_channels) +
             2 * std::uint64_t(c.out_channels);                      // batch norm's scale and shift
  return total + kResNetFeatures * kResNetClasses + kResNetClasses;  // classifier and its bias
}

void resnet50_gemms(std::vector<Gemm>& out, const ModelShape& m, int samples) {
  for (const auto& c : resnet50_convs(m.image_size))
    add_trained(out, c.name, std::int64_t(samples) * c.out_side * c.out_side, c.out_channels,
                c.in_channels * c.kernel * c.kernel, 1);
  add_trained(out, "classifier", samples, kResNetClasses, kResNetFeatures, 1);
}

}  // namespace

std::uint64_t parameter_count(const ModelShape& model) {
  return model.kind == ModelKind::kResNet50 ? resnet50_parameters(model)
                                            : transformer_parameters(model);
}

std::vector<Gemm> step_gemms(const ModelShape& model, const ModelSplit& split, int samples) {
  std::vector<Gemm> out;
  if (model.kind == ModelKind::kResNet50)
    resnet50_gemms(out, model, samples);
  else
    transformer_gemms(out, model, split, samples);
  return out;
}

double total_flops(const std::vector<Gemm>& gemms) {
  double sum = 0;
  for (const auto& g : gemms) sum += g.flops();
  return sum;
}

std::string split_problem(const ModelShape& m, const ModelSplit& s) {
  const int tp = s.tensor_parallel, pp = s.pipeline_parallel;
  if (m.kind == ModelKind::kResNet50)
    return tp == 1 && pp == 1 ? ""
                              : "resnet50 runs data-parallel only: set tensor_parallel and "
                                "pipeline_parallel to 1";
  if (m.layers <= 0 || m.hidden <= 0 || m.ffn_hidden <= 0 || m.heads <= 0 || m.kv_heads <= 0 ||
      m.vocab <= 0 || m.seq_len <= 0)
    return "layers, hidden, ffn_hidden, heads, kv_heads, vocab and seq_len must all be above 0: "
           "give a model preset or every one of them";
  if (m.hidden % m.heads != 0)
    return fmt::format("hidden ({}) must be a multiple of heads ({})", m.hidden, m.heads);
  if (m.heads % m.kv_heads != 0)
    return fmt::format("heads ({}) must be a multiple of kv_heads ({})", m.heads, m.kv_heads);
  if (m.layers % pp != 0)
    return fmt::format("layers ({}) must be a multiple of pipeline_parallel ({})", m.layers, pp);
  if (m.kv_heads % tp != 0 || m.ffn_hidden % tp != 0)
    return fmt::format(
        "kv_heads ({}) and ffn_hidden ({}) must be multiples of tensor_parallel "
        "({})",
        m.kv_heads, m.ffn_hidden, tp);
  return "";
}

}  // namespace preflight::step
