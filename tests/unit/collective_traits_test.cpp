// bench/comm/collective_traits.hpp (the table the report's alpha-beta plug-in reads, and the comm
// family is to read) agrees with bench/comm/collective.cpp, which the comm family still uses.
#include "comm/collective_traits.hpp"

#include <gtest/gtest.h>

#include <iterator>

#include "comm/collective.hpp"

namespace preflight::comm {
namespace {

TEST(CollectiveTraits, AgreeWithTheCommFamily) {
  const Collective all[] = {Collective::kAllReduce,     Collective::kAllGather,
                            Collective::kReduceScatter, Collective::kBroadcast,
                            Collective::kReduce,        Collective::kAllToAll,
                            Collective::kSendRecv};
  ASSERT_EQ(kCollectiveTraits.size(), std::size(all));
  for (const auto collective : all) {
    const auto name = name_of(collective);
    const auto* t = traits_of(name);
    ASSERT_NE(t, nullptr) << name;
    EXPECT_EQ(t->reduces, reduces(collective)) << name;
    EXPECT_EQ(t->has_root, has_root(collective)) << name;
    // Chunked: each rank's chunk is 1/n of the requested size.
    EXPECT_EQ(t->chunked, chunk_elements(collective, 4096, DType::kFloat32, 4) == 256) << name;
    for (int n = 1; n <= 64; ++n)
      EXPECT_DOUBLE_EQ(t->bus_factor(n), bus_factor(collective, n)) << name << " n " << n;
    EXPECT_TRUE(t->ring.exists()) << name;
    EXPECT_FALSE(t->cost_model.empty()) << name;
  }
  static_assert(kCollectiveTraits[0].name == "allreduce" &&
                kCollectiveTraits[1].name == "allgather");
  EXPECT_EQ(kCollectiveTraits[0].tree.steps(16), 8);  // 2 * ceil(log2 16)
  EXPECT_FALSE(kCollectiveTraits[1].tree.exists());
  EXPECT_EQ(traits_of("nonesuch"), nullptr);
}

}  // namespace
}  // namespace preflight::comm
