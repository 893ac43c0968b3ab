// A GEMM's inputs and the check of its result. C = A^T B in column-major storage (the "TN"
// layout cuBLASLt's fp8 kernels require, used for every dtype and backend alike): A is k x m
// (element (i, p) of op(A) at a[i * k + p]), B is k x n (element (p, j) at b[j * k + p]), C is
// m x n (element (i, j) at c[j * m + i]). The inputs are random in [-1, 1), rank- and
// point-dependent (zeros run faster and draw less power than real data); a sampled subset of C
// is checked against a reference computed in long double from the very inputs the GEMM read.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "cpu/gemm_input.hpp"

namespace preflight::matmul {

struct Shape {
  std::int64_t m = 0, n = 0, k = 0;
  double flop() const {
    return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  }
};

struct Element {
  std::int64_t i = 0, j = 0;
};

// Element e of the input with this seed, uniform in [-1, 1) (splitmix64): the same function
// makes cuBLASLt's inputs on the GPU (kernels/cuda/gemm_input.cu).
inline double input_value(std::uint64_t seed, std::uint64_t e) {
  return kernels::gemm_input(seed, e);
}

// Seeds of A and B for one rank and point: different on every rank, so that a rank's result
// is its own.
inline std::uint64_t seed_of(int rank, std::size_t point, int matrix) {
  return (static_cast<std::uint64_t>(rank) + 1) * 1000003ULL + point * 7919ULL +
         static_cast<std::uint64_t>(matrix);
}

// Seeds of A and B at one point from a seed alone: the same on every rank (the correctness
// family's determinism check compares the ranks' results bit for bit).
inline std::uint64_t shared_seed_of(std::uint64_t seed, std::size_t point, int matrix) {
  return seed * 0x9E3779B97F4A7C15ULL + point * 7919ULL + static_cast<std::uint64_t>(matrix);
}

// `count` elements of C spread over it, the four corners first (a kernel's edge tiles are
// where a wrong bound shows), the rest at random from `seed`.
std::vector<Element> pick_samples(const Shape& shape, std::size_t count, std::uint64_t seed);

// Every element of C, column by column, (0, 0) first: the check of a small shape.
std::vector<Element> all_elements(const Shape& shape);

// Sampled elements whose value is further from the reference than `tolerance` x sum |a b|.
// a(i, p), b(p, j) return the inputs as the GEMM read them; c(i, j) the result.
template <class A, class B, class C>
std::uint64_t count_wrong(const Shape& s, const std::vector<Element>& samples, double tolerance,
                          A a, B b, C c) {
  std::uint64_t wrong = 0;
  for (const auto& e : samples) {
    long double sum = 0, bound = 0;
    for (std::int64_t p = 0; p < s.k; ++p) {
      const long double x = static_cast<long double>(a(e.i, p)) * b(p, e.j);
      sum += x;
      bound += std::fabs(x);
    }
    const long double got = c(e.i, e.j);
    // NaN compares false: !(error <= allowed) counts it wrong.
    if (!(std::fabs(got - sum) <= tolerance * bound)) ++wrong;
  }
  return wrong;
}

}  // namespace preflight::matmul
