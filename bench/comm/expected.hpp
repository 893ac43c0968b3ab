// Buffer shapes of each collective and the check of a result against the fill pattern,
// shared by every backend (a GPU backend copies its result to the host first). All of it is
// read from the collective's row in preflight/common/collective_traits.hpp.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "comm/backend.hpp"

namespace preflight::comm {

std::uint64_t input_elements(const CollectivePoint& p);   // this rank's input
std::uint64_t output_elements(const CollectivePoint& p);  // its output buffer
std::uint64_t result_elements(const CollectivePoint& p);  // the part of the output that is checked
// Where the input sits inside the output buffer when the operation is in place.
std::uint64_t in_place_input_offset(const CollectivePoint& p);
// Whether this rank's input is read (broadcast: only the root's is; the others fill nothing).
bool holds_input(const CollectivePoint& p);
// Whether this rank holds a result to check (reduce: only the root does).
bool holds_result(const CollectivePoint& p);

// One stretch of the checked result and what it must hold: elements [offset, offset + count)
// are rank `source`'s pattern from index `first_index`, or, with source kReducedSource, the
// reduction over the group's patterns from that index. count_wrong checks these on the host; a
// GPU backend checks the same ranges on the device, so both follow one set of rules.
inline constexpr std::int64_t kReducedSource = -1;
struct ResultRange {
  std::uint64_t offset = 0;
  std::uint64_t count = 0;
  std::int64_t source = kReducedSource;
  std::uint64_t first_index = 0;
};
// Empty where this rank holds no result (holds_result false).
std::vector<ResultRange> result_ranges(const CollectivePoint& p);

// The reduction's value for each residue (7 i) mod 61 of an element index i, in p's dtype and
// widened to double (exact: small whole numbers): the table a device-side check compares with.
std::vector<double> reduced_values(const CollectivePoint& p);

// Writes this rank's input pattern.
template <typename T>
void fill_input(const CollectivePoint& p, std::span<T> input);

// Result elements that differ from what the pattern implies for this rank.
template <typename T>
std::uint64_t count_wrong(const CollectivePoint& p, std::span<const T> result);

// The most ranks a sum of type t can be checked over: beyond it the pattern's sums round and
// the check would fail right results or pass wrong ones, so the comm family refuses more.
std::uint64_t max_exact_sum_ranks(DType t);
// The same for a product: the most ranks whose product of pattern values t holds exactly.
std::uint64_t max_exact_product_ranks(DType t);

}  // namespace preflight::comm
