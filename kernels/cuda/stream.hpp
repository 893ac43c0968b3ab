// STREAM's triad on the GPU (a = b + s c over n doubles in device memory), launched on a
// stream: the memory family's device-memory bandwidth. Host-callable; built with CUDA only.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace preflight::kernels {

void launch_triad(double* a, const double* b, const double* c, double s, std::size_t n,
                  cudaStream_t stream);

// Fills x[j] = stream_input(array, j, seed) (cpu/stream.hpp's pattern) on the device.
void launch_fill(double* x, int array, std::size_t n, unsigned long long seed, cudaStream_t stream);

}  // namespace preflight::kernels
