#include "comm/topology.hpp"

#include <gtest/gtest.h>

namespace preflight::comm {
namespace {

using Groups = std::vector<int>;

// 3 nodes of 2 ranks: ranks 0,1 on node 0; 2,3 on node 1; 4,5 on node 2.
const Groups kNode = {0, 0, 1, 1, 2, 2};
const Groups kLocal = {0, 1, 0, 1, 0, 1};

TEST(Layouts, WorldIntraInterRail) {
  EXPECT_EQ(make_layouts(Topology::kWorld, kNode, kLocal, 3).at(0).group_of_rank,
            (Groups{0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(make_layouts(Topology::kIntra, kNode, kLocal, 3).at(0).group_of_rank,
            (Groups{0, 0, 1, 1, 2, 2}));
  EXPECT_EQ(make_layouts(Topology::kInter, kNode, kLocal, 3).at(0).group_of_rank,
            (Groups{0, -1, 0, -1, 0, -1}));
  EXPECT_EQ(make_layouts(Topology::kRail, kNode, kLocal, 3).at(0).group_of_rank,
            (Groups{0, 1, 0, 1, 0, 1}));
}

TEST(Layouts, LadderGrowsByPowersOfTwoThenAll) {
  const auto ladder = make_layouts(Topology::kLadder, kNode, kLocal, 3);
  ASSERT_EQ(ladder.size(), 3u);
  EXPECT_EQ(ladder[0].group_of_rank, (Groups{0, 0, -1, -1, -1, -1}));
  EXPECT_EQ(ladder[0].nodes, 1);
  EXPECT_EQ(ladder[1].group_of_rank, (Groups{0, 0, 0, 0, -1, -1}));
  EXPECT_EQ(ladder[2].group_of_rank, (Groups{0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(ladder[2].label, "ladder 3 nodes");
}

TEST(Layouts, LadderSteps) {
  EXPECT_EQ(ladder_steps(1), (std::vector<int>{1}));
  EXPECT_EQ(ladder_steps(4), (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(ladder_steps(5), (std::vector<int>{1, 2, 4, 5}));
}

TEST(Layouts, UnevenNodes) {
  const Groups node = {0, 0, 0, 1};
  const Groups local = {0, 1, 2, 0};
  EXPECT_EQ(make_layouts(Topology::kRail, node, local, 2).at(0).group_of_rank,
            (Groups{0, 1, 2, 0}));
  EXPECT_EQ(make_layouts(Topology::kIntra, node, local, 2).at(0).group_of_rank,
            (Groups{0, 0, 0, 1}));
}

TEST(Topologies, Names) {
  EXPECT_EQ(topology_names().parse("rail"), Topology::kRail);
  EXPECT_FALSE(topology_names().parse("ring").has_value());
}

}  // namespace
}  // namespace preflight::comm
