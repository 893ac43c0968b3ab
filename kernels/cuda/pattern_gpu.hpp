// The fill pattern and its checks (cpu/pattern.hpp) on GPU buffers, so that a GPU backend
// verifies its results where they are, with the same rank- and index-dependent rules as the
// CPU. Every call is queued on `stream` and returns its launch status; the counts land in a
// device counter the caller reads back. Built only with the CUDA toolkit (pattern.cu).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace preflight::kernels::gpu {

// The element types the kernels read and write (the comm family's dtypes).
enum class Element {
  kFloat32,
  kFloat64,
  kInt32,
  kInt64,
  kUInt32,
  kUInt64,
  kInt8,
  kUInt8,
  kFloat16,
  kBFloat16
};

// What a reduced buffer must hold: element i is value[(7 i) mod 61], as ReducedPattern's
// table (cpu/pattern.hpp). Every pattern reduction is a small whole number, exact in double.
struct ReducedTable {
  double value[61] = {};  // a plain array: device code indexes it
};

// out[i] = pattern_value(rank, first_index + i), for i < n.
cudaError_t fill_pattern(Element t, void* out, std::uint64_t n, std::uint64_t rank,
                         std::uint64_t first_index, cudaStream_t stream);

// Adds to *wrong the elements of got[0..n) that differ from rank's pattern from first_index.
cudaError_t count_pattern_mismatches(Element t, const void* got, std::uint64_t n,
                                     std::uint64_t rank, std::uint64_t first_index,
                                     unsigned long long* wrong, cudaStream_t stream);

// Adds to *wrong the elements of got[0..n) that differ from the reduced pattern from first_index.
cudaError_t count_reduced_mismatches(Element t, const void* got, std::uint64_t n,
                                     const ReducedTable& table, std::uint64_t first_index,
                                     unsigned long long* wrong, cudaStream_t stream);

// Test-only fault injection, as kernels::corrupt: zeroes about one element in 16 (at least one).
cudaError_t corrupt(Element t, void* buffer, std::uint64_t n, cudaStream_t stream);

}  // namespace preflight::kernels::gpu
