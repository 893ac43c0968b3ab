// Which ranks run a collective together. A layout is a set of disjoint groups that run at the
// same time; ranks in no group idle. Pure functions of the node map, so tests need no MPI.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/config/name_table.hpp"

namespace preflight::comm {

enum class Topology {
  kWorld,   // every rank in one group
  kIntra,   // one group per node: the ranks of that node
  kInter,   // one group: the first rank of each node
  kRail,    // one group per local rank: the same local rank across nodes
  kLadder,  // one layout per step: the ranks of the first 1, 2, 4, ... nodes, then all nodes
};

const NameTable<Topology>& topology_names();
std::string_view name_of(Topology t);

struct Layout {
  Topology topology = Topology::kWorld;
  std::string label;               // "world", "ladder 2 nodes", ...
  int nodes = 0;                   // nodes spanned (ladder step); 0 when not a ladder
  std::vector<int> group_of_rank;  // world rank -> group, -1 idle
};

// node_of_rank and local_rank_of_rank are indexed by world rank.
std::vector<Layout> make_layouts(Topology t, const std::vector<int>& node_of_rank,
                                 const std::vector<int>& local_rank_of_rank, int node_count);

// The ladder's node counts: 1, 2, 4, ... below node_count, then node_count.
std::vector<int> ladder_steps(int node_count);

}  // namespace preflight::comm
