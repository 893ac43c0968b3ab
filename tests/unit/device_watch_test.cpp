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

// Case `k` of a run of 5 ranks that watches each rule: a throttle (zero), an SM clock (peers,
// read by two ranks in case 2: not judged there), a link width (reference: ranks 3 and 4 trained
// narrow, read in cases 0, 2, 3; rank 4 not in case 0) and a temperature (margin: rank 1 within it
// from case 1). Rank 2's clock is furthest from its peers' in case 0, rank 1's in case 3: the
// detail is that case's.
CaseData watching_case(std::size_t k) {
  const auto series = [](s::Watch rule, std::vector<double> per_rank) {
    WatchedSeries w;
    w.rule = rule;
    w.finding = "broke its rule";
    w.tolerance = rule == s::Watch::kPeers ? 0.1 : 5;
    w.reference = "limit";
    w.unit = rule == s::Watch::kPeers ? "MHz" : "";
    w.remedy = s::Remedy::kReboot;
    w.per_rank = std::move(per_rank);
    return w;
  };
  const double x = static_cast<double>(k);
  CaseData c;
  c.group_name = "00000" + std::to_string(k);
  c.name = "case";
  auto throttle = series(s::Watch::kZero, {0, k == 1 ? 8.0 : 0.0, 0, 0, 0});
  throttle.readings = {10, 10, 10, 10, 10};
  throttle.broken = {0, k == 1 ? 3U : 0U, 0, 0, 0};
  c.watched["gpu_throttle"] = throttle;
  c.watched["gpu_sm_mhz"] =
      k == 2 ? series(s::Watch::kPeers, {1980, kMissing, 1500, kMissing, kMissing})
             : series(s::Watch::kPeers, {1980, 1980 - 150 * x, 1500 + 10 * x, 1980, 1980});
  if (k != 1) {
    auto width = series(s::Watch::kReference, {16, 16, 16, 8, k == 0 ? kMissing : 8});
    width.reference_per_rank = {16, 16, 16, 16, 16};
    c.watched["pcie_width"] = width;
  }
  auto temp = series(s::Watch::kMargin, {70, 84 + x, 60, 50, 50});
  temp.reference_per_rank = {90, 90, 90, 90, 90};
  c.watched["gpu_temp_c"] = temp;
  return c;
}

// A run's cases judged in two parts, split anywhere and joined in order, give what judging them
// all at once gives: the same findings in the same order, their cases, their worst details, the
// reference rule over the whole run and what could not be judged (a soak's rounds are judged so).
TEST(DeviceWatch, CasesJudgedInPartsAndJoinedInOrderAreJudgedAsAWhole) {
  RunData run;
  run.world_size = 5;
  for (std::size_t k = 0; k < 4; ++k) run.cases.push_back(watching_case(k));
  const auto whole = find_watch_findings(run);
  ASSERT_EQ(whole.size(), 6u);  // clock 2, temperature 1, throttle 1, clock 1, width 3 and 4
  EXPECT_EQ(whole[0].detail.rfind("median 1500 MHz", 0), 0u) << whole[0].detail;
  EXPECT_EQ(whole[4].series, "pcie_width");
  EXPECT_EQ(whole[4].cases,
            (std::vector<std::string>{"000000 case", "000002 case", "000003 case"}));
  EXPECT_EQ(whole[5].rank, 4);
  EXPECT_EQ(whole[5].cases, (std::vector<std::string>{"000002 case", "000003 case"}));
  EXPECT_EQ(watch_not_judged(run).size(), 1u);
  for (std::size_t split = 0; split <= run.cases.size(); ++split) {
    preflight::report::WatchJudgement first, second;
    for (std::size_t k = 0; k < run.cases.size(); ++k)
      (k < split ? first : second).add(run, run.cases[k]);
    first.join(std::move(second));
    EXPECT_EQ(first.findings(run), whole) << "split at " << split;
    EXPECT_EQ(first.not_judged(), watch_not_judged(run)) << "split at " << split;
  }
}

}  // namespace
