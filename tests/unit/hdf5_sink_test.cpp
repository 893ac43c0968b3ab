// The results sink's text that would not fit an attribute (results-schema/SPEC.md,
// "Integrity"): the run's own config or command line is refused before any file is made, a
// timeout message it composes is cut to fit. A watched series carries its watch, and a case
// attribute that no declaration names is refused.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "harness/run/record.hpp"
#include "harness/run/watchdog.hpp"
#include "harness/sinks/hdf5_sink.hpp"
#include "preflight/schema/comm.hpp"
#include "preflight/schema/telemetry.hpp"

namespace {

namespace fs = std::filesystem;
using preflight::Hdf5Sink;
using preflight::RunInfo;
namespace h5 = preflight::h5;

class Hdf5SinkText : public ::testing::Test {
 protected:
  void SetUp() override {
    h5::silence_library_errors();
    std::string pattern = (fs::temp_directory_path() / "hdf5-sink-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    path_ = (dir_ / "r.h5").string();
    run_ = {"preflight run c.yaml", "{}", "2026-12-01T00:00:00Z", 1, 1};
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  std::string path_;
  RunInfo run_;
};

TEST_F(Hdf5SinkText, AConfigTooLongForAnAttributeIsRefusedBeforeTheFileIsMade) {
  run_.config_json = std::string(h5::kLongestStringAttribute + 1, 'x');
  try {
    Hdf5Sink::create(path_, run_, {});
    FAIL() << "a config over the attribute limit was written";
  } catch (const h5::Error& e) {
    EXPECT_NE(std::string(e.what()).find("effective config as JSON is"), std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(fs::exists(path_)) << "a refused file was left behind";
}

TEST_F(Hdf5SinkText, ALongTimeoutMessageIsCutToFit) {
  const std::string message(100000, 'r');
  {
    auto sink = Hdf5Sink::create(path_, run_, {});
    preflight::CaseRecord partial;
    partial.name = "c";
    partial.family = "comm";
    partial.backend = "mpi";
    sink->case_timed_out(partial, {0, preflight::TimeoutReason::kNoProgress, 1.0, {0}, message});
  }
  h5::Handle file = h5::open_file_read(path_);
  h5::Handle cases = h5::open_group(file.get(), "cases");
  h5::Handle c = h5::open_group(cases.get(), "000000");
  const std::string kept = h5::string_attribute(c.get(), "timeout_message");
  EXPECT_LE(kept.size(), h5::kLongestStringAttribute);
  EXPECT_EQ(kept.substr(0, 1000), message.substr(0, 1000));
  EXPECT_NE(kept.find("(cut here: 100000 bytes in all, the log has them)"), std::string::npos);
}

// A series spec with a watch gets the watch's attributes on its dataset; one without gets none.
TEST_F(Hdf5SinkText, AWatchedSeriesCarriesItsWatch) {
  namespace s = preflight::schema;
  const std::size_t throttled = s::index_in(s::kTelemetrySeries, s::telemetry::kGpuThrottleSeries);
  {
    auto sink = Hdf5Sink::create(path_, run_, {});
    preflight::CaseRecord c;
    c.name = "c";
    c.family = "memory";
    c.backend = "cuda";
    c.status = "ok";
    c.group_of_rank = {0};
    c.group_count = 1;
    preflight::PointResult p;
    p.iterations = 1;
    p.stop_reason = std::string(s::stop_reason::kMaxIterations);
    p.samples = {1e-3};
    p.wrong_per_rank = {0};
    p.groups.push_back({});
    p.series_specs = {{&s::telemetry::kCpuMhzSeries, s::kTelemetryIntervalS, nullptr},
                      {&s::telemetry::kGpuThrottleSeries, s::kTelemetryIntervalS,
                       &s::kTelemetryWatches[throttled]}};
    p.series = {{1000, 1001}, {0, 8}};
    p.series_rows = {2, 2};
    c.points.push_back(std::move(p));
    sink->case_finished(c);
  }
  h5::Handle file = h5::open_file_read(path_);
  h5::Handle series = h5::open_group(file.get(), "cases/000000/points/0000/series");
  const h5::Handle cpu = h5::open_dataset(series.get(), "cpu_mhz");
  EXPECT_FALSE(h5::has_attribute(cpu.get(), s::kWatchAttribute));
  const h5::Handle throttle = h5::open_dataset(series.get(), "gpu_throttle");
  for (const auto& item : s::kSeriesWatchAttributes)
    EXPECT_TRUE(h5::has_attribute(throttle.get(), item.name)) << item.name;
  EXPECT_EQ(h5::string_attribute(throttle.get(), s::kWatchAttribute), "zero");
  EXPECT_EQ(h5::string_attribute(throttle.get(), s::kWatchFindingAttribute), "throttled");
  EXPECT_EQ(h5::string_attribute(throttle.get(), s::kWatchLabelsAttribute),
            s::kTelemetryWatches[throttled].labels);
}

// A case attribute the case's family does not declare (a misspelt name, or one added without its
// declaration) is refused, naming it; the family's own and the harness's are written.
TEST_F(Hdf5SinkText, ACaseAttributeNobodyDeclaredIsRefused) {
  namespace s = preflight::schema;
  auto sink = Hdf5Sink::create(path_, run_, {});
  preflight::CaseRecord c;
  c.name = "allreduce float32";
  c.family = "comm";
  c.backend = "mpi";
  c.status = "ok";
  c.group_of_rank = {0};
  c.group_count = 1;
  c.declaration = &s::comm::kDeclaration;
  c.params = {preflight::attr(s::harness::kRepetition, 0),
              preflight::attr(s::comm::kCollective, "allreduce")};
  c.index = 0;
  EXPECT_NO_THROW(sink->case_finished(c));
  c.index = 1;
  c.params.push_back({"colective", std::string("allreduce"), "", false});
  try {
    sink->case_finished(c);
    FAIL() << "an undeclared case attribute was written";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("'colective'"), std::string::npos) << e.what();
  }
}

}  // namespace
