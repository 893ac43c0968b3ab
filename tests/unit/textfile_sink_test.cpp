// A soak's Prometheus textfile (harness/sinks/textfile_sink.hpp) and the node time ratios it
// shares with the soak's progress line (harness/run/soak.hpp): a node twice as slow as the other
// has twice its ratio and is the file's worst node (of two nodes of one rank, the slower is above
// the dashboard's 1.15); names from the config and the host are escaped so they add no label or
// sample; a case's later round replaces its samples; the file is replaced whole with no PATH.tmp
// left; a missing directory or a name without .prom is a problem naming soak.textfile.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "harness/run/record.hpp"
#include "harness/run/soak.hpp"
#include "harness/sinks/textfile_sink.hpp"

namespace {

namespace fs = std::filesystem;
using preflight::CaseHeading;
using preflight::CaseRecord;
using preflight::RankContext;
using preflight::TextfileSink;

constexpr preflight::schema::Column kRate{.name = "rate",
                                          .type = preflight::schema::Type::kFloat64,
                                          .unit = "GB/s",
                                          .description = "a headline",
                                          .headline = true};
constexpr preflight::schema::Column kSize{.name = "size",
                                          .type = preflight::schema::Type::kInt64,
                                          .unit = "B",
                                          .description = "the x-axis"};

// 4 ranks on 2 nodes; rank r's node r / 2.
RankContext four_ranks_two_nodes() {
  RankContext ctx;
  ctx.size = 4;
  ctx.node_count = 2;
  ctx.node_of_rank = {0, 0, 1, 1};
  ctx.host_of_rank = {"h\"0", "h\"0", "h1", "h1"};
  ctx.node_names = {"h\"0", "h1"};
  return ctx;
}

// One point, 3 iterations; node 1's ranks take `slow` times node 0's.
CaseRecord a_case(const std::string& name, double slow, double rate) {
  CaseRecord r;
  r.name = name;
  r.meaning.peer_slow = true;
  r.meaning.x_axis = "size";
  r.params.push_back(preflight::attr(preflight::schema::harness::kBenchmark, "bench"));
  r.params.push_back(preflight::attr(preflight::schema::harness::kVariant, "default"));
  preflight::PointResult p;
  p.iterations = 3;
  for (int i = 0; i < 3; ++i)
    for (double t : {1.0, 1.0, slow, slow}) p.samples.push_back(t);
  preflight::GroupResult all;
  all.per_iteration.median = slow;
  all.columns.push_back(preflight::column_param(kSize, std::int64_t{4096}, true));
  all.metrics.push_back(preflight::metric(kRate, rate));
  p.groups.push_back(all);
  r.points.push_back(p);
  return r;
}

class TextfileSinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "textfile-sink-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    path_ = (dir_ / "soak.prom").string();
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string text() const {
    std::ifstream in(path_);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // Finishes `record` as the only case of round `round`.
  void finish(TextfileSink& sink, CaseRecord record, long round) {
    record.node_time_ratios = preflight::node_time_ratios(record, ctx_);
    CaseHeading h;
    h.total = 1;
    h.index = static_cast<std::size_t>(round);
    h.round = round;
    h.soak_s = 600;
    h.soaked_s = 60;
    sink.case_started(h);
    sink.case_finished(record);
  }
  fs::path dir_;
  std::string path_;
  RankContext ctx_ = four_ranks_two_nodes();
};

TEST(NodeTimeRatios, ANodeTwiceAsSlowHasTwiceItsPeersRatio) {
  const RankContext ctx = four_ranks_two_nodes();
  const auto ratios = preflight::node_time_ratios(a_case("c", 2.0, 1), ctx);
  ASSERT_EQ(ratios.size(), 2u);
  EXPECT_DOUBLE_EQ(ratios[1] / ratios[0], 2.0);
  // Two nodes of one rank: the slower one is above the dashboard's 1.15 line (the median of two
  // is their mean, not the slower itself).
  RankContext two;
  two.size = 2;
  two.node_count = 2;
  two.node_of_rank = {0, 1};
  CaseRecord pair = a_case("c", 2.0, 1);
  pair.points[0].samples = {1, 2, 1, 2, 1, 2};
  const auto pair_ratios = preflight::node_time_ratios(pair, two);
  ASSERT_EQ(pair_ratios.size(), 2u);
  EXPECT_NEAR(pair_ratios[1], 4.0 / 3, 1e-12);
  CaseRecord not_peer = a_case("c", 2.0, 1);
  not_peer.meaning.peer_slow = false;
  EXPECT_TRUE(preflight::node_time_ratios(not_peer, ctx).empty());
}

TEST_F(TextfileSinkTest, NamesTheSlowNodeEscapedAndReplacesTheFileWhole) {
  TextfileSink sink(path_, "camp\"aign\n", ctx_);
  finish(sink, a_case("x\"} injected 1\ny", 2.0, 5.5), 0);
  std::string t = text();
  EXPECT_NE(t.find("preflight_soak_round{campaign=\"camp\\\"aign\\n\"} 0\n"), std::string::npos)
      << t;
  EXPECT_NE(t.find("case=\"x\\\"} injected 1\\ny\""), std::string::npos) << t;
  EXPECT_EQ(t.find("\ninjected"), std::string::npos) << t;
  EXPECT_NE(t.find("preflight_soak_headline{campaign=\"camp\\\"aign\\n\",benchmark=\"bench\","
                   "variant=\"default\",case=\"x\\\"} injected 1\\ny\",metric=\"rate\","
                   "x_axis=\"size\",point=\"4096\",unit=\"GB/s\"} 5.5\n"),
            std::string::npos)
      << t;
  // All ranks' median is 1.5: node h1's ranks (2) are 4/3 of it, node h"0's (1) 2/3.
  EXPECT_NE(t.find("node=\"h1\",host=\"h1\"} 1.3333333333333333\n"), std::string::npos) << t;
  EXPECT_NE(t.find("node=\"h\\\"0\",host=\"h\\\"0\"} 0.66666666666666663\n"), std::string::npos)
      << t;
  EXPECT_NE(t.find("preflight_soak_worst_node_ratio{"), std::string::npos) << t;
  EXPECT_EQ(t.find("# TYPE preflight_soak_cases_total counter\n"),
            t.find("# TYPE preflight_soak_cases_total"))
      << t;

  // Round 1 of the same case replaces round 0's samples: one headline, the new figure.
  finish(sink, a_case("x\"} injected 1\ny", 1.0, 7.25), 1);
  t = text();
  EXPECT_NE(t.find("preflight_soak_round{campaign=\"camp\\\"aign\\n\"} 1\n"), std::string::npos);
  EXPECT_NE(t.find("unit=\"GB/s\"} 7.25\n"), std::string::npos) << t;
  EXPECT_EQ(t.find("} 5.5\n"), std::string::npos) << t;
  EXPECT_NE(t.find("preflight_soak_cases_total{campaign=\"camp\\\"aign\\n\"} 2\n"),
            std::string::npos)
      << t;
  sink.run_finished("complete", 0, "");
  EXPECT_NE(text().find("status=\"complete\"} 1\n"), std::string::npos);
  EXPECT_FALSE(fs::exists(path_ + ".tmp"));
}

TEST_F(TextfileSinkTest, AMissingDirectoryOrANameWithoutPromIsAProblem) {
  EXPECT_EQ(preflight::textfile_problem(path_), "");
  EXPECT_FALSE(fs::exists(path_ + ".tmp")) << "the probe was left behind";
  const std::string missing = preflight::textfile_problem((dir_ / "no" / "x.prom").string());
  EXPECT_EQ(missing.rfind("soak.textfile: directory '", 0), 0u) << missing;
  EXPECT_NE(missing.find("--collector.textfile.directory"), std::string::npos) << missing;
  const std::string txt = preflight::textfile_problem((dir_ / "x.txt").string());
  EXPECT_NE(txt.find("does not end in .prom"), std::string::npos) << txt;
  fs::create_directory(dir_ / "d.prom");
  EXPECT_NE(preflight::textfile_problem((dir_ / "d.prom").string()).find("is a directory"),
            std::string::npos);
}

}  // namespace
