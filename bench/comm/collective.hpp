// Collectives, element types and reductions, and how sizes and bandwidths are defined for
// them (the nccl-tests conventions, so figures compare one to one).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/config/name_table.hpp"
#include "preflight/common/collective_traits.hpp"  // the Collective enum, beside its traits table

namespace preflight::comm {

// float16 and bfloat16 have no MPI type: only a backend that supports() them runs them.
enum class DType {
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
enum class RedOp { kSum, kMax, kMin, kProd };

// The names users write and the results record, one table each.
const NameTable<Collective>& collective_names();
const NameTable<DType>& dtype_names();
const NameTable<RedOp>& redop_names();
std::string_view name_of(Collective c);
std::string_view name_of(DType t);
std::string_view name_of(RedOp op);
const std::vector<Collective>& all_collectives();

std::size_t size_of(DType t);
bool reduces(Collective c);   // takes a reduction operator
bool has_root(Collective c);  // broadcast and reduce: rank 0 of the group is the root

// busbw = algbw x this factor for a group of n ranks: how much each rank's links carry
// relative to the algorithm bandwidth, so figures are comparable across n.
double bus_factor(Collective c, int n);

// Elements per rank "chunk" for a requested size of `bytes`, in a group of n ranks. As in
// nccl-tests, the size of all-gather, reduce-scatter and all-to-all is the whole buffer, split
// n ways; the others move the whole size. At least one element unless bytes is 0.
std::uint64_t chunk_elements(Collective c, std::uint64_t bytes, DType t, int n);

// The bytes the size column reports for that chunk: what algbw divides by.
std::uint64_t reported_bytes(Collective c, std::uint64_t chunk, DType t, int n);

}  // namespace preflight::comm
