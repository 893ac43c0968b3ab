// The correctness family's hash of a result (cpu/result_hash.hpp), computed on the GPU where
// the result is: only the 8-byte sum crosses PCIe. Built only with the CUDA toolkit.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace preflight::kernels::gpu {

// *sum = hash_sum(data, bytes), queued on `stream` (sum is device memory; zeroed here first).
// The host finishes it: kernels::hash_finish(*sum, bytes) is hash_bytes(data, bytes).
cudaError_t hash_sum_on_device(const void* data, std::size_t bytes, unsigned long long* sum,
                               cudaStream_t stream);

}  // namespace preflight::kernels::gpu
