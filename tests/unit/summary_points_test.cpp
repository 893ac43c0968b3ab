// A soak's summary points (results-schema/SPEC.md, "Soak", "Summary points"): the reductions the
// writer stores and the reader computes from full points (preflight/schema/point_summary.hpp),
// on hand-made matrices; and one case written both ways by the results sink reads back the same.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "harness/run/record.hpp"
#include "harness/sinks/hdf5_sink.hpp"
#include "preflight/schema/layout.hpp"
#include "preflight/schema/point_summary.hpp"
#include "preflight/schema/telemetry.hpp"
#include "reader/results_reader.hpp"

namespace {

namespace fs = std::filesystem;
namespace s = preflight::schema;
namespace h5 = preflight::h5;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Rank 1 idles; 3 iterations x 4 ranks.
const std::vector<std::int64_t> kGroups = {0, -1, 0, 0};
const std::vector<double> kTimes = {1, kNaN, 3, 2,  //
                                    4, kNaN, 1, 1,  //
                                    2, kNaN, 2, 5};

TEST(PointSummary, SlowestPerIterationIsTheSlowestActiveRanks) {
  const std::vector<double> slowest = s::slowest_per_iteration({kTimes, 3, 4}, kGroups);
  EXPECT_EQ(slowest, (std::vector<double>{3, 4, 5}));
  // An idle rank's time is not the iteration's, even where it has one.
  const std::vector<double> idle_slow = {1, 9, 1, 1};
  EXPECT_EQ(s::slowest_per_iteration({idle_slow, 1, 4}, kGroups), (std::vector<double>{1}));
}

TEST(PointSummary, RankMediansDivideByTheWorkCounter) {
  const auto plain = s::rank_medians({kTimes, 3, 4}, nullptr, kGroups);
  EXPECT_EQ(plain[0], 2);
  EXPECT_TRUE(std::isnan(plain[1]));
  EXPECT_EQ(plain[2], 2);
  EXPECT_EQ(plain[3], 2);
  const std::vector<double> work = {1, 1, 1, 1,  //
                                    2, 1, 1, 4,  //
                                    2, 1, 4, 5};
  const auto per_work = s::rank_medians({kTimes, 3, 4}, &work, kGroups);
  EXPECT_EQ(per_work[0], 1);    // 1, 2, 1
  EXPECT_EQ(per_work[2], 1);    // 3, 1, 0.5
  EXPECT_EQ(per_work[3], 1.0);  // 2, 0.25, 1
}

TEST(PointSummary, CounterMediansTotalsAndFaultCells) {
  const std::vector<double> faults = {0,    7,    0,    0,  //
                                      kNaN, kNaN, kNaN, kNaN, 0, 0, 2, 3};
  const auto per_iteration = s::counter_per_iteration({faults, 3, 4}, kGroups);
  ASSERT_EQ(per_iteration.medians.size(), 3u);
  EXPECT_EQ(per_iteration.medians[0], 0);  // the idle rank's 7 is not counted
  EXPECT_TRUE(std::isnan(per_iteration.medians[1]));
  EXPECT_EQ(per_iteration.medians[2], 2);
  EXPECT_EQ(per_iteration.totals, (std::vector<double>{0, 0, 5}));
  const auto cells = s::fault_cells({faults, 3, 4});
  ASSERT_EQ(cells.size(), 3u);
  EXPECT_EQ(cells[0].iteration, 0u);
  EXPECT_EQ(cells[0].rank, 1);
  EXPECT_EQ(cells[2].iteration, 2u);
  EXPECT_EQ(cells[2].rank, 3);
  EXPECT_EQ(cells[2].value, 3);
  EXPECT_TRUE(s::counts_faults(s::Kind::kCount, s::Direction::kLower));
  EXPECT_FALSE(s::counts_faults(s::Kind::kCount, s::Direction::kHigher));
}

// A watched telemetry series as read over two points: each rule's figure per rank.
TEST(PointSummary, WatchedSeriesSummarisedByTheirRule) {
  std::vector<std::vector<double>> throttle, sm, width, max_width;
  s::append_readings({std::vector<double>{0, 8, kNaN, 0, 0x20, kNaN}, 2, 3}, throttle);
  s::append_readings({std::vector<double>{0, 0x40, kNaN}, 1, 3}, throttle);
  const auto zero = s::summarise_watched(s::Watch::kZero, throttle, {}, 3);
  EXPECT_EQ(zero.per_rank[0], 0);
  EXPECT_EQ(zero.per_rank[1], 0x8 | 0x20 | 0x40);
  EXPECT_TRUE(std::isnan(zero.per_rank[2]));
  EXPECT_EQ(zero.readings, (std::vector<s::ReadingCount>{3, 3, 0}));
  EXPECT_EQ(zero.broken, (std::vector<s::ReadingCount>{0, 3, 0}));
  EXPECT_TRUE(zero.reference_per_rank.empty());

  s::append_readings({std::vector<double>{1980, 1500, 1970, 1400, 1975, kNaN}, 3, 2}, sm);
  const auto peers = s::summarise_watched(s::Watch::kPeers, sm, {}, 2);
  EXPECT_EQ(peers.per_rank[0], 1975);
  EXPECT_EQ(peers.per_rank[1], 1450);

  s::append_readings({std::vector<double>{16, 8, 8, 8}, 2, 2}, width);
  s::append_readings({std::vector<double>{16, 16, 16, 16}, 2, 2}, max_width);
  const auto reference = s::summarise_watched(s::Watch::kReference, width, max_width, 2);
  EXPECT_EQ(reference.per_rank, (std::vector<double>{16, 8}));
  EXPECT_EQ(reference.reference_per_rank, (std::vector<double>{16, 16}));
}

// A reading held against a limit the device reports: its highest reading, and the limit at its
// strictest (the lowest of the limit's readings), so that a threshold read once lower counts.
TEST(PointSummary, AMarginIsTheHottestReadingAgainstTheLowestLimit) {
  std::vector<std::vector<double>> temp, limit;
  // 3 ranks over 2 rows: rank 1 peaks at 88, rank 2 has no readings.
  s::append_readings({std::vector<double>{70, 85, kNaN, 72, 88, kNaN}, 2, 3}, temp);
  s::append_readings({std::vector<double>{90, 91, kNaN, 90, 90, kNaN}, 2, 3}, limit);
  const auto margin = s::summarise_watched(s::Watch::kMargin, temp, limit, 3);
  EXPECT_EQ(margin.per_rank[0], 72);
  EXPECT_EQ(margin.per_rank[1], 88);
  EXPECT_TRUE(std::isnan(margin.per_rank[2]));
  EXPECT_EQ(margin.reference_per_rank[0], 90);
  EXPECT_EQ(margin.reference_per_rank[1], 90);
  EXPECT_TRUE(std::isnan(margin.reference_per_rank[2]));
}

// A count since the driver loaded: one that stands still, however high, breaks nothing; one
// that rises during the case is its rise, each step up counted.
TEST(PointSummary, AGrowingCountIsItsRiseOverTheCase) {
  std::vector<std::vector<double>> ecc;
  // 3 ranks: 5 errors from before and no more; 0 then 1 then 3 over two points; no readings.
  s::append_readings({std::vector<double>{5, 0, kNaN, 5, 1, kNaN}, 2, 3}, ecc);
  s::append_readings({std::vector<double>{5, 3, kNaN}, 1, 3}, ecc);
  const auto grows = s::summarise_watched(s::Watch::kGrows, ecc, {}, 3);
  EXPECT_EQ(grows.per_rank[0], 0);
  EXPECT_EQ(grows.per_rank[1], 3);
  EXPECT_TRUE(std::isnan(grows.per_rank[2]));
  EXPECT_EQ(grows.readings, (std::vector<s::ReadingCount>{3, 3, 0}));
  EXPECT_EQ(grows.broken, (std::vector<s::ReadingCount>{0, 2, 0}));
}

// A case with a work counter, a counter of faults, back-to-back blocks, an event series, three
// watched series and one nobody watches, on 4 ranks of which one idles.
constexpr s::Column kWork{"work",      s::Type::kFloat64,     "B",
                          "work done", s::Direction::kHigher, s::Kind::kCount};
constexpr s::Column kFaults{"faults",       s::Type::kFloat64,    "",
                            "faults found", s::Direction::kLower, s::Kind::kCount};
constexpr s::Column kEvents{"events", s::Type::kFloat64,   "",
                            "events", s::Direction::kNone, s::Kind::kLabel};

const s::SeriesWatch* watch_of(const s::Column& series) {
  return &s::kTelemetryWatches[s::index_in(s::kTelemetrySeries, series)];
}

preflight::PointResult point(std::size_t index, double scale) {
  preflight::PointResult p;
  p.index = index;
  p.iterations = 3;
  p.stop_reason = std::string(s::stop_reason::kMaxIterations);
  for (double t : kTimes) p.samples.push_back(t * scale);
  p.batch_blocks = 2;
  p.batch_ops = 10;
  p.batched = {0.1, kNaN, 0.3, 0.2, 0.4, kNaN, 0.1, 0.5};
  p.wrong_per_rank = {0, 0, 3, 0};
  p.counter_specs = {{&kWork, 0, nullptr}, {&kFaults, 0, nullptr}};
  p.counters = {{1, kNaN, 2, 2, 2, kNaN, 1, 4, 2, kNaN, 4, 5},
                {0, kNaN, 0, 0, 0, kNaN, 1, 0, 0, kNaN, 0, 2 * scale}};
  namespace t = s::telemetry;
  p.series_specs = {
      {&t::kCpuMhzSeries, s::kTelemetryIntervalS, nullptr},
      {&t::kGpuThrottleSeries, s::kTelemetryIntervalS, watch_of(t::kGpuThrottleSeries)},
      {&t::kGpuSmMhzSeries, s::kTelemetryIntervalS, watch_of(t::kGpuSmMhzSeries)},
      {&t::kGpuPcieWidthSeries, s::kTelemetryIntervalS, watch_of(t::kGpuPcieWidthSeries)},
      {&t::kGpuPcieMaxWidthSeries, s::kTelemetryIntervalS, nullptr},
      {&kEvents, 0, nullptr}};
  p.series = {{2000, kNaN, 2001, 2002},
              {0, kNaN, 8 * scale, 0, 0, kNaN, 0, 0x20},
              {1980, kNaN, 1500 * scale, 1970, 1975, kNaN, 1400, 1960},
              {16, kNaN, 8, 16},
              {16, kNaN, 16, 16},
              {kNaN, kNaN, 5, kNaN}};
  p.series_rows = {1, 2, 2, 1, 1, 1};
  p.groups.push_back({});
  p.groups.back().ranks = 3;
  return p;
}

preflight::CaseRecord sample_case() {
  preflight::CaseRecord c;
  c.name = "c";
  c.family = "memory";
  c.backend = "cuda";
  c.status = "ok";
  c.group_of_rank = {0, -1, 0, 0};
  c.group_count = 1;
  c.params = {preflight::attr(s::harness::kBenchmark, "b"),
              preflight::attr(s::harness::kVariant, "default"),
              {std::string(s::harness::kRepetition.name), std::int64_t{0}, "", false}};
  c.meaning.work_counter = std::string(kWork.name);
  c.points = {point(0, 1.0), point(1, 2.0)};
  return c;
}

class SummaryPoints : public ::testing::Test {
 protected:
  void SetUp() override {
    h5::silence_library_errors();
    std::string pattern = (fs::temp_directory_path() / "summary-points-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, bool summaries) {
    const std::string path = (dir_ / name).string();
    preflight::RunInfo run{"preflight run c.yaml", "{}", "2026-12-01T00:00:00Z", 4, 1};
    run.summary_points = summaries;
    std::vector<preflight::RankEnvironment> env(4);
    for (std::size_t r = 0; r < env.size(); ++r) env[r].rank = static_cast<std::int64_t>(r);
    auto sink = preflight::Hdf5Sink::create(path, run, env);
    sink->case_finished(sample_case());
    sink->run_finished("complete", 0, "");
    return path;
  }
  fs::path dir_;
};

// NaN-aware equality of per-rank figures.
void expect_same(const std::vector<double>& a, const std::vector<double>& b, const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(std::isnan(a[i]) && std::isnan(b[i]))) {
      EXPECT_EQ(a[i], b[i]) << what << " [" << i << "]";
    }
}
void expect_same(const std::vector<std::vector<double>>& a,
                 const std::vector<std::vector<double>>& b, const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t i = 0; i < a.size(); ++i) expect_same(a[i], b[i], what);
}

TEST_F(SummaryPoints, TheReaderFillsTheSameCaseDataFromEitherForm) {
  const auto full = preflight::report::read_run(write("full.h5", false)).cases.at(0);
  const auto summary = preflight::report::read_run(write("summary.h5", true)).cases.at(0);
  EXPECT_EQ(full.params.at("samples"), "full");
  EXPECT_EQ(summary.params.at("samples"), "summary");
  expect_same(full.rank_medians, summary.rank_medians, "rank_medians");
  expect_same(full.rank_batched_medians, summary.rank_batched_medians, "rank_batched_medians");
  expect_same(full.iteration_times, summary.iteration_times, "iteration_times");
  ASSERT_EQ(full.iteration_counters.size(), 2u);
  for (const auto& [name, per_point] : full.iteration_counters) {
    expect_same(per_point, summary.iteration_counters.at(name), name.c_str());
    expect_same(full.iteration_totals.at(name), summary.iteration_totals.at(name), name.c_str());
  }
  ASSERT_EQ(full.fault_cells.size(), 1u);
  const auto& cells = full.fault_cells.at("faults");
  const auto& summary_cells = summary.fault_cells.at("faults");
  ASSERT_EQ(cells.size(), summary_cells.size());
  for (std::size_t p = 0; p < cells.size(); ++p) {
    ASSERT_EQ(cells[p].size(), summary_cells[p].size());
    for (std::size_t k = 0; k < cells[p].size(); ++k) {
      EXPECT_EQ(cells[p][k].iteration, summary_cells[p][k].iteration);
      EXPECT_EQ(cells[p][k].rank, summary_cells[p][k].rank);
      EXPECT_EQ(cells[p][k].value, summary_cells[p][k].value);
    }
  }
  ASSERT_EQ(full.watched.size(), 3u);
  ASSERT_EQ(summary.watched.size(), 3u);
  for (const auto& [name, w] : full.watched) {
    const auto& o = summary.watched.at(name);
    EXPECT_EQ(w.rule, o.rule) << name;
    EXPECT_EQ(w.finding, o.finding) << name;
    EXPECT_EQ(w.unit, o.unit) << name;
    EXPECT_EQ(w.tolerance, o.tolerance) << name;
    EXPECT_EQ(w.reference, o.reference) << name;
    EXPECT_EQ(w.labels, o.labels) << name;
    expect_same(w.per_rank, o.per_rank, name.c_str());
    expect_same(w.reference_per_rank, o.reference_per_rank, name.c_str());
    EXPECT_EQ(w.readings, o.readings) << name;
    EXPECT_EQ(w.broken, o.broken) << name;
  }
  EXPECT_EQ(full.watched.at("gpu_throttle").per_rank[2], 8 | 16);
  EXPECT_EQ(full.watched.at("gpu_throttle").per_rank[3], 0x20);
  EXPECT_EQ(full.wrong_per_rank, summary.wrong_per_rank);
  ASSERT_EQ(full.event_series.count("events"), 1u);
  EXPECT_EQ(full.event_series.at("events").size(), summary.event_series.at("events").size());
  EXPECT_EQ(full.event_series.at("events")[1].at(2), summary.event_series.at("events")[1].at(2));
  EXPECT_EQ(full.group_of_rank, summary.group_of_rank);
  EXPECT_EQ(full.batch_ops, summary.batch_ops);
}

// The summary file has no matrices of iterations x ranks, and no series nobody watches.
TEST_F(SummaryPoints, ASummaryPointHoldsNoMatrices) {
  const auto path = write("summary.h5", true);
  h5::Handle file = h5::open_file_read(path);
  h5::Handle point = h5::open_group(file.get(), "cases/000000/points/0000");
  EXPECT_FALSE(h5::exists(point.get(), s::kSamples));
  EXPECT_FALSE(h5::exists(point.get(), s::kBatched));
  EXPECT_FALSE(h5::exists(point.get(), s::kCountersGroup));
  EXPECT_TRUE(h5::exists(point.get(), s::kRankTimeMedian));
  h5::Handle series = h5::open_group(point.get(), s::kSeriesGroup);
  EXPECT_EQ(h5::child_names(series.get()), (std::vector<std::string>{"events"}));
  h5::Handle watched = h5::open_group(file.get(), "cases/000000/watched");
  EXPECT_EQ(h5::child_names(watched.get()),
            (std::vector<std::string>{"gpu_pcie_width", "gpu_sm_mhz", "gpu_throttle"}));
}

// A case attribute samples of neither form is a read error naming it.
TEST_F(SummaryPoints, AnUnknownFormIsAReadError) {
  const auto path = write("summary.h5", true);
  {
    h5::Handle file = h5::open_file_write(path);
    h5::Handle c = h5::open_group(file.get(), "cases/000000");
    h5::set_attribute(c.get(), "samples", std::string_view("some"));
  }
  try {
    preflight::report::read_run(path);
    FAIL() << "read a case whose samples attribute is 'some'";
  } catch (const preflight::report::ReadError& e) {
    EXPECT_NE(std::string(e.what()).find("'samples' is 'some'"), std::string::npos) << e.what();
  }
}

}  // namespace
