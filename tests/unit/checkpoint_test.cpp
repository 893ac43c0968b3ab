// The checkpoint family's sizes (model presets split over ranks) and the report's interval
// arithmetic, against figures computed by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "checkpoint/model_presets.hpp"
#include "plugins/checkpoint_interval.hpp"

namespace {

using namespace preflight::checkpoint;
using namespace preflight::report::plugins;
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(CheckpointPresets, WholeCheckpointIsParametersTimesBytesPerParameter) {
  // 8,030,261,248 x 14 = 112,423,657,472 (MLPerf Storage's 8B checkpoint, about 105 GiB).
  ASSERT_NE(find_preset("llama3-8b"), nullptr);
  EXPECT_EQ(checkpoint_bytes(find_preset("llama3-8b")->parameters, kDefaultBytesPerParam),
            112'423'657'472ull);
  EXPECT_EQ(checkpoint_bytes(find_preset("llama3-70b")->parameters, 14), 987'751'890'944ull);
  EXPECT_EQ(checkpoint_bytes(find_preset("llama3-405b")->parameters, 14), 5'681'947'443'200ull);
  EXPECT_EQ(checkpoint_bytes(find_preset("1t")->parameters, 14), 14'000'000'000'000ull);
  // bf16 weights alone: 2 bytes a parameter.
  EXPECT_EQ(checkpoint_bytes(8'030'261'248, 2), 16'060'522'496ull);
  EXPECT_EQ(find_preset("gpt-5"), nullptr);
}

TEST(CheckpointPresets, ShardIsTheSplitRoundedUpToWholeBlocks) {
  // 112,423,657,472 / 8 = 14,052,957,184, up to 13,402 MiB = 14,053,015,552.
  EXPECT_EQ(shard_bytes(112'423'657'472ull, 1, 1, 8, 1 << 20), 14'053'015'552ull);
  EXPECT_EQ(shard_bytes(100, 2, 2, 1, 0), 25u);         // no rounding
  EXPECT_EQ(shard_bytes(10, 1, 1, 3, 4), 4u);           // ceil(10 / 3) = 4, a whole block
  EXPECT_EQ(shard_bytes(16384, 2, 1, 2, 4096), 4096u);  // tp x pp x dp = 4 shards
  EXPECT_EQ(shard_bytes(16385, 2, 1, 2, 4096), 8192u);  // one byte more: a block more
  EXPECT_EQ(shard_bytes(0, 1, 1, 1, 4096), 0u);
}

TEST(CheckpointInterval, JobMtbfIsNodeMtbfOverNodes) {
  EXPECT_DOUBLE_EQ(job_mtbf_s(6000 * 3600.0, 1000), 21'600);
  EXPECT_TRUE(std::isinf(job_mtbf_s(kInf, 1000)));
  EXPECT_TRUE(std::isnan(job_mtbf_s(3600, 0)));
}

TEST(CheckpointInterval, YoungDalyAndLostFractionByHand) {
  // save 50 s, job MTBF 10,000 s, restore 100 s: tau* = sqrt(2 x 50 x 10,000) = 1000 s;
  // lost = 50/1000 + 1000/20,000 + 100/10,000 = 0.05 + 0.05 + 0.01 = 0.11.
  EXPECT_DOUBLE_EQ(young_daly_interval_s(50, 10'000), 1000);
  const auto at = lost_fraction(1000, 50, 100, 10'000);
  EXPECT_DOUBLE_EQ(at.saving, 0.05);
  EXPECT_DOUBLE_EQ(at.recompute, 0.05);
  EXPECT_DOUBLE_EQ(at.restore, 0.01);
  EXPECT_DOUBLE_EQ(at.total(), 0.11);
  const auto closed = lost_fraction_at_optimum(50, 100, 10'000);
  EXPECT_DOUBLE_EQ(closed.saving, 0.05);
  EXPECT_DOUBLE_EQ(closed.recompute, 0.05);
  EXPECT_DOUBLE_EQ(closed.total(), 0.11);
  // Half and twice the optimum lose the same, more: 0.1 + 0.025 + 0.01 = 0.135.
  EXPECT_DOUBLE_EQ(lost_fraction(500, 50, 100, 10'000).total(), 0.135);
  EXPECT_DOUBLE_EQ(lost_fraction(2000, 50, 100, 10'000).total(), 0.135);
}

TEST(CheckpointInterval, SaveTimeToZero) {
  // A free save: save as often as you like; only the restore is lost, R / M = 0.01.
  EXPECT_DOUBLE_EQ(young_daly_interval_s(0, 10'000), 0);
  EXPECT_DOUBLE_EQ(lost_fraction_at_optimum(0, 100, 10'000).total(), 0.01);
  EXPECT_NEAR(lost_fraction_at_optimum(1e-12, 100, 10'000).total(), 0.01, 1e-7);
  EXPECT_NEAR(young_daly_interval_s(1e-12, 10'000), std::sqrt(2e-8), 1e-15);
}

TEST(CheckpointInterval, MtbfToInfinity) {
  // No failures: never save; nothing is lost but what a planned save costs.
  EXPECT_TRUE(std::isinf(young_daly_interval_s(50, kInf)));
  EXPECT_DOUBLE_EQ(lost_fraction_at_optimum(50, 100, kInf).total(), 0);
  const auto planned = lost_fraction(1000, 50, 100, kInf);
  EXPECT_DOUBLE_EQ(planned.saving, 0.05);
  EXPECT_DOUBLE_EQ(planned.recompute, 0);
  EXPECT_DOUBLE_EQ(planned.restore, 0);
  // Approaching it: 2 sqrt(50 / 2e18) + 100 / 1e18 = 1e-8 + 1e-16.
  EXPECT_NEAR(lost_fraction_at_optimum(50, 100, 1e18).total(), 1e-8, 1e-15);
  EXPECT_DOUBLE_EQ(lost_fraction(kInf, 50, 100, 1e18).saving, 0);
}

}  // namespace
