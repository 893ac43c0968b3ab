#include "comm/collective.hpp"

#include <gtest/gtest.h>

namespace preflight::comm {
namespace {

TEST(BusFactor, AsNcclTestsDefinesIt) {
  EXPECT_DOUBLE_EQ(bus_factor(Collective::kAllReduce, 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::kAllGather, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::kReduceScatter, 4), 3.0 / 4);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::kAllToAll, 2), 0.5);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::kBroadcast, 8), 1);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::kReduce, 8), 1);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::kSendRecv, 8), 1);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::kAllReduce, 1), 0);
}

TEST(Chunks, WholeBufferSplitForGatherScatterAndAllToAll) {
  EXPECT_EQ(chunk_elements(Collective::kAllReduce, 1024, DType::kFloat32, 4), 256u);
  EXPECT_EQ(chunk_elements(Collective::kAllGather, 1024, DType::kFloat32, 4), 64u);
  EXPECT_EQ(reported_bytes(Collective::kAllGather, 64, DType::kFloat32, 4), 1024u);
  EXPECT_EQ(chunk_elements(Collective::kAllToAll, 1000, DType::kFloat64, 4), 31u);
  EXPECT_EQ(reported_bytes(Collective::kAllToAll, 31, DType::kFloat64, 4), 992u);
  // Never fewer than one element unless nothing was asked for.
  EXPECT_EQ(chunk_elements(Collective::kReduceScatter, 8, DType::kFloat32, 4), 1u);
  EXPECT_EQ(chunk_elements(Collective::kAllReduce, 0, DType::kFloat32, 4), 0u);
}

TEST(Names, RoundTrip) {
  for (Collective c : all_collectives()) EXPECT_EQ(collective_names().parse(name_of(c)), c);
  EXPECT_EQ(dtype_names().parse("float64"), DType::kFloat64);
  EXPECT_EQ(redop_names().parse("max"), RedOp::kMax);
  EXPECT_FALSE(collective_names().parse("allreduc").has_value());
  EXPECT_EQ(size_of(DType::kUInt64), 8u);
  EXPECT_TRUE(reduces(Collective::kReduceScatter));
  EXPECT_FALSE(reduces(Collective::kAllGather));
  EXPECT_TRUE(has_root(Collective::kBroadcast));
}

}  // namespace
}  // namespace preflight::comm
