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

// Each collective's buffers as MPI and NCCL define them, written out here per collective, not
// read from the traits table, so a row whose shapes are wrong fails.
struct Shapes {
  std::uint64_t input;            // elements of each rank's input
  std::uint64_t output;           // its output buffer out of place: the result
  std::uint64_t in_place_buffer;  // its one buffer in place
  std::uint64_t in_place_offset;  // where its input sits in that buffer
  bool input_read;                // whether its input is read at all
  bool holds_result;
};

Shapes shapes(Collective op, std::uint64_t c, int rank, int n) {
  const std::uint64_t g = c * static_cast<std::uint64_t>(n);
  switch (op) {
    case Collective::kAllReduce:
    case Collective::kSendRecv:
      return {c, c, c, 0, true, true};
    case Collective::kAllGather:
      return {c, g, g, c * static_cast<std::uint64_t>(rank), true, true};
    case Collective::kReduceScatter:
      return {g, c, g, 0, true, true};
    case Collective::kAllToAll:
      return {g, g, g, 0, true, true};
    case Collective::kBroadcast:
      return {c, c, c, 0, rank == 0, true};
    case Collective::kReduce:
      return {c, c, c, 0, true, rank == 0};
  }
  return {};
}

std::vector<T> input_of(const CollectivePoint& p) {
  std::vector<T> in(shapes(p.spec.op, p.chunk, p.rank, p.ranks).input);
  fill_input<T>(p, in);
  return in;
}

T reduce_values(RedOp op, const std::vector<T>& values) {
  T r = values.at(0);
  for (std::size_t i = 1; i < values.size(); ++i)
    r = op == RedOp::kMax   ? std::max(r, values[i])
        : op == RedOp::kMin ? std::min(r, values[i])
                            : r + values[i];
  return r;
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

class ExpectedTest : public ::testing::TestWithParam<std::tuple<Collective, RedOp, int, bool>> {};

TEST_P(ExpectedTest, ShapesAreTheReferenceCollectives) {
  const auto [op, redop, n, in_place] = GetParam();
  const std::uint64_t c = 67;
  for (int rank = 0; rank < n; ++rank) {
    const CollectivePoint p{{op, DType::kFloat32, redop, in_place}, c, rank, n};
    const Shapes want = shapes(op, c, rank, n);
    EXPECT_EQ(input_elements(p), want.input) << "rank " << rank;
    EXPECT_EQ(output_elements(p), in_place ? want.in_place_buffer : want.output) << "rank " << rank;
    EXPECT_EQ(result_elements(p), want.output) << "rank " << rank;
    EXPECT_EQ(holds_input(p), want.input_read) << "rank " << rank;
    EXPECT_EQ(holds_result(p), want.holds_result) << "rank " << rank;
    if (!in_place) continue;
    EXPECT_EQ(in_place_input_offset(p), want.in_place_offset) << "rank " << rank;
    // The one buffer holds the input where it sits, and the result at its start.
    EXPECT_LE(in_place_input_offset(p) + input_elements(p), output_elements(p)) << "rank " << rank;
    EXPECT_LE(result_elements(p), output_elements(p)) << "rank " << rank;
  }
}

TEST_P(ExpectedTest, RightResultPassesDamagedResultIsCounted) {
  const auto [op, redop, n, in_place] = GetParam();
  const std::uint64_t c = 67;  // not a multiple of the pattern's period
  for (int rank = 0; rank < n; ++rank) {
    const CollectivePoint p{{op, DType::kFloat32, redop, in_place}, c, rank, n};
    auto result = reference(p.spec, c, rank, n);
    ASSERT_EQ(result.size(), result_elements(p));
    if (in_place) {
      // In place, the result is the start of the one buffer (the rest, if any, unchecked).
      std::vector<T> buffer(output_elements(p), T{});
      std::copy(result.begin(), result.end(), buffer.begin());
      EXPECT_EQ(count_wrong<T>(p, std::span<const T>(buffer).first(result_elements(p))), 0u)
          << "rank " << rank;
    }
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
                       ::testing::Values(1, 2, 5), ::testing::Bool()));

TEST(Pattern, DependsOnRankAndIndex) {
  EXPECT_NE(kernels::pattern_value(0, 0), kernels::pattern_value(1, 0));
  EXPECT_NE(kernels::pattern_value(0, 0), kernels::pattern_value(0, 1));
  std::vector<std::int64_t> v(200);
  kernels::fill_pattern<std::int64_t>(v, 3, 1000);
  for (std::size_t i = 0; i < v.size(); ++i)
    EXPECT_EQ(static_cast<std::uint64_t>(v[i]), kernels::pattern_value(3, 1000 + i));
}

// Of the 61 residues, how many float32 sums over `ranks` ranks are not the whole number the
// pattern's values add up to (summed here in uint64, not by the code under test), in rank order
// or as a pairwise tree (how MPI and NCCL may add); and how many of the sums the check would
// count wrong.
struct FloatSums {
  int inexact = 0;
  std::uint64_t counted_wrong = 0;
};

FloatSums float_sums(std::uint64_t ranks) {
  std::vector<float> in_order(kernels::kPatternModulus), as_tree(kernels::kPatternModulus);
  FloatSums result;
  for (std::uint64_t i = 0; i < kernels::kPatternModulus; ++i) {
    std::uint64_t exact = 0;
    float sum = 0;
    std::vector<float> level(ranks);
    for (std::uint64_t q = 0; q < ranks; ++q) {
      const std::uint64_t v = kernels::pattern_value(q, i);
      exact += v;
      sum += static_cast<float>(v);
      level[q] = static_cast<float>(v);
    }
    // Pairs of neighbours, level by level; an odd one out goes up alone.
    for (; level.size() > 1; level.resize((level.size() + 1) / 2))
      for (std::size_t j = 0; 2 * j < level.size(); ++j)
        level[j] = 2 * j + 1 < level.size() ? level[2 * j] + level[2 * j + 1] : level[2 * j];
    in_order[i] = sum;
    as_tree[i] = level[0];
    // A float holds exact only as the same double: compare in double, where both are exact.
    result.inexact += static_cast<double>(sum) != static_cast<double>(exact) ||
                      static_cast<double>(level[0]) != static_cast<double>(exact);
  }
  const kernels::ReducedPattern<float> check(kernels::Reduction::kSum, ranks);
  result.counted_wrong = check.count_mismatches(in_order, 0) + check.count_mismatches(as_tree, 0);
  return result;
}

TEST(Pattern, SumsStayExactUpToTheRankLimit) {
  // 61 x 275,036 = 16,777,196 <= 2^24: every float32 partial sum is a whole number it holds.
  EXPECT_EQ(kernels::max_exact_sum_ranks<float>(), 275036u);
  const auto at_limit = float_sums(kernels::max_exact_sum_ranks<float>());
  EXPECT_EQ(at_limit.inexact, 0) << "float32 sums at the rank limit round";
  EXPECT_EQ(at_limit.counted_wrong, 0u) << "the check fails right float32 sums";
}

TEST(Pattern, ExactnessCheckCatchesSumsBeyondTheLimit) {
  // The check above can fail: at 2,000,000 ranks the sums (about 6.1e7) are past 2^24 and round.
  const auto beyond = float_sums(2000000);
  EXPECT_GT(beyond.inexact, 0);
}

TEST(Pattern, RankLimitOfEachType) {
  // Written out: the largest whole number each type holds exactly, over 61.
  EXPECT_EQ(max_exact_sum_ranks(DType::kFloat32), 16777216u / 61);
  EXPECT_EQ(max_exact_sum_ranks(DType::kFloat64), 9007199254740992u / 61);
  EXPECT_EQ(max_exact_sum_ranks(DType::kInt32), 2147483647u / 61);
  EXPECT_EQ(max_exact_sum_ranks(DType::kUInt32), 4294967295u / 61);
  EXPECT_EQ(max_exact_sum_ranks(DType::kInt64), 9223372036854775807u / 61);
  EXPECT_EQ(max_exact_sum_ranks(DType::kUInt64), 18446744073709551615u / 61);
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
