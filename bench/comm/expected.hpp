// Buffer shapes of each collective and the check of a result against the fill pattern,
// shared by every backend (a GPU backend copies its result to the host first). All of it is
// read from the collective's row in comm/collective_traits.hpp.
#pragma once

#include <cstdint>
#include <span>

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

// Writes this rank's input pattern.
template <typename T>
void fill_input(const CollectivePoint& p, std::span<T> input);

// Result elements that differ from what the pattern implies for this rank.
template <typename T>
std::uint64_t count_wrong(const CollectivePoint& p, std::span<const T> result);

// The most ranks a sum of type t can be checked over: beyond it the pattern's sums round and
// the check would fail right results or pass wrong ones, so the comm family refuses more.
std::uint64_t max_exact_sum_ranks(DType t);

}  // namespace preflight::comm
