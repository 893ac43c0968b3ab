// GPU versions of cpu/pattern.hpp's fill, checks and planted corruption (pattern_gpu.hpp).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "cuda/pattern_gpu.hpp"

namespace preflight::kernels::gpu {
namespace {

constexpr std::uint64_t kModulus = 61;  // cpu/pattern.hpp's kPatternModulus
constexpr int kThreads = 256;
constexpr std::uint64_t kMaxBlocks = 4096;  // grid-stride loops cover the rest

__device__ std::uint64_t pattern_code(std::uint64_t rank, std::uint64_t index) {
  return (rank * 131 + index * 7) % kModulus;  // pattern_value(rank, index) - 1
}

// A pattern value (a small whole number) as T, and an element as double, for every element
// type: the 16-bit floating types convert through float, the others directly.
template <typename T>
__device__ T from_value(std::uint64_t v) {
  return static_cast<T>(v);
}
template <>
__device__ __half from_value<__half>(std::uint64_t v) {
  return __float2half(static_cast<float>(v));
}
template <>
__device__ __nv_bfloat16 from_value<__nv_bfloat16>(std::uint64_t v) {
  return __float2bfloat16(static_cast<float>(v));
}
template <typename T>
__device__ double as_double(T x) {
  return static_cast<double>(x);
}
template <>
__device__ double as_double<__half>(__half x) {
  return static_cast<double>(__half2float(x));
}
template <>
__device__ double as_double<__nv_bfloat16>(__nv_bfloat16 x) {
  return static_cast<double>(__bfloat162float(x));
}

template <typename T>
__global__ void fill_kernel(T* out, std::uint64_t n, std::uint64_t rank, std::uint64_t first) {
  const std::uint64_t stride = std::uint64_t{blockDim.x} * gridDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = from_value<T>(pattern_code(rank, first + i) + 1);
}

// Each block adds its count once, so the counter sees one atomic per block.
template <typename T>
__global__ void pattern_check_kernel(const T* got, std::uint64_t n, std::uint64_t rank,
                                     std::uint64_t first, unsigned long long* wrong) {
  __shared__ unsigned long long block_wrong;
  if (threadIdx.x == 0) block_wrong = 0;
  __syncthreads();
  unsigned long long mine = 0;
  const std::uint64_t stride = std::uint64_t{blockDim.x} * gridDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride)
    mine += as_double(got[i]) != static_cast<double>(pattern_code(rank, first + i) + 1);
  if (mine != 0) atomicAdd(&block_wrong, mine);
  __syncthreads();
  if (threadIdx.x == 0 && block_wrong != 0) atomicAdd(wrong, block_wrong);
}

template <typename T>
__global__ void reduced_check_kernel(const T* got, std::uint64_t n, ReducedTable table,
                                     std::uint64_t first, unsigned long long* wrong) {
  __shared__ unsigned long long block_wrong;
  if (threadIdx.x == 0) block_wrong = 0;
  __syncthreads();
  unsigned long long mine = 0;
  const std::uint64_t stride = std::uint64_t{blockDim.x} * gridDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride)
    mine += as_double(got[i]) != table.value[((first + i) * 7) % kModulus];
  if (mine != 0) atomicAdd(&block_wrong, mine);
  __syncthreads();
  if (threadIdx.x == 0 && block_wrong != 0) atomicAdd(wrong, block_wrong);
}

template <typename T>
__global__ void corrupt_kernel(T* buffer, std::uint64_t n, std::uint64_t stride) {
  const std::uint64_t i = (std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x) * stride;
  if (i < n) buffer[i] = from_value<T>(0);
}

unsigned blocks_for(std::uint64_t n) {
  const std::uint64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 1 ? 1 : (b > kMaxBlocks ? kMaxBlocks : b));
}

// Calls f with a null pointer of the element type, to pick the kernel's template argument.
template <typename F>
cudaError_t with_type(Element t, F&& f) {
  switch (t) {
    case Element::kFloat32:
      return f(static_cast<float*>(nullptr));
    case Element::kFloat64:
      return f(static_cast<double*>(nullptr));
    case Element::kInt32:
      return f(static_cast<std::int32_t*>(nullptr));
    case Element::kInt64:
      return f(static_cast<std::int64_t*>(nullptr));
    case Element::kUInt32:
      return f(static_cast<std::uint32_t*>(nullptr));
    case Element::kUInt64:
      return f(static_cast<std::uint64_t*>(nullptr));
    case Element::kInt8:
      return f(static_cast<std::int8_t*>(nullptr));
    case Element::kUInt8:
      return f(static_cast<std::uint8_t*>(nullptr));
    case Element::kFloat16:
      return f(static_cast<__half*>(nullptr));
    case Element::kBFloat16:
      return f(static_cast<__nv_bfloat16*>(nullptr));
  }
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t fill_pattern(Element t, void* out, std::uint64_t n, std::uint64_t rank,
                         std::uint64_t first_index, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  return with_type(t, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    fill_kernel<T>
        <<<blocks_for(n), kThreads, 0, stream>>>(static_cast<T*>(out), n, rank, first_index);
    return cudaGetLastError();
  });
}

cudaError_t count_pattern_mismatches(Element t, const void* got, std::uint64_t n,
                                     std::uint64_t rank, std::uint64_t first_index,
                                     unsigned long long* wrong, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  return with_type(t, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    pattern_check_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(static_cast<const T*>(got), n,
                                                                    rank, first_index, wrong);
    return cudaGetLastError();
  });
}

cudaError_t count_reduced_mismatches(Element t, const void* got, std::uint64_t n,
                                     const ReducedTable& table, std::uint64_t first_index,
                                     unsigned long long* wrong, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  return with_type(t, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    reduced_check_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(static_cast<const T*>(got), n,
                                                                    table, first_index, wrong);
    return cudaGetLastError();
  });
}

cudaError_t corrupt(Element t, void* buffer, std::uint64_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  const std::uint64_t stride = n / 16 > 0 ? n / 16 : 1;
  const std::uint64_t touched = (n + stride - 1) / stride;
  return with_type(t, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    corrupt_kernel<T>
        <<<static_cast<unsigned>((touched + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
            static_cast<T*>(buffer), n, stride);
    return cudaGetLastError();
  });
}

}  // namespace preflight::kernels::gpu
