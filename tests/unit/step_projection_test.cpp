// The step projection's terms, overlap and extrapolation, on figures made by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "plugins/step_projection.hpp"
#include "step_tiny_model.hpp"

namespace preflight::report::plugins::step_projection {
namespace {

// The tiny transformer of step_model_test: 204 parameters, 3168 FLOPs a sample (2112 backward).
step::Workload tiny_workload() {
  step::Workload w;
  w.model = step::testing::tiny_model();
  w.ranks_per_node = 2;
  w.global_batch = 4;
  w.micro_batch = 1;
  w.bucket_bytes = 100;  // 408 gradient bytes: 4 buckets of 100 and one of 8
  return w;
}

// All-reduce measured on 2 ranks: 50 B in 0.05 s, 200 B in 0.1 s (algbw 1000 and 2000 B/s).
CollectiveFigures allreduce() {
  return {.collective = "allreduce",
          .measured = {{.ranks = 2,
                        .nodes = 1,
                        .sizes = {50, 200},
                        .seconds = {0.05, 0.1},
                        .source = "case c in f.h5"}},
          .alpha_s = 0.001,
          .beta_s_per_byte = 1e-4,
          .fit_source = "fit"};
}

Inputs tiny_inputs() {
  return {.workload = tiny_workload(),
          .rates = {{.flops = 1, .flops_per_s = 1000, .source = "case m in f.h5"}},
          .collectives = {allreduce()}};
}

TEST(StepProjection, GemmRateInterpolatesInLogFlops) {
  const std::vector<RatePoint> rates = {{100, 1000, "a"}, {10000, 3000, "b"}};
  EXPECT_DOUBLE_EQ(gemm_rate(rates, 1000).seconds, 2000);  // halfway in log: halfway in rate
  EXPECT_DOUBLE_EQ(gemm_rate(rates, 10).seconds, 1000);    // below: the smallest's
  EXPECT_DOUBLE_EQ(gemm_rate(rates, 1e6).seconds, 3000);   // above: the largest's
  EXPECT_THROW(gemm_rate({}, 1), std::invalid_argument);
  // Two shapes of equal FLOPs count as their mean; an exact shape is read as measured.
  const std::vector<RatePoint> same = {
      {100, 1000, "a", 5, 5, 2}, {100, 3000, "b", 2, 5, 5}, {10000, 3000, "c"}};
  EXPECT_DOUBLE_EQ(gemm_rate(same, 100).seconds, 2000);
  EXPECT_DOUBLE_EQ(gemm_rate(same, 1000).seconds, 2500);
  EXPECT_DOUBLE_EQ(shape_rate(same, {"g", 2, 5, 5, 1}).seconds, 3000);
  EXPECT_DOUBLE_EQ(shape_rate(same, {"g", 5, 2, 5, 1}).seconds, 2000);
}

TEST(StepProjection, CollectiveInterpolatedMeasuredAndExtrapolated) {
  const auto c = allreduce();
  // 100 B is halfway in log between 50 and 200: algbw 1500 B/s.
  EXPECT_NEAR(collective_time(c, 2, 100).seconds, 100.0 / 1500, 1e-12);
  EXPECT_DOUBLE_EQ(collective_time(c, 2, 8).seconds, 0.05);   // below: the smallest's time
  EXPECT_DOUBLE_EQ(collective_time(c, 2, 800).seconds, 0.4);  // above: the largest's algbw
  // 4 ranks were not measured: the 2 ranks' 1/15 s times the ring model's ratio,
  // (6 alpha + 1.5 x 100 beta) / (2 alpha + 1 x 100 beta) = 0.021 / 0.012.
  const auto p = collective_time(c, 4, 100);
  EXPECT_NEAR(p.seconds, 1.0 / 15 * 0.021 / 0.012, 1e-12);
  EXPECT_NE(p.how.find("ring"), std::string::npos);
  EXPECT_NE(p.how.find("extrapolated from 2 ranks"), std::string::npos);
  // Nothing measured below: the model alone, 2(n-1) alpha + 2(n-1)/n S beta.
  auto unanchored = c;
  unanchored.measured.clear();
  EXPECT_NEAR(collective_time(unanchored, 4, 100).seconds, 0.006 + 0.015, 1e-12);
  EXPECT_EQ(collective_time(c, 1, 100).seconds, 0);
  auto unfitted = c;
  unfitted.alpha_s = -1;
  EXPECT_TRUE(std::isnan(collective_time(unfitted, 4, 100).seconds));
}

TEST(StepProjection, OverlapHidesUpToTheWindowNeverTheLastBucket) {
  EXPECT_DOUBLE_EQ(exposed_comm(3, 2, 0.5, true), 1);      // 1 s outlasts the window
  EXPECT_DOUBLE_EQ(exposed_comm(3, 2, 1.5, true), 1.5);    // the last bucket is longer
  EXPECT_DOUBLE_EQ(exposed_comm(3, 5, 0.5, true), 0.5);    // hidden but the last bucket
  EXPECT_DOUBLE_EQ(exposed_comm(0.3, 5, 0.5, true), 0.3);  // never more than all of it
  EXPECT_DOUBLE_EQ(exposed_comm(3, 5, 0.5, false), 3);     // no overlap: all of it
}

TEST(StepProjection, OneNodeByHand) {
  const auto p = project(tiny_inputs(), 1);
  ASSERT_EQ(p.layout.problem, "");
  // 2 data-parallel ranks, 4 samples: 2 micro-batches of 3168 FLOPs at 1000 FLOP/s.
  EXPECT_EQ(p.layout.accumulation, 2);
  EXPECT_NEAR(p.terms.compute_s, 2 * 3.168, 1e-12);
  EXPECT_NEAR(p.terms.backward_s, 2.112, 1e-12);
  // 4 buckets of 100 B at 1/15 s and the last of 8 B at 0.05 s; hidden but the last bucket.
  EXPECT_NEAR(p.terms.comm_s, 4.0 / 15 + 0.05, 1e-12);
  EXPECT_NEAR(p.terms.comm_exposed_s, 0.05, 1e-12);
  EXPECT_NEAR(p.terms.step_s, 6.336 + 0.05, 1e-12);
  EXPECT_EQ(p.terms.bottleneck, "compute");
  EXPECT_LT(p.terms.data_s, 0);  // not measured, and said so
  bool said = false;
  for (const auto& line : p.how) said |= line.find("data: not measured") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(StepProjection, WithoutOverlapEveryBucketShows) {
  auto in = tiny_inputs();
  in.workload.overlap = false;
  EXPECT_NEAR(project(in, 1).terms.comm_exposed_s, 4.0 / 15 + 0.05, 1e-12);
}

TEST(StepProjection, TwoNodesExtrapolatedWithAlphaBeta) {
  const auto p = project(tiny_inputs(), 2);
  // 4 data-parallel ranks: 1 micro-batch; buckets extrapolated from the 2 ranks measured: 100 B
  // at 1/15 s x 0.021 / 0.012; 8 B at 0.05 s (the smallest size's) x (0.006 + 1.5 x 8e-4) /
  // (0.002 + 8e-4).
  const double full = 1.0 / 15 * 0.021 / 0.012, last = 0.05 * 0.0072 / 0.0028;
  EXPECT_EQ(p.layout.accumulation, 1);
  EXPECT_NEAR(p.terms.compute_s, 3.168, 1e-12);
  EXPECT_NEAR(p.terms.comm_s, 4 * full + last, 1e-12);
  EXPECT_NEAR(p.terms.comm_exposed_s, last, 1e-12);
  // Efficiency at a fixed global batch: T(1) / (2 T(2)).
  EXPECT_NEAR(scaling_efficiency(tiny_inputs(), 2), 6.386 / (2 * (3.168 + last)), 1e-12);
}

TEST(StepProjection, ShardedSumsReduceScatterAndAllGather) {
  auto in = tiny_inputs();
  in.workload.overlap = false;
  auto rs = allreduce(), ag = allreduce();
  rs.collective = "reducescatter";
  ag.collective = "allgather";
  in.collectives = {rs, ag};
  EXPECT_NEAR(project(in, 1).terms.comm_s, 2 * (4.0 / 15 + 0.05), 1e-12);
}

TEST(StepProjection, SlowLinkMakesCommunicationTheBottleneck) {
  auto in = tiny_inputs();
  in.workload.overlap = false;
  in.collectives[0].measured[0].seconds = {5, 10};  // 100x slower: 100 B at 1/15 x 100 s
  const auto p = project(in, 1);
  EXPECT_NEAR(p.terms.comm_exposed_s, 400.0 / 15 + 5, 1e-9);
  EXPECT_EQ(p.terms.bottleneck, "communication");
}

TEST(StepProjection, DataPrefetchedShowsOnlyWhatOutlastsTheRest) {
  auto in = tiny_inputs();
  in.data_samples_per_s = {1, "case d in f.h5"};  // 2 samples a rank: 2 s, hidden
  auto p = project(in, 1);
  EXPECT_NEAR(p.terms.data_s, 2, 1e-12);
  EXPECT_EQ(p.terms.data_exposed_s, 0);
  in.data_samples_per_s.value = 0.1;  // 20 s: 20 - 6.386 shows
  p = project(in, 1);
  EXPECT_NEAR(p.terms.data_exposed_s, 20 - 6.386, 1e-12);
  EXPECT_EQ(p.terms.bottleneck, "data");
}

TEST(StepProjection, DataOnTheGemmsCpusHidesOnlyBehindTheGradient) {
  auto in = tiny_inputs();
  in.data_samples_per_s = {1, "case d in f.h5"};     // 2 samples a rank: 2 s
  const double alone = project(in, 1).terms.step_s;  // hidden behind 6.386 s
  in.data_shares_compute_cpus = true;  // a CPU GEMM backend: the workers take the GEMMs' cores
  auto p = project(in, 1);
  ASSERT_GT(p.terms.comm_exposed_s, 0);
  ASSERT_LT(p.terms.comm_exposed_s, 2);
  EXPECT_NEAR(p.terms.data_exposed_s, 2 - p.terms.comm_exposed_s, 1e-12);
  EXPECT_NEAR(p.terms.step_s, alone + 2 - p.terms.comm_exposed_s, 1e-12);
  in.data_samples_per_s.value = 0.1;  // 20 s: more than compute and communication together
  p = project(in, 1);
  EXPECT_NEAR(p.terms.data_exposed_s, 20 - p.terms.comm_exposed_s, 1e-12);
  EXPECT_EQ(p.terms.bottleneck, "data");
}

TEST(StepProjection, CheckpointCostPerStep) {
  auto in = tiny_inputs();
  in.workload.checkpoint_bytes = 1000;
  in.workload.checkpoint_interval_s = 100;
  auto p = project(in, 1);
  EXPECT_LT(p.terms.checkpoint_s, 0);                   // planned but not measured
  in.checkpoint_bytes_per_s = {100, "case k in f.h5"};  // a 10 s save every 100 s
  p = project(in, 1);
  EXPECT_NEAR(p.terms.checkpoint_s, 10 * 6.386 / 100, 1e-12);
  EXPECT_NEAR(p.terms.step_s, 6.386 * 1.1, 1e-12);
}

TEST(StepProjection, MfuScalesCompute) {
  auto in = tiny_inputs();
  in.workload.mfu = 0.5;
  EXPECT_NEAR(project(in, 1).terms.compute_s, 2 * 3.168 * 2, 1e-12);
}

TEST(StepProjection, LayoutProblemIsSaidNotPriced) {
  auto in = tiny_inputs();
  in.workload.global_batch = 3;
  const auto p = project(in, 1);
  EXPECT_TRUE(std::isnan(p.terms.step_s));
  ASSERT_FALSE(p.how.empty());
  EXPECT_NE(p.how[0].find("global_batch"), std::string::npos);
  EXPECT_TRUE(std::isnan(scaling_efficiency(in, 2)));
}

}  // namespace
}  // namespace preflight::report::plugins::step_projection
