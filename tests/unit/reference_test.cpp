// Reference envelopes (analysis/reference.hpp, docs/references.md): which envelope a run's
// recorded environment chooses, what a bad envelope file is refused for (exit 2 in the report,
// naming the key, with a did-you-mean), how a figure judges a run, and the envelope made from a
// trusted run (analysis/site_reference.hpp) read back and judging a later one.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

#include "analysis/reference.hpp"
#include "analysis/site_reference.hpp"
#include "reader/v1_adapter.hpp"
#include "render/reference_yaml.hpp"

namespace preflight::report {
namespace {

std::string write_temp(const std::string& text) {
  char path[] = "/tmp/preflight-reference-XXXXXX.yaml";
  const int fd = mkstemps(path, 5);
  close(fd);
  std::ofstream(path) << text;
  return path;
}

Column numbers(std::vector<double> v, std::string unit = "") {
  Column c;
  c.numbers = std::move(v);
  c.unit = std::move(unit);
  return c;
}

// A 4-rank run on `gpu_model` with one all-reduce case: busbw `busbw` GB/s at 64 MiB, its
// interval +-1%, over 50 iterations.
RunData run_on(const std::string& gpu_model, double busbw = 400) {
  RunData run;
  run.path = "synthetic.h5";
  run.status = "complete";
  run.start_time = "2026-12-04T00:00:00Z";
  run.world_size = 4;
  run.node_count = 4;
  run.environment["gpu_model"] = std::vector<std::string>(4, gpu_model);
  run.environment["cpu_model"] = std::vector<std::string>(4, "Example CPU");
  CaseData c;
  c.group_name = "000000";
  c.name = "allreduce bfloat16 sum out-of-place intra";
  c.family = "comm";
  c.backend = "nccl";
  c.status = "ok";
  c.params = {{"collective", "allreduce"}, {"topology", "intra"}, {"benchmark", "collectives"},
              {"variant", "default"},      {"group_count", "1"},  {"repetition", "0"}};
  const double size = 64.0 * 1024 * 1024, t = 1e-3;
  c.stats = {{"point", numbers({0})},
             {"group", numbers({-1})},
             {"iterations", numbers({50}, "iterations")},
             {"time_median", numbers({t}, "s")},
             {"time_p5", numbers({0.98 * t}, "s")},
             {"time_p95", numbers({1.02 * t}, "s")},
             {"median_ci_low", numbers({0.99 * t}, "s")},
             {"median_ci_high", numbers({1.01 * t}, "s")},
             {"size_bytes", numbers({size}, "B")},
             {"busbw", numbers({busbw}, "GB/s")}};
  c.iteration_times = {std::vector<double>(50, t)};
  run.cases.push_back(c);
  for (auto& k : run.cases) declare_v1(k, run.node_count);
  run.cases[0].meaning.subject = "allreduce bfloat16 sum out-of-place";
  return run;
}

const char* kH200 = R"(reference: h200-test
title: test platform
match: {gpu_model: H200}
figures:
  - name: all-reduce within a node
    where: {family: comm, collective: allreduce, topology: intra}
    band: large
    metric: busbw
    unit: GB/s
    typical: 450
    floor: 360
    source: made up for this test, 2026
)";

Reference reference_from(const std::string& text) {
  const auto path = write_temp(text);
  auto ref = read_reference(path);
  std::remove(path.c_str());
  return ref;
}

std::string refusal(const std::string& text) {
  try {
    reference_from(text);
  } catch (const ReferenceError& e) {
    return e.what();
  }
  return "accepted";
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

TEST(ReferenceChoice, TheEnvironmentChoosesTheMostSpecificMatch) {
  std::vector<Reference> all{reference_from(kH200),
                             reference_from(replaced(replaced(kH200, "h200-test", "cpu-test"),
                                                     "{gpu_model: H200}", "{gpu_model: \"\"}")),
                             reference_from(replaced(kH200, "{gpu_model: H200}",
                                                     "{gpu_model: H200, cpu_model: Example}"))};
  all[2].name = "h200-example-cpu";
  EXPECT_EQ(choose_reference(all, run_on("NVIDIA H200")).reference->name, "h200-example-cpu");
  EXPECT_EQ(choose_reference(all, run_on("")).reference->name, "cpu-test");
  const auto none = choose_reference(all, run_on("NVIDIA A100-SXM4-80GB"));
  EXPECT_EQ(none.reference, nullptr);
  EXPECT_EQ(none.why, "no reference envelope matches this run's hardware");
  EXPECT_NE(
      none.detail.find("h200-test: rank 0's gpu_model is 'NVIDIA A100-SXM4-80GB', not 'H200'"),
      std::string::npos)
      << none.detail;
  // One rank on other hardware: no envelope holds for the run.
  auto mixed = run_on("NVIDIA H200");
  mixed.environment["gpu_model"][3] = "NVIDIA H100 80GB HBM3";
  EXPECT_NE(mismatch(all[0], mixed).find("rank 3"), std::string::npos);
}

// The NIC and its link rate choose too (environment columns rdma_port_count, rdma_port_gbps): an
// envelope for 8 x 400 Gb/s nodes is more specific than the GPU's alone.
TEST(ReferenceChoice, TheNicAndItsRateChooseAsTheGpuDoes) {
  std::vector<Reference> all{
      reference_from(kH200),
      reference_from(replaced(replaced(kH200, "h200-test", "h200-ndr400"), "{gpu_model: H200}",
                              "{gpu_model: H200, rdma_port_gbps: ^400$}"))};
  auto run = run_on("NVIDIA H200");
  run.environment["rdma_port_gbps"] = std::vector<std::string>(4, "400");
  EXPECT_EQ(choose_reference(all, run).reference->name, "h200-ndr400");
  run.environment["rdma_port_gbps"][2] = "200";  // one node's NIC at half its rate
  EXPECT_EQ(choose_reference(all, run).reference->name, "h200-test");
  run.environment.erase("rdma_port_gbps");  // a file written before NICs were recorded
  EXPECT_EQ(choose_reference(all, run).reference->name, "h200-test");
}

// The shipped envelopes (configs/references): an 8-GPU node with exactly 8 RDMA ports, all at
// 400 Gb/s, is judged against the 8x400g file of its GPU; a host with one more port (Azure's
// 100 Gb/s accelerated-networking port, a DGX's storage NICs), one port at another rate, or no
// NICs recorded falls back to the GPU's own envelope, which has no figure across nodes.
std::vector<Reference> shipped_references() {
  // An executable with no share/ beside it: the report falls back to the source tree's configs.
  return read_references(default_references_dir("/nonexistent/bin/preflight-report"));
}

void on_ports(RunData& run, const std::vector<std::string>& rates) {
  std::string ports;
  double fastest = 0;
  for (std::size_t i = 0; i < rates.size(); ++i) {
    ports += fmt::format("{}mlx5_{}/1 {}", i ? ", " : "", i, rates[i]);
    fastest = std::max(fastest, std::stod(rates[i]));
  }
  const auto ranks = static_cast<std::size_t>(run.world_size);
  run.environment["rdma_ports"] = std::vector<std::string>(ranks, ports);
  run.environment["rdma_port_count"] =
      std::vector<std::string>(ranks, fmt::format("{}", rates.size()));
  run.environment["rdma_port_gbps"] = std::vector<std::string>(ranks, fmt::format("{}", fastest));
}

TEST(ReferenceChoice, TheShippedNdrEnvelopesNeedEightPortsAllAt400) {
  const auto all = shipped_references();
  const std::string ndr = "400 Gb/sec (4X NDR)";
  const auto chosen = [&](const std::string& gpu, const std::vector<std::string>& rates) {
    auto run = run_on(gpu);
    if (!rates.empty()) on_ports(run, rates);
    const auto choice = choose_reference(all, run);
    return choice.reference ? choice.reference->name : "none: " + choice.detail;
  };
  const std::vector<std::string> eight(8, ndr);
  EXPECT_EQ(chosen("NVIDIA H100 80GB HBM3", eight), "h100-sxm-8x400g");
  EXPECT_EQ(chosen("NVIDIA H200", eight), "h200-sxm-8x400g");
  // Not the NVL card, whose name starts the same.
  EXPECT_EQ(chosen("NVIDIA H200 NVL", eight).rfind("none", 0), 0u);
  auto with_an0 = eight;
  with_an0.push_back("100 Gb/sec (2X EDR)");
  EXPECT_EQ(chosen("NVIDIA H200", with_an0), "h200-sxm");
  auto one_slow = eight;
  one_slow[5] = "200 Gb/sec (2X NDR)";
  EXPECT_EQ(chosen("NVIDIA H100 80GB HBM3", one_slow), "h100-sxm");
  EXPECT_EQ(chosen("NVIDIA H100 80GB HBM3", std::vector<std::string>(8, "200 Gb/sec (2X NDR)")),
            "h100-sxm");
  EXPECT_EQ(chosen("NVIDIA H100 80GB HBM3", std::vector<std::string>(4, ndr)), "h100-sxm");
  EXPECT_EQ(chosen("NVIDIA H100 80GB HBM3", {}), "h100-sxm");  // written before NICs were recorded
}

// The 8x400g files copy every figure of their GPU's envelope: a figure changed in one and not
// the other fails here, so the two never judge the same GPU differently.
TEST(ReferenceFile, TheNdrEnvelopesCarryEveryFigureOfTheirGpus) {
  const auto all = shipped_references();
  const auto named = [&](const std::string& name) { return find_reference(all, name); };
  for (const std::string gpu : {"h100-sxm", "h200-sxm"}) {
    const auto base = named(gpu), ndr = named(gpu + "-8x400g");
    const auto& with = ndr.figures.set->rules;
    for (const auto& figure : base.figures.set->rules) {
      const std::string name = figure.name.substr(figure.name.find(": ") + 2);
      const auto copy = std::find_if(with.begin(), with.end(), [&](const Rule& r) {
        return r.name == "reference " + ndr.name + ": " + name;
      });
      ASSERT_NE(copy, with.end()) << gpu << ": " << name;
      EXPECT_EQ(copy->where, figure.where) << name;
      EXPECT_EQ(copy->sizes, figure.sizes) << name;
      EXPECT_EQ(copy->metric, figure.metric) << name;
      EXPECT_EQ(copy->typical, figure.typical) << name;
      EXPECT_EQ(copy->expect, figure.expect) << name;
      EXPECT_EQ(copy->source, figure.source) << name;
    }
    EXPECT_EQ(with.size(), base.figures.set->rules.size() + 2) << gpu;
  }
}

// An all-reduce across 8-GPU nodes at 1 GiB, and one GPU per node at 1 GiB, against the shipped
// 8x400g figures: a fabric at half its rate fails both.
TEST(ReferenceChoice, TheNdrFiguresJudgeAllReduceAcrossNodes) {
  const auto all = shipped_references();
  const auto judged = [&](const std::string& topology, double busbw) {
    auto run = run_on("NVIDIA H100 80GB HBM3", busbw);
    on_ports(run, std::vector<std::string>(8, "400 Gb/sec (4X NDR)"));
    auto& c = run.cases[0];
    c.params["topology"] = topology;
    c.params["dtype"] = "bfloat16";
    c.params["redop"] = "sum";
    c.meaning.series = topology;
    for (auto& [name, column] : c.stats)
      if (name == "size_bytes") column.numbers = {1024.0 * 1024 * 1024};
    const auto choice = choose_reference(all, run);
    EXPECT_EQ(choice.reference->name, "h100-sxm-8x400g");
    for (const auto& check : evaluate(choice.reference->figures, run, "r", {}, 0.01, false))
      if (check.verdict != CheckVerdict::kNotMeasured)
        return fmt::format("{}: {}", check.rule, static_cast<int>(check.verdict));
    return std::string("nothing judged");
  };
  const auto pass = static_cast<int>(CheckVerdict::kPass);
  const auto fail = static_cast<int>(CheckVerdict::kFail);
  const std::string world =
      "reference h100-sxm-8x400g: all-reduce bus bandwidth across nodes, every GPU of every node "
      "(NCCL, 8 per node): ";
  const std::string one_nic =
      "reference h100-sxm-8x400g: all-reduce bus bandwidth across nodes, one GPU per node (NCCL, "
      "one NIC each): ";
  EXPECT_EQ(judged("world", 331), world + std::to_string(pass));
  EXPECT_EQ(judged("world", 190), world + std::to_string(fail));  // 8 links at 200 Gb/s
  EXPECT_EQ(judged("inter", 46), one_nic + std::to_string(pass));
  EXPECT_EQ(judged("rail", 41), one_nic + std::to_string(pass));
  EXPECT_EQ(judged("inter", 23), one_nic + std::to_string(fail));  // a port at 200 Gb/s
}

TEST(ReferenceChoice, AFigureJudgesTheRunAgainstItsFloor) {
  const auto ref = reference_from(kH200);
  const auto judged = [&](double busbw) {
    return evaluate(ref.figures, run_on("NVIDIA H200", busbw), "r", {}, 0.01, false).at(0);
  };
  EXPECT_EQ(judged(430).verdict, CheckVerdict::kPass);
  const auto low = judged(200);
  EXPECT_EQ(low.verdict, CheckVerdict::kFail);
  EXPECT_EQ(low.rule, "reference h200-test: all-reduce within a node");
  EXPECT_NE(low.reason.find("44% of the typical 450 GB/s"), std::string::npos) << low.reason;
  // A figure of something the run did not measure: a warning, not a verdict.
  const auto other = reference_from(replaced(kH200, "topology: intra", "topology: inter"));
  EXPECT_EQ(evaluate(other.figures, run_on("NVIDIA H200"), "r", {}, 0.01, false).at(0).verdict,
            CheckVerdict::kNotMeasured);
}

TEST(ReferenceFile, BadFilesAreRefusedNamingTheKeyWithTheNearest) {
  EXPECT_NE(refusal(replaced(kH200, "metric: busbw", "metric: bus_bw"))
                .find("unknown figure: no family declares the metric 'bus_bw' (did you mean "
                      "'busbw'?)"),
            std::string::npos);
  EXPECT_NE(refusal(replaced(kH200, "unit: GB/s", "unit: Gb/s"))
                .find("unit 'Gb/s' is not the unit of busbw (GB/s) (did you mean 'GB/s'?)"),
            std::string::npos);
  EXPECT_NE(refusal(replaced(kH200, "{gpu_model: H200}", "{gpu_modle: H200}"))
                .find("match: 'gpu_modle' is not an environment column (did you mean "
                      "'gpu_model'?)"),
            std::string::npos);
  EXPECT_NE(refusal(replaced(kH200, "    source: made up for this test, 2026\n", ""))
                .find("needs 'source'"),
            std::string::npos);
  EXPECT_NE(refusal(replaced(kH200, "typical: 450", "typcal: 450"))
                .find("unknown key 'typcal' in figures[0] (did you mean 'typical'?)"),
            std::string::npos);
  EXPECT_NE(refusal(replaced(kH200, "collective: allreduce", "colective: allreduce"))
                .find("names no case attribute (did you mean 'collective'?)"),
            std::string::npos);
  EXPECT_NE(refusal(replaced(kH200, "floor: 360", "floor: 500")).find("good side of typical"),
            std::string::npos);
  // Line and column of the key are named.
  EXPECT_NE(refusal(replaced(kH200, "metric: busbw", "metric: bus_bw")).find(":8:"),
            std::string::npos);
}

TEST(ReferenceFile, AnUnknownPlatformIsRefusedWithTheNearest) {
  const std::vector<Reference> all{reference_from(kH200)};
  try {
    find_reference(all, "h200-tset");
    ADD_FAILURE() << "accepted";
  } catch (const ReferenceError& e) {
    EXPECT_NE(std::string(e.what()).find("--reference h200-tset: no such platform (did you mean "
                                         "'h200-test'?)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(find_reference(all, "h200-test").name, "h200-test");
}

TEST(SiteReference, MadeFromATrustedRunItHoldsLaterRunsToIt) {
  const auto trusted = run_on("NVIDIA H200", 400);
  const auto figures = site_figures(trusted);
  ASSERT_EQ(figures.size(), 1u);
  EXPECT_DOUBLE_EQ(figures[0].typical, 400);
  // One value, iterations 2% apart: the floor is the least margin below typical, 25%.
  EXPECT_DOUBLE_EQ(figures[0].expect, 300);
  EXPECT_NE(figures[0].source.find("measured in synthetic.h5 (2026-12-04T00:00:00Z"),
            std::string::npos);
  const auto text = render_reference_yaml(
      {"site", "what synthetic.h5 measured", "synthetic.h5", site_match(trusted), figures});
  const auto ref = reference_from(text);
  EXPECT_EQ(ref.name, "site");
  EXPECT_TRUE(mismatch(ref, trusted).empty());
  const auto verdict = [&](double busbw) {
    return evaluate(ref.figures, run_on("NVIDIA H200", busbw), "r", {}, 0.01, false).at(0).verdict;
  };
  EXPECT_EQ(verdict(390), CheckVerdict::kPass);
  EXPECT_EQ(verdict(40), CheckVerdict::kFail);  // every link 10x slower
}

TEST(SiteReference, AnUntrustedRunIsRefused) {
  auto run = run_on("NVIDIA H200");
  run.cases[0].status = "failed";
  EXPECT_THROW(site_figures(run), std::invalid_argument);
  run = run_on("NVIDIA H200");
  run.status = "timeout";
  EXPECT_THROW(site_figures(run), std::invalid_argument);
}

}  // namespace
}  // namespace preflight::report
