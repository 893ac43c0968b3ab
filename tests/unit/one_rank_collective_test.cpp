// A collective whose every group has one rank (a job of one rank, e.g. one GPU) moves nothing
// between ranks: NCCL makes an out-of-place call a local copy and an in-place one nothing. Its
// times are kept, but it is labelled a launch and correctness check and shows no bandwidth.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <string>
#include <variant>

#include "comm/collective_case.hpp"
#include "preflight/schema/comm.hpp"

namespace preflight::comm {
namespace {

RankContext one_rank() {
  int started = 0;
  MPI_Initialized(&started);
  if (!started) MPI_Init(nullptr, nullptr);  // finalised by operation_timing_test.cpp's environment
  RankContext ctx;
  ctx.world = MPI_COMM_SELF;
  ctx.host = "test";
  ctx.node_of_rank = {0};
  ctx.local_rank_of_rank = {0};
  ctx.host_of_rank = {"test"};
  ctx.node_names = {"test"};
  return ctx;
}

std::string param(const std::vector<Param>& params, const std::string& name) {
  for (const auto& p : params)
    if (p.name == name) return std::get<std::string>(p.value);
  return "(none)";
}

TEST(OneRankCollective, LabelledALaunchCheckWithNoBandwidth) {
  const RankContext ctx = one_rank();
  auto backend = std::shared_ptr<CommBackend>(make_backend("mpi", BackendSettings{}));
  auto layouts = make_layouts(Topology::kWorld, ctx.node_of_rank, ctx.local_rank_of_rank, 1);
  ASSERT_EQ(layouts.size(), 1u);
  auto groups = std::make_shared<GroupSet>(layouts.front(), ctx, backend);
  for (bool in_place : {false, true}) {
    CollectiveCase c({Collective::kAllReduce, DType::kFloat32, RedOp::kSum, in_place}, groups,
                     {1 << 20}, backend);
    EXPECT_EQ(param(c.params(), "measures"), schema::kCommMeasuresLaunch);
    for (int group : {0, -1})
      for (const Metric& m : c.metrics(0, group, 1e-6))
        EXPECT_TRUE(std::isnan(m.value)) << m.name << " of group " << group;
  }
}

}  // namespace
}  // namespace preflight::comm
