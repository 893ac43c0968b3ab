#include "comm/expected.hpp"

#include "cpu/pattern.hpp"

namespace preflight::comm {
namespace {

namespace k = preflight::kernels;

constexpr int kRoot = 0;

k::Reduction reduction_of(RedOp op) {
  switch (op) {
    case RedOp::kMax:
      return k::Reduction::kMax;
    case RedOp::kMin:
      return k::Reduction::kMin;
    default:
      return k::Reduction::kSum;
  }
}

std::uint64_t group_elements(const CollectivePoint& p) {
  return p.chunk * static_cast<std::uint64_t>(p.ranks);
}

}  // namespace

std::uint64_t input_elements(const CollectivePoint& p) {
  switch (p.spec.op) {
    case Collective::kReduceScatter:
    case Collective::kAllToAll:
      return group_elements(p);
    default:
      return p.chunk;
  }
}

std::uint64_t output_elements(const CollectivePoint& p) {
  switch (p.spec.op) {
    case Collective::kAllGather:
    case Collective::kAllToAll:
      return group_elements(p);
    case Collective::kReduceScatter:
      return p.spec.in_place ? group_elements(p) : p.chunk;
    default:
      return p.chunk;
  }
}

std::uint64_t result_elements(const CollectivePoint& p) {
  return p.spec.op == Collective::kReduceScatter ? p.chunk : output_elements(p);
}

std::uint64_t in_place_input_offset(const CollectivePoint& p) {
  return p.spec.op == Collective::kAllGather ? p.chunk * static_cast<std::uint64_t>(p.rank) : 0;
}

bool holds_result(const CollectivePoint& p) {
  return p.spec.op != Collective::kReduce || p.rank == kRoot;
}

template <typename T>
void fill_input(const CollectivePoint& p, std::span<T> input) {
  k::fill_pattern(input, static_cast<std::uint64_t>(p.rank), 0);
}

template <typename T>
std::uint64_t count_wrong(const CollectivePoint& p, std::span<const T> result) {
  if (!holds_result(p)) return 0;
  const auto rank = static_cast<std::uint64_t>(p.rank);
  const auto ranks = static_cast<std::uint64_t>(p.ranks);
  const std::uint64_t c = p.chunk;
  std::uint64_t wrong = 0;
  switch (p.spec.op) {
    case Collective::kAllReduce:
    case Collective::kReduce:
      return k::ReducedPattern<T>(reduction_of(p.spec.redop), ranks).count_mismatches(result, 0);
    case Collective::kReduceScatter:
      return k::ReducedPattern<T>(reduction_of(p.spec.redop), ranks)
          .count_mismatches(result, rank * c);
    case Collective::kAllGather:
      for (std::uint64_t q = 0; q < ranks; ++q)
        wrong += k::count_pattern_mismatches(result.subspan(q * c, c), q, 0);
      return wrong;
    case Collective::kAllToAll:
      for (std::uint64_t q = 0; q < ranks; ++q)
        wrong += k::count_pattern_mismatches(result.subspan(q * c, c), q, rank * c);
      return wrong;
    case Collective::kBroadcast:
      return k::count_pattern_mismatches(result, kRoot, 0);
    case Collective::kSendRecv:
      return k::count_pattern_mismatches(result, (rank + ranks - 1) % ranks, 0);
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
#undef PREFLIGHT_INSTANTIATE

}  // namespace preflight::comm
