// The inputs of a GEMM (matmul family): element e of the matrix with seed `seed`, uniform in
// [-1, 1) from splitmix64. One definition for the host (the reference the result is checked
// against, the OpenBLAS backend's fill) and the device (cuBLASLt's inputs are made on the GPU,
// kernels/cuda/gemm_input.cu: an 8192^2 matrix made on the host took seconds per point).
#pragma once

#include <cstdint>

#ifdef __CUDACC__
#define PREFLIGHT_HOST_DEVICE __host__ __device__
#else
#define PREFLIGHT_HOST_DEVICE
#endif

namespace preflight::kernels {

PREFLIGHT_HOST_DEVICE constexpr double gemm_input(std::uint64_t seed, std::uint64_t e) {
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ULL + e + 0x632BE59BD9B4E019ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1p-52 - 1.0;
}

}  // namespace preflight::kernels
