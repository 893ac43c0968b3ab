// The collective correctness sweep's pure parts (bench/correctness/algorithms.hpp,
// result_check.hpp): which algorithms a text selects, where Open MPI runs another algorithm in
// the forced one's place, NCCL's names by version, and the first wrong element of a result with
// its expected value and source rank. The MPI runs are tests/correctness/sweep_test.sh.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <string>
#include <vector>

#include "correctness/algorithms.hpp"
#include "correctness/result_check.hpp"
#include "harness/run/runner.hpp"

namespace preflight::correctness {
namespace {

using comm::Collective;
using comm::DType;

const std::vector<std::string> kOffered = {"basic_linear", "ring", "segmented_ring"};

TEST(SweepSelection, AllIsEveryOfferedAndTheDefault) {
  const auto s = select_algorithms("all", kOffered);
  EXPECT_TRUE(s.default_too);
  EXPECT_EQ(s.chosen, kOffered);
  EXPECT_TRUE(s.unknown.empty());
}

TEST(SweepSelection, AListKeepsTheLibrarysOrderAndNamesTheUnknown) {
  const auto s = select_algorithms("segmented_ring, ring,bruck", kOffered);
  EXPECT_FALSE(s.default_too);
  EXPECT_EQ(s.chosen, (std::vector<std::string>{"ring", "segmented_ring"}));
  EXPECT_EQ(s.unknown, std::vector<std::string>{"bruck"});
  const auto d = select_algorithms("default", kOffered);
  EXPECT_TRUE(d.default_too);
  EXPECT_TRUE(d.chosen.empty());
  EXPECT_TRUE(d.unknown.empty());
}

TEST(OmpiFallbacks, AllreduceRulesOfOpenMpi41) {
  // ring: fewer elements than ranks -> recursive doubling.
  EXPECT_EQ(ompi_runs_instead(Collective::kAllReduce, "ring", 4, 3, 4, 0), "recursive_doubling");
  EXPECT_EQ(ompi_runs_instead(Collective::kAllReduce, "ring", 4, 4, 4, 0), std::nullopt);
  // segmented_ring: without a segment size one segment, i.e. plain ring.
  EXPECT_EQ(ompi_runs_instead(Collective::kAllReduce, "segmented_ring", 4, 1 << 20, 4, 0), "ring");
  // 4096 B segments of float: 1024 elements; it segments from 4 x 1024 elements on.
  EXPECT_EQ(ompi_runs_instead(Collective::kAllReduce, "segmented_ring", 4, 4095, 4, 4096), "ring");
  EXPECT_EQ(ompi_runs_instead(Collective::kAllReduce, "segmented_ring", 4, 4096, 4, 4096),
            std::nullopt);
  EXPECT_EQ(ompi_runs_instead(Collective::kAllReduce, "segmented_ring", 4, 2, 4, 4096),
            "recursive_doubling");
  // rabenseifner: fewer elements than the largest power of two <= ranks -> basic linear.
  EXPECT_EQ(ompi_runs_instead(Collective::kAllReduce, "rabenseifner", 6, 3, 4, 0), "basic_linear");
  EXPECT_EQ(ompi_runs_instead(Collective::kAllReduce, "rabenseifner", 6, 4, 4, 0), std::nullopt);
  EXPECT_EQ(ompi_runs_instead(Collective::kAllReduce, "basic_linear", 4, 1, 4, 0), std::nullopt);
}

TEST(OmpiFallbacks, AllgatherRulesOfOpenMpi41) {
  EXPECT_EQ(ompi_runs_instead(Collective::kAllGather, "recursive_doubling", 6, 8, 4, 0), "bruck");
  EXPECT_EQ(ompi_runs_instead(Collective::kAllGather, "recursive_doubling", 4, 8, 4, 0),
            std::nullopt);
  EXPECT_EQ(ompi_runs_instead(Collective::kAllGather, "neighbor", 3, 8, 4, 0), "ring");
  EXPECT_EQ(ompi_runs_instead(Collective::kAllGather, "neighbor", 4, 8, 4, 0), std::nullopt);
  EXPECT_NE(ompi_runs_instead(Collective::kAllGather, "two_proc", 4, 8, 4, 0), std::nullopt);
  EXPECT_EQ(ompi_runs_instead(Collective::kAllGather, "two_proc", 2, 8, 4, 0), std::nullopt);
}

// Forcing tuned's algorithms is real only where tuned serves the collectives.
TEST(TunedServes, OnlyWhereNoOtherComponentTakesTheCollectives) {
  CollComponents c;
  c.tuned_priority = 30;
  EXPECT_EQ(tuned_not_serving(c), "");  // hcoll, ucc, han not built
  c.han_priority = 0;                   // Open MPI 4.1's default
  c.ucc_enable = 1;
  c.ucc_priority = 10;  // built and enabled, but below tuned
  c.hcoll_enable = 0;
  c.hcoll_priority = 90;  // turned off
  EXPECT_EQ(tuned_not_serving(c), "");

  CollComponents hcoll = c;
  hcoll.hcoll_enable = 1;
  const std::string why = tuned_not_serving(hcoll);
  EXPECT_NE(why.find("coll/hcoll"), std::string::npos) << why;
  EXPECT_NE(why.find("--mca coll ^hcoll"), std::string::npos) << why;
  EXPECT_NE(why.find("OMPI_MCA_coll_hcoll_enable=0"), std::string::npos) << why;
  hcoll.hcoll_priority = std::nullopt;  // enable without priority: hcoll's default 90
  EXPECT_NE(tuned_not_serving(hcoll).find("coll/hcoll"), std::string::npos);
  hcoll.hcoll_priority = 20;  // below tuned
  EXPECT_EQ(tuned_not_serving(hcoll), "");

  CollComponents ucc = c;
  ucc.ucc_priority = 100;
  EXPECT_NE(tuned_not_serving(ucc).find("OMPI_MCA_coll_ucc_enable=0"), std::string::npos);
  ucc.ucc_enable = 0;
  EXPECT_EQ(tuned_not_serving(ucc), "");

  CollComponents han = c;
  han.han_priority = 35;  // Open MPI 5.0's default
  EXPECT_NE(tuned_not_serving(han).find("OMPI_MCA_coll_han_priority=0"), std::string::npos);
  han.han_priority = 30;  // a tie: either may serve, so forcing is not known to be real
  EXPECT_NE(tuned_not_serving(han).find("coll/han"), std::string::npos);
  han.han_priority = 29;
  EXPECT_EQ(tuned_not_serving(han), "");
  han.tuned_priority = 20;  // tuned's priority lowered under han's
  EXPECT_NE(tuned_not_serving(han).find("coll/han"), std::string::npos);
}

// --test-corrupt-case names whole words of a case's name, not a substring.
TEST(CorruptCase, WholeConsecutiveWords) {
  EXPECT_TRUE(names_words("allreduce Ring LL float32", "allreduce Ring LL"));
  EXPECT_FALSE(names_words("allreduce Ring LL128 float32", "allreduce Ring LL"));
  EXPECT_TRUE(names_words("allreduce Ring LL128 float32", "Ring LL128"));
  EXPECT_FALSE(names_words("allreduce segmented_ring float32", "ring"));
  EXPECT_TRUE(names_words("allreduce ring float32", "ring float32"));
  EXPECT_FALSE(names_words("allreduce ring float32", "allreduce float32"));  // not consecutive
  EXPECT_TRUE(names_words("gemm determinism openblas float64", " openblas  float64 "));
  EXPECT_FALSE(names_words("allreduce ring float32", ""));
}

TEST(NcclNames, ByVersion) {
  EXPECT_EQ(nccl_version_code("NCCL 2.28.9"), 22809);
  EXPECT_EQ(nccl_version_code("Open MPI v4.1.4"), 0);
  const auto has = [](const std::vector<std::string>& v, const char* name) {
    return std::find(v.begin(), v.end(), name) != v.end();
  };
  EXPECT_TRUE(has(nccl_algorithms(22809), "PAT"));
  EXPECT_TRUE(has(nccl_algorithms(22809), "NVLSTree"));
  EXPECT_FALSE(has(nccl_algorithms(21700), "NVLSTree"));
  EXPECT_TRUE(has(nccl_algorithms(21700), "NVLS"));
  EXPECT_FALSE(has(nccl_algorithms(22200), "PAT"));
  EXPECT_EQ(nccl_protocols(22809), (std::vector<std::string>{"LL", "LL128", "Simple"}));
}

comm::CollectivePoint point(Collective op, int rank, int ranks, std::uint64_t chunk) {
  comm::CollectivePoint p;
  p.spec.op = op;
  p.spec.dtype = DType::kFloat32;
  p.chunk = chunk;
  p.rank = rank;
  p.ranks = ranks;
  return p;
}

TEST(ResultCheck, AllReduceFirstWrongElementIsReduced) {
  const auto p = point(Collective::kAllReduce, 1, 4, 100);
  const kernels::ReducedPattern<float> reduced(kernels::Reduction::kSum, 4);
  std::vector<float> result(100);
  for (std::uint64_t i = 0; i < result.size(); ++i) result[i] = reduced.expected_at(i * 7 % 61);
  EXPECT_EQ(check_result<float>(p, result).count, 0u);
  const float right = result[37];
  result[37] = right + 0.5f;
  result[80] = 0;
  const WrongResult w = check_result<float>(p, result);
  EXPECT_EQ(w.count, 2u);
  EXPECT_EQ(w.element, 37u);
  EXPECT_EQ(w.expected, right);
  EXPECT_EQ(w.found, right + 0.5f);
  EXPECT_EQ(w.source, comm::kReducedSource);
}

TEST(ResultCheck, AllGatherNamesTheBlocksRank) {
  const std::uint64_t chunk = 10;
  const auto p = point(Collective::kAllGather, 0, 4, chunk);
  std::vector<float> result(chunk * 4);
  for (std::uint64_t q = 0; q < 4; ++q)
    kernels::fill_pattern(std::span<float>(result).subspan(q * chunk, chunk), q, 0);
  EXPECT_EQ(check_result<float>(p, result).count, 0u);
  result[2 * chunk + 3] = 0;  // a poisoned element left unwritten in rank 2's block
  const WrongResult w = check_result<float>(p, result);
  EXPECT_EQ(w.count, 1u);
  EXPECT_EQ(w.element, 2 * chunk + 3);
  EXPECT_EQ(w.expected, static_cast<double>(kernels::pattern_value(2, 3)));
  EXPECT_EQ(w.found, 0);
  EXPECT_EQ(w.source, 2);
}

// MPI_T gives Open MPI's algorithm names: the list holds ring for all-reduce, with underscores.
TEST(MpiAlgorithms, ReadFromTheLibrary) {
  int started = 0;
  MPI_Initialized(&started);
  if (!started) MPI_Init(nullptr, nullptr);  // finalised by operation_timing_test.cpp's environment
  if (mpi_library().find("Open MPI") == std::string::npos) GTEST_SKIP() << "not Open MPI";
  const MpiAlgorithms a = mpi_algorithms(Collective::kAllReduce);
  EXPECT_EQ(a.cvar, "coll_tuned_allreduce_algorithm");
  std::vector<std::string> names;
  for (const auto& x : a.list) names.push_back(x.name);
  EXPECT_NE(std::find(names.begin(), names.end(), "ring"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "segmented_ring"), names.end());
  EXPECT_EQ(std::find(names.begin(), names.end(), "ignore"), names.end());
  EXPECT_TRUE(mpi_algorithms(Collective::kSendRecv).list.empty());
}

}  // namespace
}  // namespace preflight::correctness
