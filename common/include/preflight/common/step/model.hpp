// A model's shape and the GEMMs of its training step: what both the step benchmark (which runs
// them) and the report's projection (which prices them at the measured matmul rate) compute from
// the workload. No MPI and no BLAS here, so preflight-report links it too.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace preflight::step {

enum class ModelKind { kTransformer, kResNet50 };

// A decoder-only transformer (Llama-style: no biases, RMSNorm) or the ResNet-50 v1.5 layout.
// ResNet-50 is fixed but for its input: only image_size is read for it.
struct ModelShape {
  ModelKind kind = ModelKind::kTransformer;
  int layers = 0;
  int hidden = 0;
  int ffn_hidden = 0;     // the MLP's inner width
  bool gated_mlp = true;  // SwiGLU: up and gate projections (3 matrices), else 2
  int heads = 0;
  int kv_heads = 0;  // grouped-query attention; = heads for plain multi-head attention
  int vocab = 0;
  int seq_len = 0;       // tokens per sample
  int image_size = 224;  // ResNet-50 only: pixels on a side
};

// How the model is split over ranks: tensor parallel splits each layer's matrices (Megatron's
// column- then row-parallel pairs, the vocabulary too), pipeline parallel splits the layers.
struct ModelSplit {
  int tensor_parallel = 1;
  int pipeline_parallel = 1;
};

// One GEMM shape: C[m x n] += A[m x k] B[k x n], `count` times per micro-batch.
struct Gemm {
  std::string name;  // e.g. "layer.qkv.fwd"
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t count = 1;
  bool backward = false;  // the backward pass's (input or weight gradient)
  double flops() const { return 2.0 * double(m) * double(n) * double(k) * double(count); }
};

// Every parameter, embeddings and norms included (the optimizer updates all of them).
std::uint64_t parameter_count(const ModelShape& model);

// One rank's GEMMs for one micro-batch of `samples`: each forward GEMM, then its two backward
// GEMMs (the input's gradient, C[m x k] from m x n by n x k, and the weight's, C[k x n] from
// k x m by m x n), which cost what the forward does. Attention's score and value products are
// counted in full (no causal saving), as Narayanan et al. (2021) count them.
std::vector<Gemm> step_gemms(const ModelShape& model, const ModelSplit& split, int samples);

double total_flops(const std::vector<Gemm>& gemms);

// "" when the split fits the model, else what does not divide and the fix.
std::string split_problem(const ModelShape& model, const ModelSplit& split);

}  // namespace preflight::step
