// The rank- and index-dependent fill pattern and the checks against it. Values are small
// positive integers (1..61), so a sum stays exact in every reduction order up to the rank count
// max_exact_sum_ranks<T>() gives (float32: 275,036 ranks; int32: 35 million), and 0 is never a
// right answer.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <span>

namespace preflight::kernels {

inline constexpr std::uint64_t kPatternModulus = 61;

// The most ranks whose sum of pattern values T holds exactly, whatever the reduction order: the
// values are positive whole numbers, so every partial sum is a whole number no larger than the
// total, which is at most 61 x ranks; T holds every whole number up to 2^digits (floating point)
// or its largest value (integers). Over more ranks a float32 sum rounds, differently in each
// order, and no expected value can check it.
template <typename T>
constexpr std::uint64_t max_exact_sum_ranks() {
  if constexpr (std::numeric_limits<T>::is_integer)
    return static_cast<std::uint64_t>(std::numeric_limits<T>::max()) / kPatternModulus;
  else
    return (std::uint64_t{1} << std::numeric_limits<T>::digits) / kPatternModulus;
}

// Rank r's input at element index i.
inline std::uint64_t pattern_value(std::uint64_t rank, std::uint64_t index) {
  return (rank * 131 + index * 7) % kPatternModulus + 1;
}

template <typename T>
void fill_pattern(std::span<T> out, std::uint64_t rank, std::uint64_t first_index) {
  // Walk the residue instead of taking a modulus per element.
  std::uint64_t code = (rank * 131 + first_index * 7) % kPatternModulus;
  for (auto& x : out) {
    x = static_cast<T>(code + 1);
    code += 7;
    if (code >= kPatternModulus) code -= kPatternModulus;
  }
}

// Elements of `got` that differ from rank r's pattern starting at `first_index`.
template <typename T>
std::uint64_t count_pattern_mismatches(std::span<const T> got, std::uint64_t rank,
                                       std::uint64_t first_index) {
  std::uint64_t code = (rank * 131 + first_index * 7) % kPatternModulus;
  std::uint64_t wrong = 0;
  for (const auto& x : got) {
    wrong += x != static_cast<T>(code + 1);
    code += 7;
    if (code >= kPatternModulus) code -= kPatternModulus;
  }
  return wrong;
}

enum class Reduction { kSum, kMax, kMin, kProd };

// The most ranks whose product of pattern values stays exact in a type that holds every whole
// number up to `limit` (2^digits, or an integer type's largest value): the largest n with
// 61^n <= limit, since every partial product is a whole number no larger than the total.
constexpr std::uint64_t max_exact_product_ranks(std::uint64_t limit) {
  std::uint64_t ranks = 0;
  for (std::uint64_t product = 1; product <= limit / kPatternModulus; product *= kPatternModulus)
    ++ranks;
  return ranks;
}
template <typename T>
constexpr std::uint64_t max_exact_product_ranks() {
  if constexpr (std::numeric_limits<T>::is_integer)
    return max_exact_product_ranks(static_cast<std::uint64_t>(std::numeric_limits<T>::max()));
  else
    return max_exact_product_ranks(std::uint64_t{1} << std::numeric_limits<T>::digits);
}

// The reduction over ranks 0..n-1 of pattern_value(q, i) depends on i only through
// (7 i) mod 61, so 61 precomputed results check any reduced buffer in one pass.
template <typename T>
class ReducedPattern {
 public:
  ReducedPattern(Reduction reduction, std::uint64_t ranks) {
    for (std::uint64_t residue = 0; residue < kPatternModulus; ++residue) {
      std::uint64_t sum = 0, high = 0, low = kPatternModulus + 1, product = 1;
      for (std::uint64_t q = 0; q < ranks; ++q) {
        const std::uint64_t v = (q * 131 + residue) % kPatternModulus + 1;
        sum += v;
        high = std::max(high, v);
        low = std::min(low, v);
        product *= v;  // exact within max_exact_product_ranks, which the comm family enforces
      }
      const std::uint64_t r = reduction == Reduction::kSum    ? sum
                              : reduction == Reduction::kMax  ? high
                              : reduction == Reduction::kProd ? product
                                                              : low;
      expected_[residue] = static_cast<T>(r);
    }
  }

  // What an element whose index i has (7 i) mod 61 == residue must hold.
  T expected_at(std::uint64_t residue) const { return expected_[residue % kPatternModulus]; }

  // Elements of `got` that differ from the reduction at indices first_index, first_index+1, ...
  std::uint64_t count_mismatches(std::span<const T> got, std::uint64_t first_index) const {
    std::uint64_t residue = (first_index * 7) % kPatternModulus;
    std::uint64_t wrong = 0;
    for (const auto& x : got) {
      wrong += x != expected_[residue];
      residue += 7;
      if (residue >= kPatternModulus) residue -= kPatternModulus;
    }
    return wrong;
  }

 private:
  std::array<T, kPatternModulus> expected_{};
};

// Test-only fault injection: zeroes about one element in 16 (at least one), which the
// pattern never produces.
template <typename T>
void corrupt(std::span<T> buffer) {
  const std::size_t stride = std::max<std::size_t>(1, buffer.size() / 16);
  for (std::size_t i = 0; i < buffer.size(); i += stride) buffer[i] = T{};
}

}  // namespace preflight::kernels
