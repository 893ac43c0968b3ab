// common/include/preflight/common/collective_traits.hpp: the one table of collective traits that
// the comm family and the report's alpha-beta plug-in both read. Expected values are written out
// here, not read from the table, so a wrong row fails.
#include "preflight/common/collective_traits.hpp"

#include <gtest/gtest.h>

#include "comm/collective.hpp"

namespace preflight::comm {
namespace {

struct Expected {
  Collective collective;
  const char* name;
  bool chunked, reduces, has_root, tree;
};

TEST(CollectiveTraits, EachRowAsNcclTestsDefinesTheCollective) {
  const Expected rows[] = {
      {Collective::kAllReduce, "allreduce", false, true, false, true},
      {Collective::kAllGather, "allgather", true, false, false, false},
      {Collective::kReduceScatter, "reducescatter", true, true, false, false},
      {Collective::kBroadcast, "broadcast", false, false, true, true},
      {Collective::kReduce, "reduce", false, true, true, true},
      {Collective::kAllToAll, "alltoall", true, false, false, false},
      {Collective::kSendRecv, "sendrecv", false, false, false, false},
  };
  ASSERT_EQ(kCollectiveTraits.size(), std::size(rows));
  for (const auto& e : rows) {
    // The comm family's name table comes from the traits, in enum order.
    EXPECT_EQ(name_of(e.collective), e.name);
    EXPECT_EQ(collective_names().parse(e.name), e.collective) << e.name;
    const auto* t = traits_of(e.name);
    ASSERT_NE(t, nullptr) << e.name;
    EXPECT_EQ(t->chunked(), e.chunked) << e.name;
    EXPECT_EQ(reduces(e.collective), e.reduces) << e.name;
    EXPECT_EQ(has_root(e.collective), e.has_root) << e.name;
    // Chunked: each rank's chunk is 1/n of the requested size.
    EXPECT_EQ(chunk_elements(e.collective, 4096, DType::kFloat32, 4), e.chunked ? 256U : 1024U)
        << e.name;
    EXPECT_TRUE(t->ring.exists()) << e.name;
    EXPECT_EQ(t->tree.exists(), e.tree) << e.name;
    EXPECT_FALSE(t->cost_model.empty()) << e.name;
  }
  EXPECT_EQ(kCollectiveTraits[0].ring.steps(8), 14);  // 2(n-1)
  EXPECT_EQ(kCollectiveTraits[0].tree.steps(16), 8);  // 2 * ceil(log2 16)
  EXPECT_EQ(traits_of("nonesuch"), nullptr);
}

}  // namespace
}  // namespace preflight::comm
