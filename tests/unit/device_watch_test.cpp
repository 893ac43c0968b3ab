// The report's device watch (analysis/device_watch.hpp) on watched series made by hand: what a
// rule names, at its edges.
#include <gtest/gtest.h>

#include <limits>
#include <utility>
#include <vector>

#include "analysis/device_watch.hpp"

namespace {

namespace s = preflight::schema;
using preflight::report::CaseData;
using preflight::report::RunData;
using preflight::report::WatchedSeries;

constexpr double kMissing = std::numeric_limits<double>::quiet_NaN();  // no reading, no limit

// One case of 4 ranks whose GPUs peaked at `hottest` under the slowdown limits `limit`.
RunData one_case(std::vector<double> hottest, std::vector<double> limit) {
  WatchedSeries w;
  w.rule = s::Watch::kMargin;
  w.finding = "close to its slowdown temperature";
  w.unit = "C";
  w.tolerance = 5;
  w.reference = "gpu_slowdown_temp_c";
  w.remedy = s::Remedy::kIsolate;
  w.per_rank = std::move(hottest);
  w.reference_per_rank = std::move(limit);
  CaseData c;
  c.group_name = "000000";
  c.name = "gemm";
  c.watched["gpu_temp_c"] = w;
  RunData run;
  run.world_size = 4;
  run.cases.push_back(c);
  return run;
}

// A reading must stay more than the margin below its own limit: exactly the margin short is
// named, a tenth of a degree more is not, past the limit is; a rank without its limit or without
// readings is not judged, whatever its temperature.
TEST(DeviceWatch, AMarginIsKeptOnlyByStayingMoreThanItBelowTheDevicesOwnLimit) {
  const auto found = find_watch_findings(one_case({85, 84.9, 95, 99}, {90, 90, 92, kMissing}));
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].rank, 0);
  EXPECT_EQ(found[0].detail,
            "highest reading 85 C, 5 C short of gpu_slowdown_temp_c 90 C (margin 5 C)");
  EXPECT_EQ(found[0].remedy, s::Remedy::kIsolate);
  EXPECT_EQ(found[1].rank, 2);
  EXPECT_EQ(found[1].detail,
            "highest reading 95 C, 3 C past gpu_slowdown_temp_c 92 C (margin 5 C)");
  EXPECT_TRUE(find_watch_findings(one_case({84.9, kMissing, 70, 70}, {90, 90, 90, 90})).empty());
}

}  // namespace
