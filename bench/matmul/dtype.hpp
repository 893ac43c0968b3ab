// The element types a GEMM runs in, and what the check of its result allows for each.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>
#include <utility>

#include "harness/config/name_table.hpp"

namespace preflight::matmul {

// tf32: float32 data, tensor cores round the inputs to 10 mantissa bits. fp8: e4m3 or e5m2
// inputs, bf16 output, fp32 accumulation (as cuBLASLt runs it on Hopper).
enum class DType { kFloat64, kFloat32, kTf32, kFloat16, kBfloat16, kFp8E4m3, kFp8E5m2 };

inline constexpr std::array kDTypeEntries = {
    std::pair{DType::kFloat64, std::string_view("float64")},
    std::pair{DType::kFloat32, std::string_view("float32")},
    std::pair{DType::kTf32, std::string_view("tf32")},
    std::pair{DType::kFloat16, std::string_view("float16")},
    std::pair{DType::kBfloat16, std::string_view("bfloat16")},
    std::pair{DType::kFp8E4m3, std::string_view("fp8_e4m3")},
    std::pair{DType::kFp8E5m2, std::string_view("fp8_e5m2")},
};
inline constexpr NameTable<DType> kDTypeNames{kDTypeEntries};

// What a dtype's GEMM is made of: input element bytes, output element bytes, the unit roundoff
// of its inputs (what the data was rounded to), of its accumulation and of its output.
struct DTypeTraits {
  std::size_t in_bytes, out_bytes;
  double input_roundoff, accumulate_roundoff, output_roundoff;
};

inline constexpr double kRoundoff64 = 0x1p-53, kRoundoff32 = 0x1p-24, kRoundoffTf32 = 0x1p-11,
                        kRoundoff16 = 0x1p-11, kRoundoffBf16 = 0x1p-8, kRoundoffE4m3 = 0x1p-4,
                        kRoundoffE5m2 = 0x1p-3;

constexpr DTypeTraits traits_of(DType d) {
  switch (d) {
    case DType::kFloat64:
      return {8, 8, kRoundoff64, kRoundoff64, kRoundoff64};
    case DType::kFloat32:
      return {4, 4, kRoundoff32, kRoundoff32, kRoundoff32};
    case DType::kTf32:  // inputs rounded to tf32 inside the tensor core
      return {4, 4, kRoundoffTf32, kRoundoff32, kRoundoff32};
    case DType::kFloat16:
      return {2, 2, kRoundoff16, kRoundoff32, kRoundoff16};
    case DType::kBfloat16:
      return {2, 2, kRoundoffBf16, kRoundoff32, kRoundoffBf16};
    case DType::kFp8E4m3:
      return {1, 2, kRoundoffE4m3, kRoundoff32, kRoundoffBf16};
    case DType::kFp8E5m2:
      return {1, 2, kRoundoffE5m2, kRoundoff32, kRoundoffBf16};
  }
  return {8, 8, kRoundoff64, kRoundoff64, kRoundoff64};
}

// The allowed error of one element of C, relative to sum_k |a_ik b_kj|. The reference is
// computed in higher precision from the very inputs the GEMM read (already rounded to the
// dtype), so only the accumulation (at most k u / (1 - k u), Higham's gamma_k, for any order of
// summation) and the rounding of the output remain; tf32 adds the rounding of both inputs
// inside the tensor core. Doubled, so that a correct GEMM never fails by a hair.
constexpr double tolerance_of(DType d, long long k) {
  const DTypeTraits t = traits_of(d);
  const double ku = static_cast<double>(k) * t.accumulate_roundoff;
  const double gamma = ku / (1 - ku > 0.5 ? 1 - ku : 0.5);
  const double inputs = d == DType::kTf32 ? 2 * t.input_roundoff : 0;
  return 2 * (gamma + inputs + t.output_roundoff);
}

}  // namespace preflight::matmul
