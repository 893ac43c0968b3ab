// What each collective is, in one constexpr table: how its buffer is divided, whether it reduces
// or has a root, its bus-bandwidth factor, and the alpha-beta cost of its ring (or pairwise or
// chained) and tree algorithms. Header-only and free of MPI, so that the comm family and
// preflight-report's alpha-beta plug-in read the same figures.
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

struct CollectiveTraits {
  Collective collective;  // the enum value this row describes
  std::string_view name;
  bool chunked;   // each rank holds one chunk of the buffer (allgather, reducescatter, alltoall)
  bool reduces;   // takes a reduction operator
  bool has_root;  // rank 0 of the group is the root
  double (*bus_factor)(double n);  // busbw = algbw x this for a group of n ranks
  AlgorithmCost ring, tree;
  std::string_view cost_model;  // the formulas, in words, for the report
};

namespace traits_detail {
constexpr double tree_depth(double n) {
  return std::ceil(std::log2(std::max(n, 2.0)));
}
}  // namespace traits_detail

inline constexpr std::array kCollectiveTraits = {
    CollectiveTraits{
        Collective::kAllReduce,
        "allreduce",
        false,
        true,
        false,
        [](double n) { return 2 * (n - 1) / n; },
        {[](double n) { return 2 * (n - 1); }, [](double n) { return 2 * (n - 1) / n; }},
        {[](double n) { return 2 * traits_detail::tree_depth(n); }, [](double) { return 2.0; }},
        "ring: 2(n-1)·α + 2(n-1)/n·S·β; tree: 2⌈log2 n⌉·α + 2·S·β (pipelined, as NCCL's)"},
    CollectiveTraits{Collective::kAllGather,
                     "allgather",
                     true,
                     false,
                     false,
                     [](double n) { return (n - 1) / n; },
                     {[](double n) { return n - 1; }, [](double n) { return (n - 1) / n; }},
                     {},
                     "ring: (n-1)·α + (n-1)/n·S·β (S the whole buffer); no tree algorithm"},
    CollectiveTraits{Collective::kReduceScatter,
                     "reducescatter",
                     true,
                     true,
                     false,
                     [](double n) { return (n - 1) / n; },
                     {[](double n) { return n - 1; }, [](double n) { return (n - 1) / n; }},
                     {},
                     "ring: (n-1)·α + (n-1)/n·S·β (S the whole buffer); no tree algorithm"},
    CollectiveTraits{
        Collective::kBroadcast,
        "broadcast",
        false,
        false,
        true,
        [](double) { return 1.0; },
        {[](double n) { return n - 1; }, [](double) { return 1.0; }},
        {[](double n) { return traits_detail::tree_depth(n); }, [](double) { return 1.0; }},
        "pipelined chain: (n-1)·α + S·β; tree: ⌈log2 n⌉·α + S·β"},
    CollectiveTraits{
        Collective::kReduce,
        "reduce",
        false,
        true,
        true,
        [](double) { return 1.0; },
        {[](double n) { return n - 1; }, [](double) { return 1.0; }},
        {[](double n) { return traits_detail::tree_depth(n); }, [](double) { return 1.0; }},
        "pipelined chain: (n-1)·α + S·β; tree: ⌈log2 n⌉·α + S·β"},
    CollectiveTraits{Collective::kAllToAll,
                     "alltoall",
                     true,
                     false,
                     false,
                     [](double n) { return (n - 1) / n; },
                     {[](double n) { return n - 1; }, [](double n) { return (n - 1) / n; }},
                     {},
                     "pairwise: (n-1)·α + (n-1)/n·S·β (S the whole buffer); no tree algorithm"},
    CollectiveTraits{Collective::kSendRecv,
                     "sendrecv",
                     false,
                     false,
                     false,
                     [](double) { return 1.0; },
                     {[](double) { return 1.0; }, [](double) { return 1.0; }},
                     {},
                     "α + S·β"},
};

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
