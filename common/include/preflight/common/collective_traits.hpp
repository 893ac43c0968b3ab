// What each collective is, in one constexpr table: whether it reduces or has a root, the shapes
// of its buffers and what its result must be (what the correctness check and each backend's
// buffers are built from), its bus-bandwidth factor, and the alpha-beta cost of its ring (or
// pairwise or chained) and tree algorithms. Header-only and free of MPI, so that the comm family
// and preflight-report's alpha-beta plug-in read the same figures.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <string_view>

namespace preflight::comm {

// The collectives, in the order of their rows in kCollectiveTraits below: each row names its
// value and row i must be value i (asserted after the table), so a Collective indexes the table.
// A new collective is its value here and its row there; everything else that knows the
// collectives (names, dispatch to a backend's call) iterates over the rows.
enum class Collective {
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kBroadcast,
  kReduce,
  kAllToAll,
  kSendRecv
};

// Time of one operation of S bytes on n ranks: steps(n)·α + factor(n)·S·β. Sizes as nccl-tests
// counts them (the whole buffer for allgather, reducescatter, alltoall).
struct AlgorithmCost {
  double (*steps)(double n) = nullptr;  // nullptr: the collective has no such algorithm
  double (*factor)(double n) = nullptr;
  bool exists() const { return steps != nullptr; }
};

// The shapes of a collective's buffers and what its result must be, in the terms the
// correctness check (comm/expected.cpp) and every backend read, so that neither names a
// collective. A chunk is CollectivePoint::chunk elements (see chunk_elements).

// How many elements a buffer holds: one chunk, or one chunk per rank of the group.
enum class Extent { kChunk, kGroup };

// Where a rank's input sits inside its one buffer when the collective runs in place, as MPI
// and NCCL both define it: at the start, or (an input of one chunk in a buffer of the group)
// at the rank's own chunk, as all-gather's does.
enum class InPlaceInput { kAtStart, kAtOwnChunk };

// Which ranks of the group a buffer matters on: every rank, or only the root (rank 0).
enum class Ranks { kAll, kRoot };

// What the checked result must hold, with rank q's input being the fill pattern of q
// (cpu/pattern.hpp), c the chunk and r the checking rank. Each kind is one loop of the check;
// a collective whose result is none of these adds a kind here and its case in expected.cpp.
enum class ExpectedResult {
  kReduced,               // element i: the reduction over the ranks q of input_q[i]
  kReducedOwnChunk,       // element i: the reduction over q of input_q[r·c + i] (r's chunk)
  kChunkFromEachRank,     // chunk q: rank q's input (its one chunk)
  kOwnChunkFromEachRank,  // chunk q: chunk r of rank q's input
  kRootInput,             // the root's input
  kPreviousRankInput,     // the input of rank r-1 (mod n): a ring shift
};

// Whose inputs the result is made of: every rank's, or the root's alone (the others' input is
// never read, and they fill none: a rank that receives nothing shows zeros, not its pattern).
constexpr Ranks input_read_on(ExpectedResult e) {
  return e == ExpectedResult::kRootInput ? Ranks::kRoot : Ranks::kAll;
}
constexpr bool is_reduction(ExpectedResult e) {
  return e == ExpectedResult::kReduced || e == ExpectedResult::kReducedOwnChunk;
}

struct CollectiveTraits {
  Collective collective;  // the enum value this row describes
  std::string_view name;
  bool reduces;   // takes a reduction operator (agrees with `expected`, asserted below)
  bool has_root;  // rank 0 of the group is the root (agrees with the Ranks fields, asserted)
  Extent input;   // this rank's input (out of place, its send buffer)
  // Its output out of place, which is also the part checked in place: the in-place buffer
  // holds input and output both, so it is the larger of the two (in_place_buffer()).
  Extent output;
  InPlaceInput in_place_input;
  Ranks result_on;  // the ranks that hold a result to check
  ExpectedResult expected;
  double (*bus_factor)(double n);  // busbw = algbw x this for a group of n ranks
  AlgorithmCost ring, tree;
  std::string_view cost_model;  // the formulas, in words, for the report

  // Each rank holds one chunk of a buffer the size of the group (allgather, reducescatter,
  // alltoall): the requested size is that whole buffer, split n ways, as in nccl-tests.
  constexpr bool chunked() const { return input == Extent::kGroup || output == Extent::kGroup; }
  constexpr Extent in_place_buffer() const { return std::max(input, output); }
  constexpr Ranks input_on() const { return input_read_on(expected); }
};

namespace traits_detail {
constexpr double tree_depth(double n) {
  return std::ceil(std::log2(std::max(n, 2.0)));
}
}  // namespace traits_detail

inline constexpr std::array kCollectiveTraits = {
    CollectiveTraits{
        .collective = Collective::kAllReduce,
        .name = "allreduce",
        .reduces = true,
        .has_root = false,
        .input = Extent::kChunk,
        .output = Extent::kChunk,
        .in_place_input = InPlaceInput::kAtStart,
        .result_on = Ranks::kAll,
        .expected = ExpectedResult::kReduced,
        .bus_factor = [](double n) { return 2 * (n - 1) / n; },
        .ring = {[](double n) { return 2 * (n - 1); }, [](double n) { return 2 * (n - 1) / n; }},
        .tree = {[](double n) { return 2 * traits_detail::tree_depth(n); },
                 [](double) { return 2.0; }},
        .cost_model =
            "ring: 2(n-1)·α + 2(n-1)/n·S·β; tree: 2⌈log2 n⌉·α + 2·S·β (pipelined, as NCCL's)"},
    CollectiveTraits{
        .collective = Collective::kAllGather,
        .name = "allgather",
        .reduces = false,
        .has_root = false,
        .input = Extent::kChunk,
        .output = Extent::kGroup,
        .in_place_input = InPlaceInput::kAtOwnChunk,
        .result_on = Ranks::kAll,
        .expected = ExpectedResult::kChunkFromEachRank,
        .bus_factor = [](double n) { return (n - 1) / n; },
        .ring = {[](double n) { return n - 1; }, [](double n) { return (n - 1) / n; }},
        .tree = {},
        .cost_model = "ring: (n-1)·α + (n-1)/n·S·β (S the whole buffer); no tree algorithm"},
    CollectiveTraits{
        .collective = Collective::kReduceScatter,
        .name = "reducescatter",
        .reduces = true,
        .has_root = false,
        .input = Extent::kGroup,
        .output = Extent::kChunk,
        .in_place_input = InPlaceInput::kAtStart,
        .result_on = Ranks::kAll,
        .expected = ExpectedResult::kReducedOwnChunk,
        .bus_factor = [](double n) { return (n - 1) / n; },
        .ring = {[](double n) { return n - 1; }, [](double n) { return (n - 1) / n; }},
        .tree = {},
        .cost_model = "ring: (n-1)·α + (n-1)/n·S·β (S the whole buffer); no tree algorithm"},
    CollectiveTraits{
        .collective = Collective::kBroadcast,
        .name = "broadcast",
        .reduces = false,
        .has_root = true,
        .input = Extent::kChunk,
        .output = Extent::kChunk,
        .in_place_input = InPlaceInput::kAtStart,
        .result_on = Ranks::kAll,
        .expected = ExpectedResult::kRootInput,
        .bus_factor = [](double) { return 1.0; },
        .ring = {[](double n) { return n - 1; }, [](double) { return 1.0; }},
        .tree = {[](double n) { return traits_detail::tree_depth(n); }, [](double) { return 1.0; }},
        .cost_model = "pipelined chain: (n-1)·α + S·β; tree: ⌈log2 n⌉·α + S·β"},
    CollectiveTraits{
        .collective = Collective::kReduce,
        .name = "reduce",
        .reduces = true,
        .has_root = true,
        .input = Extent::kChunk,
        .output = Extent::kChunk,
        .in_place_input = InPlaceInput::kAtStart,
        .result_on = Ranks::kRoot,
        .expected = ExpectedResult::kReduced,
        .bus_factor = [](double) { return 1.0; },
        .ring = {[](double n) { return n - 1; }, [](double) { return 1.0; }},
        .tree = {[](double n) { return traits_detail::tree_depth(n); }, [](double) { return 1.0; }},
        .cost_model = "pipelined chain: (n-1)·α + S·β; tree: ⌈log2 n⌉·α + S·β"},
    CollectiveTraits{
        .collective = Collective::kAllToAll,
        .name = "alltoall",
        .reduces = false,
        .has_root = false,
        .input = Extent::kGroup,
        .output = Extent::kGroup,
        .in_place_input = InPlaceInput::kAtStart,
        .result_on = Ranks::kAll,
        .expected = ExpectedResult::kOwnChunkFromEachRank,
        .bus_factor = [](double n) { return (n - 1) / n; },
        .ring = {[](double n) { return n - 1; }, [](double n) { return (n - 1) / n; }},
        .tree = {},
        .cost_model = "pairwise: (n-1)·α + (n-1)/n·S·β (S the whole buffer); no tree algorithm"},
    CollectiveTraits{.collective = Collective::kSendRecv,
                     .name = "sendrecv",
                     .reduces = false,
                     .has_root = false,
                     .input = Extent::kChunk,
                     .output = Extent::kChunk,
                     .in_place_input = InPlaceInput::kAtStart,
                     .result_on = Ranks::kAll,
                     .expected = ExpectedResult::kPreviousRankInput,
                     .bus_factor = [](double) { return 1.0; },
                     .ring = {[](double) { return 1.0; }, [](double) { return 1.0; }},
                     .tree = {},
                     .cost_model = "α + S·β"},
};

// What a row says twice must agree, and its shapes must fit its expected result: a chunk from
// each rank fills a buffer of the group, a reduced chunk (or the root's, or a neighbour's) is
// one chunk, and only a chunk inside a buffer of the group sits at the rank's own chunk.
constexpr bool row_is_consistent(const CollectiveTraits& t) {
  if (t.reduces != is_reduction(t.expected)) return false;
  if (t.has_root != (t.result_on == Ranks::kRoot || t.input_on() == Ranks::kRoot)) return false;
  if (t.in_place_input == InPlaceInput::kAtOwnChunk &&
      (t.input != Extent::kChunk || t.in_place_buffer() != Extent::kGroup))
    return false;
  switch (t.expected) {
    case ExpectedResult::kReduced:
      return t.input == Extent::kChunk && t.output == Extent::kChunk;
    case ExpectedResult::kReducedOwnChunk:
      return t.input == Extent::kGroup && t.output == Extent::kChunk;
    case ExpectedResult::kChunkFromEachRank:
      return t.input == Extent::kChunk && t.output == Extent::kGroup;
    case ExpectedResult::kOwnChunkFromEachRank:
      return t.input == Extent::kGroup && t.output == Extent::kGroup;
    case ExpectedResult::kRootInput:
    case ExpectedResult::kPreviousRankInput:
      return t.input == Extent::kChunk && t.output == Extent::kChunk;
  }
  return false;
}
static_assert(std::all_of(kCollectiveTraits.begin(), kCollectiveTraits.end(), row_is_consistent));

// Row i is the enum's value i.
static_assert([] {
  for (std::size_t i = 0; i < kCollectiveTraits.size(); ++i)
    if (kCollectiveTraits[i].collective != static_cast<Collective>(i)) return false;
  return true;
}());

// The traits of a collective (every value has its row).
constexpr const CollectiveTraits& traits_of(Collective c) {
  return kCollectiveTraits[static_cast<std::size_t>(c)];
}

// The traits of the collective of that name; nullptr for none.
constexpr const CollectiveTraits* traits_of(std::string_view name) {
  for (const auto& t : kCollectiveTraits)
    if (t.name == name) return &t;
  return nullptr;
}

}  // namespace preflight::comm
