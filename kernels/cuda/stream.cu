#include "cuda/stream.hpp"

namespace preflight::kernels {
namespace {

// Grid-stride loops, double2 where aligned would add little at HBM speeds: each thread reads
// and writes consecutive doubles, so the warps' accesses coalesce.
__global__ void triad(double* __restrict__ a, const double* __restrict__ b,
                      const double* __restrict__ c, double s, std::size_t n) {
  for (std::size_t j = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; j < n;
       j += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    a[j] = b[j] + s * c[j];
}

__global__ void fill(double* x, int array, std::size_t n, unsigned long long seed) {
  for (std::size_t j = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; j < n;
       j += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    x[j] = static_cast<double>((j * 7 + seed * 13 + static_cast<unsigned long long>(array) * 5) %
                               1024);
}

// Enough blocks to fill every SM several times over; the loop covers the rest.
unsigned blocks_for(std::size_t n) {
  int device = 0, sms = 1;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  const std::size_t wanted = (n + 255) / 256, most = static_cast<std::size_t>(sms) * 8;
  return static_cast<unsigned>(wanted < most ? (wanted > 0 ? wanted : 1) : most);
}

}  // namespace

void launch_triad(double* a, const double* b, const double* c, double s, std::size_t n,
                  cudaStream_t stream) {
  triad<<<blocks_for(n), 256, 0, stream>>>(a, b, c, s, n);
}

void launch_fill(double* x, int array, std::size_t n, unsigned long long seed,
                 cudaStream_t stream) {
  fill<<<blocks_for(n), 256, 0, stream>>>(x, array, n, seed);
}

}  // namespace preflight::kernels
