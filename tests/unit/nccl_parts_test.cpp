// The parts of the NCCL backend that need no GPU: the check of NCCL_* variables a variant sets,
// the NCCL_* environment recorded per rank, the registration names, and the result ranges and
// reduction table a device-side check runs (they must cover exactly what the host check does).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "comm/backend.hpp"
#include "comm/expected.hpp"
#include "comm/nccl_env.hpp"
#include "cpu/pattern.hpp"
#include "harness/environment.hpp"

namespace preflight::comm {
namespace {

bool accepted(const std::string& name, const std::string& value) {
  return !check_nccl_variable(name, value).has_value();
}

TEST(NcclEnv, AlgorithmsAcceptedInNcclsForms) {
  EXPECT_TRUE(accepted("NCCL_ALGO", "Ring"));
  EXPECT_TRUE(accepted("NCCL_ALGO", "ring,tree"));
  EXPECT_TRUE(accepted("NCCL_ALGO", "^NVLS"));
  EXPECT_TRUE(accepted("NCCL_ALGO", "NVLSTree,PAT"));
  EXPECT_TRUE(accepted("NCCL_ALGO", "allreduce:tree;broadcast:ring"));
}

TEST(NcclEnv, BadAlgorithmRejectedNamingTheChoices) {
  const auto problem = check_nccl_variable("NCCL_ALGO", "Rnig");
  ASSERT_TRUE(problem.has_value());
  EXPECT_NE(problem->expected.find("ring, tree"), std::string::npos) << problem->expected;
  EXPECT_EQ(problem->found, "'Rnig'");
  EXPECT_FALSE(accepted("NCCL_ALGO", ""));
  EXPECT_FALSE(accepted("NCCL_ALGO", "ring,"));
  EXPECT_FALSE(accepted("NCCL_ALGO", "alltoall:ring"));
}

TEST(NcclEnv, ProtocolsSwitchesNumbersAndLevels) {
  EXPECT_TRUE(accepted("NCCL_PROTO", "LL128"));
  EXPECT_TRUE(accepted("NCCL_PROTO", "^LL,LL128"));
  EXPECT_FALSE(accepted("NCCL_PROTO", "LL256"));
  EXPECT_TRUE(accepted("NCCL_NVLS_ENABLE", "0"));
  EXPECT_FALSE(accepted("NCCL_NVLS_ENABLE", "yes"));
  EXPECT_FALSE(accepted("NCCL_IB_DISABLE", "2"));
  EXPECT_TRUE(accepted("NCCL_MAX_NCHANNELS", "16"));
  EXPECT_FALSE(accepted("NCCL_MAX_NCHANNELS", "-1"));
  EXPECT_TRUE(accepted("NCCL_IB_GID_INDEX", "-1"));
  EXPECT_TRUE(accepted("NCCL_P2P_LEVEL", "NVL"));
  EXPECT_TRUE(accepted("NCCL_P2P_LEVEL", "3"));
  EXPECT_FALSE(accepted("NCCL_P2P_LEVEL", "NVLINK"));
  EXPECT_TRUE(accepted("NCCL_DEBUG", "info"));
  EXPECT_FALSE(accepted("NCCL_DEBUG", "verbose"));
  EXPECT_TRUE(accepted("NCCL_IB_HCA", "=mlx5_0:1,mlx5_1:1"));
  EXPECT_FALSE(accepted("NCCL_IB_HCA", " "));
}

TEST(NcclEnv, MisspeltNameRejectedUnknownNamePasses) {
  const auto problem = check_nccl_variable("NCCL_ALOG", "Ring");
  ASSERT_TRUE(problem.has_value());
  EXPECT_NE(problem->expected.find("did you mean NCCL_ALGO"), std::string::npos)
      << problem->expected;
  EXPECT_TRUE(accepted("NCCL_SOME_FUTURE_SETTING", "whatever"));
}

TEST(NcclEnv, RankEnvironmentRecordsNcclVariablesSorted) {
  std::string a = "PATH=/bin", b = "NCCL_PROTO=LL", c = "NCCL_ALGO=Ring", d = "XNCCL_NO=1";
  std::vector<char*> env = {a.data(), b.data(), c.data(), d.data(), nullptr};
  EXPECT_EQ(nccl_environment(env.data()), "NCCL_ALGO=Ring NCCL_PROTO=LL");
  std::vector<char*> none = {a.data(), nullptr};
  EXPECT_EQ(nccl_environment(none.data()), "");
}

TEST(NcclBackend, RegistrationNames) {
  EXPECT_EQ(registration_names().parse("off"), Registration::kOff);
  EXPECT_EQ(registration_names().parse("local"), Registration::kLocal);
  EXPECT_EQ(registration_names().parse("window"), Registration::kWindow);
  EXPECT_FALSE(registration_names().parse("symmetric").has_value());
}

// Every element of the checked result lies in exactly one range, for every collective, rank
// and placement: the device-side check covers what the host check covers, no more, no less.
TEST(NcclBackend, ResultRangesCoverTheResultOnce) {
  for (Collective op : all_collectives())
    for (bool in_place : {false, true})
      for (int rank = 0; rank < 3; ++rank) {
        const CollectivePoint p{{op, DType::kFloat32, RedOp::kSum, in_place}, 5, rank, 3};
        const auto ranges = result_ranges(p);
        if (!holds_result(p)) {
          EXPECT_TRUE(ranges.empty());
          continue;
        }
        std::vector<int> hits(result_elements(p), 0);
        for (const auto& r : ranges)
          for (std::uint64_t i = r.offset; i < r.offset + r.count; ++i) ++hits.at(i);
        EXPECT_TRUE(std::all_of(hits.begin(), hits.end(), [](int h) { return h == 1; }))
            << name_of(op) << " rank " << rank;
      }
}

TEST(NcclBackend, ReducedValuesAreTheHostChecksTable) {
  for (RedOp op : {RedOp::kSum, RedOp::kMax, RedOp::kMin}) {
    const CollectivePoint p{{Collective::kAllReduce, DType::kInt32, op, false}, 61, 0, 4};
    const auto values = reduced_values(p);
    ASSERT_EQ(values.size(), kernels::kPatternModulus);
    // A buffer written from the table passes the host check; one value off fails it.
    std::vector<std::int32_t> buffer(61);
    for (std::uint64_t i = 0; i < buffer.size(); ++i)
      buffer[i] = static_cast<std::int32_t>(values[(7 * i) % kernels::kPatternModulus]);
    EXPECT_EQ(count_wrong<std::int32_t>(p, buffer), 0u) << name_of(op);
    buffer[10] += 1;
    EXPECT_EQ(count_wrong<std::int32_t>(p, buffer), 1u) << name_of(op);
  }
}

}  // namespace
}  // namespace preflight::comm
