// The parts of the NCCL backend that need no GPU: the check of NCCL_* variables a variant sets,
// the NCCL_* environment recorded per rank, the registration names, and the result ranges and
// reduction table a device-side check runs (they must cover exactly what the host check does).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "comm/backend.hpp"
#include "comm/expected.hpp"
#include "comm/nccl_env.hpp"
#include "cpu/pattern.hpp"
#include "harness/env/environment.hpp"

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
  for (RedOp op : {RedOp::kSum, RedOp::kMax, RedOp::kMin, RedOp::kProd}) {
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

// Every element type NCCL and the pattern check share: its name round-trips, its size is its
// NCCL type's, and its exact-sum and exact-product limits are the largest that keep the
// pattern's whole numbers exact.
TEST(DTypeTable, NamesAndSizes) {
  const std::vector<std::pair<DType, std::size_t>> sizes = {
      {DType::kInt8, 1},    {DType::kUInt8, 1}, {DType::kFloat16, 2}, {DType::kBFloat16, 2},
      {DType::kFloat32, 4}, {DType::kInt32, 4}, {DType::kUInt32, 4},  {DType::kFloat64, 8},
      {DType::kInt64, 8},   {DType::kUInt64, 8}};
  EXPECT_EQ(dtype_names().values().size(), sizes.size());
  for (const auto& [t, bytes] : sizes) {
    EXPECT_EQ(dtype_names().parse(std::string(name_of(t))), t) << name_of(t);
    EXPECT_EQ(size_of(t), bytes) << name_of(t);
  }
  EXPECT_EQ(redop_names().parse("prod"), RedOp::kProd);
  EXPECT_FALSE(redop_names().parse("avg").has_value());
}

TEST(DTypeTable, ExactLimitsKeepThePatternExact) {
  // The whole numbers each type holds exactly: 2^significand bits, or the integer maximum.
  const std::vector<std::pair<DType, double>> exact = {{DType::kInt8, 127},
                                                       {DType::kUInt8, 255},
                                                       {DType::kFloat16, 2048},
                                                       {DType::kBFloat16, 256},
                                                       {DType::kFloat32, 16777216},
                                                       {DType::kInt32, 2147483647.0},
                                                       {DType::kUInt32, 4294967295.0},
                                                       {DType::kFloat64, 9007199254740992.0}};
  const double top = static_cast<double>(kernels::kPatternModulus);  // the largest value
  for (const auto& [t, limit] : exact) {
    const auto sums = static_cast<double>(max_exact_sum_ranks(t));
    EXPECT_LE(sums * top, limit) << name_of(t);
    EXPECT_GT((sums + 1) * top, limit) << name_of(t);
    const auto products = static_cast<double>(max_exact_product_ranks(t));
    EXPECT_LE(std::pow(top, products), limit) << name_of(t);
    EXPECT_GT(std::pow(top, products + 1), limit) << name_of(t);
  }
}

TEST(DTypeTable, ProductTableIsTheBruteForceProduct) {
  const CollectivePoint p{{Collective::kAllReduce, DType::kFloat64, RedOp::kProd, false}, 61, 0, 3};
  const auto values = reduced_values(p);
  for (std::uint64_t i = 0; i < 61; ++i) {
    double product = 1;
    for (std::uint64_t q = 0; q < 3; ++q)
      product *= static_cast<double>(kernels::pattern_value(q, i));
    EXPECT_EQ(values[(7 * i) % kernels::kPatternModulus], product) << i;
  }
  // int8 through its host check: a maximum table written back passes, one value off fails.
  const CollectivePoint q{{Collective::kAllReduce, DType::kInt8, RedOp::kMax, false}, 61, 1, 2};
  const auto table = reduced_values(q);
  std::vector<std::int8_t> buffer(61);
  for (std::uint64_t i = 0; i < buffer.size(); ++i)
    buffer[i] = static_cast<std::int8_t>(table[(7 * i) % kernels::kPatternModulus]);
  EXPECT_EQ(count_wrong<std::int8_t>(q, buffer), 0u);
  buffer[3] = 0;
  EXPECT_EQ(count_wrong<std::int8_t>(q, buffer), 1u);
}

}  // namespace
}  // namespace preflight::comm
