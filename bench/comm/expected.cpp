#include "comm/expected.hpp"

#include <algorithm>
#include <optional>

#include "cpu/pattern.hpp"
#include "preflight/common/collective_traits.hpp"

namespace preflight::comm {
namespace {

namespace k = preflight::kernels;

constexpr int kRoot = 0;
// Significand bits (with the implicit one) of the 16-bit floating types, which C++ has no
// numeric_limits for here: IEEE binary16 and bfloat16.
constexpr int kFloat16Digits = 11;
constexpr int kBFloat16Digits = 8;

k::Reduction reduction_of(RedOp op) {
  switch (op) {
    case RedOp::kMax:
      return k::Reduction::kMax;
    case RedOp::kMin:
      return k::Reduction::kMin;
    case RedOp::kProd:
      return k::Reduction::kProd;
    default:
      return k::Reduction::kSum;
  }
}

// The collective's row: every shape and expected result below is read from it, so this file
// names no collective.
const CollectiveTraits& row(const CollectivePoint& p) {
  return traits_of(p.spec.op);
}

std::uint64_t elements(const CollectivePoint& p, Extent e) {
  return e == Extent::kGroup ? p.chunk * static_cast<std::uint64_t>(p.ranks) : p.chunk;
}

bool on(const CollectivePoint& p, Ranks r) {
  return r == Ranks::kAll || p.rank == kRoot;
}

}  // namespace

std::uint64_t input_elements(const CollectivePoint& p) {
  return elements(p, row(p).input);
}

std::uint64_t output_elements(const CollectivePoint& p) {
  return elements(p, p.spec.in_place ? row(p).in_place_buffer() : row(p).output);
}

std::uint64_t result_elements(const CollectivePoint& p) {
  return elements(p, row(p).output);
}

std::uint64_t in_place_input_offset(const CollectivePoint& p) {
  return row(p).in_place_input == InPlaceInput::kAtOwnChunk
             ? p.chunk * static_cast<std::uint64_t>(p.rank)
             : 0;
}

bool holds_input(const CollectivePoint& p) {
  return on(p, row(p).input_on());
}

bool holds_result(const CollectivePoint& p) {
  return on(p, row(p).result_on);
}

template <typename T>
void fill_input(const CollectivePoint& p, std::span<T> input) {
  k::fill_pattern(input, static_cast<std::uint64_t>(p.rank), 0);
}

std::vector<ResultRange> result_ranges(const CollectivePoint& p) {
  if (!holds_result(p)) return {};
  const auto rank = static_cast<std::uint64_t>(p.rank);
  const auto ranks = static_cast<std::uint64_t>(p.ranks);
  const std::uint64_t c = p.chunk;
  const auto from = [](std::uint64_t q) { return static_cast<std::int64_t>(q); };
  std::vector<ResultRange> out;
  switch (row(p).expected) {
    case ExpectedResult::kReduced:
      return {{0, c, kReducedSource, 0}};
    case ExpectedResult::kReducedOwnChunk:
      return {{0, c, kReducedSource, rank * c}};
    case ExpectedResult::kChunkFromEachRank:
      for (std::uint64_t q = 0; q < ranks; ++q) out.push_back({q * c, c, from(q), 0});
      return out;
    case ExpectedResult::kOwnChunkFromEachRank:
      for (std::uint64_t q = 0; q < ranks; ++q) out.push_back({q * c, c, from(q), rank * c});
      return out;
    case ExpectedResult::kRootInput:
      return {{0, c, from(kRoot), 0}};
    case ExpectedResult::kPreviousRankInput:
      return {{0, c, from((rank + ranks - 1) % ranks), 0}};
  }
  return out;
}

template <typename T>
std::vector<double> reduced_values_of(const CollectivePoint& p) {
  const k::ReducedPattern<T> reduced(reduction_of(p.spec.redop),
                                     static_cast<std::uint64_t>(p.ranks));
  std::vector<double> out;
  for (std::uint64_t residue = 0; residue < k::kPatternModulus; ++residue)
    out.push_back(static_cast<double>(reduced.expected_at(residue)));
  return out;
}

std::vector<double> reduced_values(const CollectivePoint& p) {
  switch (p.spec.dtype) {
    case DType::kFloat32:
      return reduced_values_of<float>(p);
    case DType::kFloat64:
      return reduced_values_of<double>(p);
    case DType::kInt32:
      return reduced_values_of<std::int32_t>(p);
    case DType::kInt64:
      return reduced_values_of<std::int64_t>(p);
    case DType::kUInt32:
      return reduced_values_of<std::uint32_t>(p);
    case DType::kUInt64:
      return reduced_values_of<std::uint64_t>(p);
    case DType::kInt8:
      return reduced_values_of<std::int8_t>(p);
    case DType::kUInt8:
      return reduced_values_of<std::uint8_t>(p);
    case DType::kFloat16:
    case DType::kBFloat16:
      // No host type: the values are whole numbers the type holds exactly (the comm family
      // refuses more ranks than keep them so), so double gives the same table.
      return reduced_values_of<double>(p);
  }
  return {};
}

template <typename T>
std::uint64_t count_wrong(const CollectivePoint& p, std::span<const T> result) {
  const auto ranges = result_ranges(p);
  if (ranges.empty()) return 0;
  std::uint64_t wrong = 0;
  const auto needs_reduction = [](const ResultRange& r) { return r.source == kReducedSource; };
  std::optional<k::ReducedPattern<T>> reduced;
  if (std::any_of(ranges.begin(), ranges.end(), needs_reduction))
    reduced.emplace(reduction_of(p.spec.redop), static_cast<std::uint64_t>(p.ranks));
  for (const auto& r : ranges) {
    const auto part = result.subspan(r.offset, r.count);
    wrong += needs_reduction(r) ? reduced->count_mismatches(part, r.first_index)
                                : k::count_pattern_mismatches(
                                      part, static_cast<std::uint64_t>(r.source), r.first_index);
  }
  return wrong;
}

std::uint64_t max_exact_sum_ranks(DType t) {
  switch (t) {
    case DType::kFloat32:
      return k::max_exact_sum_ranks<float>();
    case DType::kFloat64:
      return k::max_exact_sum_ranks<double>();
    case DType::kInt32:
      return k::max_exact_sum_ranks<std::int32_t>();
    case DType::kInt64:
      return k::max_exact_sum_ranks<std::int64_t>();
    case DType::kUInt32:
      return k::max_exact_sum_ranks<std::uint32_t>();
    case DType::kUInt64:
      return k::max_exact_sum_ranks<std::uint64_t>();
    case DType::kInt8:
      return k::max_exact_sum_ranks<std::int8_t>();
    case DType::kUInt8:
      return k::max_exact_sum_ranks<std::uint8_t>();
    case DType::kFloat16:
      return (std::uint64_t{1} << kFloat16Digits) / k::kPatternModulus;
    case DType::kBFloat16:
      return (std::uint64_t{1} << kBFloat16Digits) / k::kPatternModulus;
  }
  return 0;
}

std::uint64_t max_exact_product_ranks(DType t) {
  switch (t) {
    case DType::kFloat32:
      return k::max_exact_product_ranks<float>();
    case DType::kFloat64:
      return k::max_exact_product_ranks<double>();
    case DType::kInt32:
      return k::max_exact_product_ranks<std::int32_t>();
    case DType::kInt64:
      return k::max_exact_product_ranks<std::int64_t>();
    case DType::kUInt32:
      return k::max_exact_product_ranks<std::uint32_t>();
    case DType::kUInt64:
      return k::max_exact_product_ranks<std::uint64_t>();
    case DType::kInt8:
      return k::max_exact_product_ranks<std::int8_t>();
    case DType::kUInt8:
      return k::max_exact_product_ranks<std::uint8_t>();
    case DType::kFloat16:
      return k::max_exact_product_ranks(std::uint64_t{1} << kFloat16Digits);
    case DType::kBFloat16:
      return k::max_exact_product_ranks(std::uint64_t{1} << kBFloat16Digits);
  }
  return 0;
}

#define PREFLIGHT_INSTANTIATE(T)                                     \
  template void fill_input<T>(const CollectivePoint&, std::span<T>); \
  template std::uint64_t count_wrong<T>(const CollectivePoint&, std::span<const T>);
PREFLIGHT_INSTANTIATE(float)
PREFLIGHT_INSTANTIATE(double)
PREFLIGHT_INSTANTIATE(std::int32_t)
PREFLIGHT_INSTANTIATE(std::int64_t)
PREFLIGHT_INSTANTIATE(std::uint32_t)
PREFLIGHT_INSTANTIATE(std::uint64_t)
PREFLIGHT_INSTANTIATE(std::int8_t)
PREFLIGHT_INSTANTIATE(std::uint8_t)
#undef PREFLIGHT_INSTANTIATE

}  // namespace preflight::comm
