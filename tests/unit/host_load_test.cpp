#include "harness/run/host_load.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace preflight {
namespace {

TEST(HostLoad, ReadsTheCpuLineOfProcStat) {
  const auto t = parse_cpu_line("cpu  2100895 21689 851498 831086 53492 0 12208 35870 0 0", 100);
  ASSERT_TRUE(t.has_value());
  EXPECT_DOUBLE_EQ(t->user, 21008.95);
  EXPECT_DOUBLE_EQ(t->nice, 216.89);
  EXPECT_DOUBLE_EQ(t->steal, 358.70);
  EXPECT_DOUBLE_EQ(t->user_mode(), 21008.95 + 216.89);
  EXPECT_NEAR(t->total(), (2100895 + 21689 + 851498 + 831086 + 53492 + 12208 + 35870) / 100.0,
              1e-6);
  EXPECT_FALSE(parse_cpu_line("cpu0 1 2 3 4 5 6 7 8", 100)) << "a single CPU's line";
  EXPECT_FALSE(parse_cpu_line("cpu  1 2 3 4", 100)) << "a kernel that reports no steal";
  EXPECT_FALSE(parse_cpu_line("intr 1 2 3 4 5 6 7 8", 100));
  EXPECT_FALSE(parse_cpu_line("cpu  1 2 3 4 5 6 7 8", 0));
}

TEST(HostLoad, SharesOfTheWindowTakenByOthers) {
  CpuTimes before, after;
  before.user = 100, before.system = 50, before.idle = 800, before.steal = 10;
  after = before;
  after.user += 60, after.system += 20, after.idle += 100, after.steal += 20;  // 200 s in all
  const CpuTimes window = after - before;  // what rank 0 receives from each host
  EXPECT_DOUBLE_EQ(window.steal, 20);
  EXPECT_DOUBLE_EQ(window.total(), 200);
  EXPECT_DOUBLE_EQ(host_load(CpuTimes{}, window, 50).foreign, 0.05);
  const auto load = host_load(before, after, 50);  // the ranks' own user time: 50 of the 60
  EXPECT_DOUBLE_EQ(load.cpu_s, 200);
  EXPECT_DOUBLE_EQ(load.stolen, 0.1);
  EXPECT_DOUBLE_EQ(load.foreign, 0.05) << "system time is the kernel's, not a competitor's";
  EXPECT_DOUBLE_EQ(host_load(before, after, 70).foreign, -0.05)
      << "tick rounding stays signed, so that pooling cancels it";
  EXPECT_TRUE(std::isnan(host_load(before, after, std::nan("")).foreign)) << "no getrusage";
  const auto empty = host_load(before, before, 0);
  EXPECT_TRUE(std::isnan(empty.stolen));
  EXPECT_TRUE(std::isnan(empty.foreign));
  CpuTimes brief = before;  // 30 ticks in all: mostly rounding, not measured
  brief.user += 0.1, brief.idle += 0.2;
  const auto short_window = host_load(before, brief, 0.1);
  EXPECT_TRUE(std::isnan(short_window.stolen));
  EXPECT_TRUE(std::isnan(short_window.foreign));
  EXPECT_NEAR(short_window.cpu_s, 0.3, 1e-9);
}

}  // namespace
}  // namespace preflight
