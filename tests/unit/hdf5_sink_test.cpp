// The results sink's text that would not fit an attribute (results-schema/SPEC.md,
// "Integrity"): the run's own config or command line is refused before any file is made, a
// timeout message it composes is cut to fit.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "harness/hdf5_sink.hpp"
#include "harness/record.hpp"
#include "harness/watchdog.hpp"

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

}  // namespace
