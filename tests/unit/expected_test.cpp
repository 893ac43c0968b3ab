// The result checks against brute-force reference collectives computed here on the host:
// a right result counts 0 wrong, any damaged element is counted.
#include "comm/expected.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "cpu/pattern.hpp"

namespace preflight::comm {
namespace {

using T = float;

std::vector<T> input_of(const CollectivePoint& p) {
  std::vector<T> in(input_elements(p));
  fill_input<T>(p, in);
  return in;
}

T reduce_values(RedOp op, std::vector<T> values) {
  if (op == RedOp::kMax) return *std::max_element(values.begin(), values.end());
  if (op == RedOp::kMin) return *std::min_element(values.begin(), values.end());
  T sum = 0;
  for (T v : values) sum += v;
  return sum;
}

// What `rank` must hold after the collective, computed from every rank's input.
std::vector<T> reference(CollectiveSpec spec, std::uint64_t c, int rank, int n) {
  std::vector<std::vector<T>> in;
  for (int q = 0; q < n; ++q) in.push_back(input_of({spec, c, q, n}));
  std::vector<T> out;
  auto reduced_at = [&](std::uint64_t i) {
    std::vector<T> v;
    for (int q = 0; q < n; ++q) v.push_back(in[q][i]);
    return reduce_values(spec.redop, v);
  };
  switch (spec.op) {
    case Collective::kAllReduce:
    case Collective::kReduce:
      for (std::uint64_t i = 0; i < c; ++i) out.push_back(reduced_at(i));
      break;
    case Collective::kReduceScatter:
      for (std::uint64_t i = 0; i < c; ++i) out.push_back(reduced_at(rank * c + i));
      break;
    case Collective::kAllGather:
      for (int q = 0; q < n; ++q) out.insert(out.end(), in[q].begin(), in[q].end());
      break;
    case Collective::kAllToAll:
      for (int q = 0; q < n; ++q)
        out.insert(out.end(), in[q].begin() + rank * c, in[q].begin() + (rank + 1) * c);
      break;
    case Collective::kBroadcast:
      out = in[0];
      break;
    case Collective::kSendRecv:
      out = in[(rank + n - 1) % n];
      break;
  }
  return out;
}

class ExpectedTest : public ::testing::TestWithParam<std::tuple<Collective, RedOp, int>> {};

TEST_P(ExpectedTest, RightResultPassesDamagedResultIsCounted) {
  const auto [op, redop, n] = GetParam();
  const std::uint64_t c = 67;  // not a multiple of the pattern's period
  for (int rank = 0; rank < n; ++rank) {
    const CollectivePoint p{{op, DType::kFloat32, redop, false}, c, rank, n};
    auto result = reference(p.spec, c, rank, n);
    ASSERT_EQ(result.size(), result_elements(p));
    EXPECT_EQ(count_wrong<T>(p, result), 0u) << "rank " << rank;
    if (!holds_result(p)) continue;
    result[5] += 1;
    result.back() = 0;
    EXPECT_EQ(count_wrong<T>(p, result), 2u) << "rank " << rank;
  }
}

INSTANTIATE_TEST_SUITE_P(
    All, ExpectedTest,
    ::testing::Combine(::testing::Values(Collective::kAllReduce, Collective::kAllGather,
                                         Collective::kReduceScatter, Collective::kBroadcast,
                                         Collective::kReduce, Collective::kAllToAll,
                                         Collective::kSendRecv),
                       ::testing::Values(RedOp::kSum, RedOp::kMax, RedOp::kMin),
                       ::testing::Values(1, 2, 5)));

TEST(Pattern, DependsOnRankAndIndex) {
  EXPECT_NE(kernels::pattern_value(0, 0), kernels::pattern_value(1, 0));
  EXPECT_NE(kernels::pattern_value(0, 0), kernels::pattern_value(0, 1));
  std::vector<std::int64_t> v(200);
  kernels::fill_pattern<std::int64_t>(v, 3, 1000);
  for (std::size_t i = 0; i < v.size(); ++i)
    EXPECT_EQ(static_cast<std::uint64_t>(v[i]), kernels::pattern_value(3, 1000 + i));
}

TEST(Pattern, SumsStayExactAtScale) {
  // 100k ranks of float32: the largest sum (61 x 100k) is below 2^24, so it is exact.
  const kernels::ReducedPattern<float> sums(kernels::Reduction::kSum, 100000);
  std::vector<float> got(61);
  for (std::uint64_t i = 0; i < got.size(); ++i) {
    std::uint64_t exact = 0;
    for (std::uint64_t q = 0; q < 100000; ++q) exact += kernels::pattern_value(q, i);
    got[i] = static_cast<float>(exact);
  }
  EXPECT_EQ(sums.count_mismatches(got, 0), 0u);
}

TEST(Corrupt, AlwaysDamagesAtLeastOneElement) {
  std::vector<float> one = {5};
  kernels::corrupt<float>(one);
  EXPECT_EQ(one[0], 0);
  std::vector<float> many(100, 3);
  kernels::corrupt<float>(many);
  EXPECT_GT(std::count(many.begin(), many.end(), 0.0f), 1);
}

}  // namespace
}  // namespace preflight::comm
