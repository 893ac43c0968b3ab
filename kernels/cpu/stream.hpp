// STREAM's four kernels (McCalpin) over a slice [begin, end) of three arrays, the loops as
// STREAM writes them, so the compiler vectorises them the same way. Each kernel's output is a
// function of inputs it does not write, so repeating it gives the same result to check.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace preflight::kernels {

enum class StreamKernel { kCopy, kScale, kAdd, kTriad };

inline constexpr double kStreamScalar = 3.0;

// Arrays read and written per element, for STREAM's byte count.
constexpr int stream_arrays(StreamKernel k) {
  return k == StreamKernel::kCopy || k == StreamKernel::kScale ? 2 : 3;
}

// copy c = a; scale b = s c; add c = a + b; triad a = b + s c.
inline void stream_run(StreamKernel k, double* __restrict a, double* __restrict b,
                       double* __restrict c, std::size_t begin, std::size_t end) {
  const double s = kStreamScalar;
  switch (k) {
    case StreamKernel::kCopy:
      for (std::size_t j = begin; j < end; ++j) c[j] = a[j];
      return;
    case StreamKernel::kScale:
      for (std::size_t j = begin; j < end; ++j) b[j] = s * c[j];
      return;
    case StreamKernel::kAdd:
      for (std::size_t j = begin; j < end; ++j) c[j] = a[j] + b[j];
      return;
    case StreamKernel::kTriad:
      for (std::size_t j = begin; j < end; ++j) a[j] = b[j] + s * c[j];
      return;
  }
}

// The inputs: rank- and index-dependent, exact in double and in every sum the kernels form.
inline double stream_input(int array, std::size_t j, std::uint64_t seed) {
  return static_cast<double>((j * 7 + seed * 13 + static_cast<std::uint64_t>(array) * 5) % 1024);
}

}  // namespace preflight::kernels
