// The collective sweep's check of one result (docs/correctness.md): every element of the rank's
// result against the fill pattern, as nccl-tests -c does every iteration, and, where any is
// wrong, the first wrong element: its place, what it should have held, what it held, and the
// rank it came from where the pattern tells (an all-gather's block is rank q's; a reduced
// element comes from every rank: -1). The source names the sender, not the link: in a ring
// all-gather the block of rank q reaches rank r after (r - q) mod n steps, so a wrong block
// from a source one step away points at the link between the two.
//
// Counting uses the comm family's own checks (comm/expected.hpp, kernels/cpu/pattern.hpp), so
// both families judge one result alike; the first wrong element is looked for only when some
// element is wrong.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "comm/backend.hpp"
#include "comm/expected.hpp"
#include "cpu/pattern.hpp"

namespace preflight::correctness {

struct WrongResult {
  std::uint64_t count = 0;    // wrong elements of the result; 0: right
  std::uint64_t element = 0;  // the first wrong one's place in the result
  double expected = 0;
  double found = 0;
  std::int64_t source = comm::kReducedSource;  // the rank it came from; -1: reduced
};

namespace detail {
inline kernels::Reduction reduction_of(comm::RedOp op) {
  switch (op) {
    case comm::RedOp::kMax:
      return kernels::Reduction::kMax;
    case comm::RedOp::kMin:
      return kernels::Reduction::kMin;
    case comm::RedOp::kProd:
      return kernels::Reduction::kProd;
    default:
      return kernels::Reduction::kSum;
  }
}
}  // namespace detail

// The check of `result` (the rank's checked result, result_elements(p) long).
template <typename T>
WrongResult check_result(const comm::CollectivePoint& p, std::span<const T> result) {
  WrongResult w;
  w.count = comm::count_wrong<T>(p, result);
  if (w.count == 0) return w;
  std::optional<kernels::ReducedPattern<T>> reduced;
  for (const auto& r : comm::result_ranges(p)) {
    if (r.source == comm::kReducedSource && !reduced)
      reduced.emplace(detail::reduction_of(p.spec.redop), static_cast<std::uint64_t>(p.ranks));
    for (std::uint64_t j = 0; j < r.count; ++j) {
      const std::uint64_t index = r.first_index + j;
      const T expected =
          r.source == comm::kReducedSource
              ? reduced->expected_at((index * 7) % kernels::kPatternModulus)
              : static_cast<T>(kernels::pattern_value(static_cast<std::uint64_t>(r.source), index));
      const T found = result[r.offset + j];
      if (found == expected) continue;
      w.element = r.offset + j;
      w.expected = static_cast<double>(expected);
      w.found = static_cast<double>(found);
      w.source = r.source;
      return w;
    }
  }
  return w;  // ranges are in buffer order, so this is not reached when count > 0
}

}  // namespace preflight::correctness
