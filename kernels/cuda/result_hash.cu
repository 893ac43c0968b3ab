// The result hash's sum on the GPU (cpu/result_hash.hpp): each thread sums mix(w_i, i) over a
// grid-stride of words (consecutive threads read consecutive words), the block reduces with
// warp shuffles, and each block adds its partial to the total with an integer atomicAdd: a sum
// modulo 2^64 is exact in any order, so the result is the host's, bit for bit.
#include "cpu/result_hash.hpp"
#include "cuda/result_hash.hpp"

namespace preflight::kernels::gpu {
namespace {

__global__ void hash_words(const unsigned long long* words, std::size_t n,
                           const unsigned char* tail, std::size_t tail_bytes,
                           unsigned long long* sum) {
  unsigned long long s = 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += stride)
    s += hash_word(words[i], i);
  if (blockIdx.x == 0 && threadIdx.x == 0 && tail_bytes > 0)
    s += hash_word(tail_word(tail, tail_bytes), n);
  for (int offset = 16; offset > 0; offset /= 2) s += __shfl_down_sync(0xffffffffU, s, offset);
  __shared__ unsigned long long warps[32];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warps[warp] = s;
  __syncthreads();
  if (warp == 0) {
    s = lane < (blockDim.x + 31) / 32 ? warps[lane] : 0;
    for (int offset = 16; offset > 0; offset /= 2) s += __shfl_down_sync(0xffffffffU, s, offset);
    if (lane == 0) atomicAdd(sum, s);
  }
}

}  // namespace

cudaError_t hash_sum_on_device(const void* data, std::size_t bytes, unsigned long long* sum,
                               cudaStream_t stream) {
  if (const cudaError_t e = cudaMemsetAsync(sum, 0, sizeof(*sum), stream); e != cudaSuccess)
    return e;
  int device = 0, sms = 1;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  const std::size_t words = bytes / 8;
  const std::size_t wanted = (words + 255) / 256, most = static_cast<std::size_t>(sms) * 8;
  const auto blocks = static_cast<unsigned>(wanted < most ? (wanted > 0 ? wanted : 1) : most);
  const auto* p = static_cast<const unsigned char*>(data);
  hash_words<<<blocks, 256, 0, stream>>>(static_cast<const unsigned long long*>(data), words,
                                         p + 8 * words, bytes % 8, sum);
  return cudaGetLastError();
}

}  // namespace preflight::kernels::gpu
