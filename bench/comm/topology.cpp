#include "comm/topology.hpp"

#include <array>
#include <utility>

#include <fmt/format.h>

namespace preflight::comm {
namespace {

constexpr std::array kTopologies = {
    std::pair{Topology::kWorld, std::string_view("world")},
    std::pair{Topology::kIntra, std::string_view("intra")},
    std::pair{Topology::kInter, std::string_view("inter")},
    std::pair{Topology::kRail, std::string_view("rail")},
    std::pair{Topology::kLadder, std::string_view("ladder")},
};

Layout single(Topology t, std::vector<int> group_of_rank) {
  return Layout{t, std::string(name_of(t)), 0, std::move(group_of_rank)};
}

}  // namespace

const NameTable<Topology>& topology_names() {
  static constexpr NameTable<Topology> table{kTopologies};
  return table;
}

std::string_view name_of(Topology t) {
  return topology_names().name(t);
}

std::vector<int> ladder_steps(int node_count) {
  std::vector<int> steps;
  for (int k = 1; k < node_count; k *= 2) steps.push_back(k);
  steps.push_back(node_count);
  return steps;
}

std::vector<Layout> make_layouts(Topology t, const std::vector<int>& node_of_rank,
                                 const std::vector<int>& local_rank_of_rank, int node_count) {
  const std::size_t ranks = node_of_rank.size();
  std::vector<int> groups(ranks, -1);
  switch (t) {
    case Topology::kWorld:
      return {single(t, std::vector<int>(ranks, 0))};
    case Topology::kIntra:
      return {single(t, node_of_rank)};
    case Topology::kInter:
      for (std::size_t r = 0; r < ranks; ++r) groups[r] = local_rank_of_rank[r] == 0 ? 0 : -1;
      return {single(t, groups)};
    case Topology::kRail:
      return {single(t, local_rank_of_rank)};
    case Topology::kLadder: {
      std::vector<Layout> layouts;
      for (int step : ladder_steps(node_count)) {
        for (std::size_t r = 0; r < ranks; ++r) groups[r] = node_of_rank[r] < step ? 0 : -1;
        layouts.push_back(
            {t, fmt::format("ladder {} node{}", step, step == 1 ? "" : "s"), step, groups});
      }
      return layouts;
    }
  }
  return {};
}

}  // namespace preflight::comm
