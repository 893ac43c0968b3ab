// A GEMM's input matrix made on the GPU (cpu/gemm_input.hpp's values, converted to the element
// type as the host converts them, so the host's reference reads the same numbers). Built only
// with the CUDA toolkit (gemm_input.cu).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace preflight::kernels::gpu {

enum class GemmElement { kFloat64, kFloat32, kFloat16, kBfloat16, kFp8E4m3, kFp8E5m2 };

// out[e] = gemm_input(seed, e) in type t, for e < n; queued on `stream`.
cudaError_t fill_gemm_input(GemmElement t, void* out, std::size_t n, std::uint64_t seed,
                            cudaStream_t stream);

}  // namespace preflight::kernels::gpu
