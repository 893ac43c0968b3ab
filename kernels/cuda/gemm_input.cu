#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "cpu/gemm_input.hpp"
#include "cuda/gemm_input.hpp"

namespace preflight::kernels::gpu {
namespace {

// The same conversions as the host's (round to nearest; fp8 saturating to its finite range).
template <typename T>
__device__ T convert(double v);
template <>
__device__ double convert<double>(double v) {
  return v;
}
template <>
__device__ float convert<float>(double v) {
  return static_cast<float>(v);
}
template <>
__device__ __half convert<__half>(double v) {
  return __float2half(static_cast<float>(v));
}
template <>
__device__ __nv_bfloat16 convert<__nv_bfloat16>(double v) {
  return __float2bfloat16(static_cast<float>(v));
}
template <>
__device__ __nv_fp8_e4m3 convert<__nv_fp8_e4m3>(double v) {
  return __nv_fp8_e4m3(static_cast<float>(v));
}
template <>
__device__ __nv_fp8_e5m2 convert<__nv_fp8_e5m2>(double v) {
  return __nv_fp8_e5m2(static_cast<float>(v));
}

template <typename T>
__global__ void fill(T* out, std::size_t n, std::uint64_t seed) {
  for (std::size_t e = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; e < n;
       e += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    out[e] = convert<T>(gemm_input(seed, e));
}

template <typename T>
cudaError_t launch(void* out, std::size_t n, std::uint64_t seed, cudaStream_t stream) {
  int device = 0, sms = 1;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  const std::size_t wanted = (n + 255) / 256, most = static_cast<std::size_t>(sms) * 8;
  const auto blocks = static_cast<unsigned>(wanted < most ? (wanted > 0 ? wanted : 1) : most);
  fill<T><<<blocks, 256, 0, stream>>>(static_cast<T*>(out), n, seed);
  return cudaGetLastError();
}

}  // namespace

cudaError_t fill_gemm_input(GemmElement t, void* out, std::size_t n, std::uint64_t seed,
                            cudaStream_t stream) {
  switch (t) {
    case GemmElement::kFloat64:
      return launch<double>(out, n, seed, stream);
    case GemmElement::kFloat32:
      return launch<float>(out, n, seed, stream);
    case GemmElement::kFloat16:
      return launch<__half>(out, n, seed, stream);
    case GemmElement::kBfloat16:
      return launch<__nv_bfloat16>(out, n, seed, stream);
    case GemmElement::kFp8E4m3:
      return launch<__nv_fp8_e4m3>(out, n, seed, stream);
    case GemmElement::kFp8E5m2:
      return launch<__nv_fp8_e5m2>(out, n, seed, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace preflight::kernels::gpu
