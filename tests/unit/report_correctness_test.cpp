// The silent-corruption plug-in (reports/plugins/silent_corruption.cpp) on correctness cases made
// in memory: a planted rank is named alone, with its host and GPU UUID, as a device suspect that
// fails acceptance and reaches the JSON verdict and the Prometheus exposition; a rank wrong in
// several algorithms is one finding; a clean run names nobody and its section says how many
// results were compared; a GEMM class without a majority fails without naming anyone; the
// generic wrong-results finding lists the ranks with wrong elements, for any family; one wrong
// rank of two names no device; a receiver of one rank's block is named with the path from that
// rank to check; wrong only with an NCCL protocol forced names the protocol, not the device; an
// unlocated source (NaN) is no sender; wrong results in warm-up runs are counted as such.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "analysis/report.hpp"
#include "preflight/schema/correctness.hpp"
#include "preflight/schema/family_names.hpp"
#include "preflight/schema/layout.hpp"
#include "render/json.hpp"
#include "render/prometheus.hpp"

namespace preflight::report::silent_corruption_test {
namespace {

namespace sc = schema::correctness;

constexpr int kRanks = 4;
constexpr double kIterations = 40;
constexpr double kM = 1024;

Column numbers(std::vector<double> v, std::string unit = "") {
  Column c;
  c.numbers = std::move(v);
  c.unit = std::move(unit);
  return c;
}

// A planted wrong result: the rank, the timed iteration, the wrong elements, the first wrong
// element's index, expected and found, and wrong_source.
struct Plant {
  std::int64_t rank;
  double iteration, elements, element, expected, found, source;
};

CaseData correctness_case(int index, bool gemm, const std::vector<Plant>& plants,
                          const std::string& algorithm = "ring",
                          const std::string& forced_by = "coll_tuned_allreduce_algorithm=4",
                          const std::string& protocol = "") {
  CaseData c;
  c.index = index;
  c.group_name = fmt::format("{:06d}", index);
  c.family = std::string(schema::kCorrectnessFamily);
  c.backend = gemm ? "openblas" : "mpi";
  c.name = gemm ? "gemm determinism float32" : "allreduce float32 " + algorithm;
  c.status = plants.empty() ? "ok" : "failed";
  c.meaning.stage = schema::Stage::kCorrectness;
  double elements = 0;
  for (const auto& p : plants) elements += p.elements;
  c.params = {
      {std::string(sc::kCheck.name), std::string(gemm ? sc::kCheckGemm : sc::kCheckCollective)},
      {std::string(sc::kEventsKept.name), "8"},
      {std::string(schema::harness::kWrongElements.name),
       fmt::format("{}", static_cast<std::int64_t>(elements))}};
  if (gemm) {
    c.params[std::string(schema::matmul::kDtype.name)] = "float32";
  } else {
    c.params[std::string(schema::comm::kCollective.name)] = "allreduce";
    c.params[std::string(schema::comm::kDtype.name)] = "float32";
    c.params[std::string(sc::kAlgorithm.name)] = algorithm;
    c.params[std::string(sc::kForcedBy.name)] = forced_by;
    c.params[std::string(sc::kProtocol.name)] = protocol;
  }
  c.stats = {
      {"point", numbers({0})},
      {"group", numbers({-1})},
      {"group_ranks", numbers({kRanks}, "ranks")},
      {std::string(schema::harness::kIterationsColumn.name), numbers({kIterations})},
      {std::string(sc::kCheckedResultsColumn.name), numbers({kIterations * kRanks})},
      {std::string(sc::kWrongResultsColumn.name), numbers({static_cast<double>(plants.size())})}};
  if (gemm)
    for (const auto& column :
         {schema::matmul::kGemmMColumn, schema::matmul::kGemmNColumn, schema::matmul::kGemmKColumn})
      c.stats[std::string(column.name)] = numbers({kM});
  else
    c.stats[std::string(schema::comm::kSizeBytesColumn.name)] = numbers({1 << 20}, "B");
  c.group_of_rank.assign(kRanks, 0);
  c.wrong_per_rank.resize(1);
  auto& cells = c.fault_cells[std::string(sc::kWrongElementsCounter.name)];
  cells.resize(1);
  for (const auto& column : schema::kCorrectnessSeries)
    c.event_series[std::string(column.name)].resize(1);
  const auto add = [&](const schema::Column& series, std::int64_t rank, double value) {
    c.event_series[std::string(series.name)][0][rank].push_back(value);
  };
  for (const auto& p : plants) {
    c.wrong_per_rank[0][p.rank] += static_cast<std::uint64_t>(p.elements);
    if (p.iteration >= 0)  // the counter holds the timed iterations only
      cells[0].push_back({static_cast<std::size_t>(p.iteration), p.rank, p.elements});
    add(sc::kWrongIterationSeries, p.rank, p.iteration);
    add(sc::kWrongElementSeries, p.rank, p.element);
    add(sc::kWrongExpectedSeries, p.rank, p.expected);
    add(sc::kWrongFoundSeries, p.rank, p.found);
    add(sc::kWrongCountSeries, p.rank, p.elements);
    add(sc::kWrongSourceSeries, p.rank, p.source);
  }
  return c;
}

RunData run_of(std::vector<CaseData> cases) {
  RunData run;
  run.path = "correctness.h5";
  run.schema_version = kSchemaV2;
  run.status = "failed";
  run.world_size = kRanks;
  run.node_count = kRanks;
  for (int r = 0; r < kRanks; ++r) {
    run.environment["host"].push_back(fmt::format("pf{}", r));
    run.environment["node_name"].push_back(fmt::format("pf{}", r));
    run.environment["gpu_uuid"].push_back(fmt::format("GPU-{}", static_cast<char>('a' + r)));
  }
  run.cases = std::move(cases);
  return run;
}

Report report_of(const std::vector<RunData>& runs) {
  ReportInputs in;
  in.runs = &runs;
  in.labels = {"r"};
  in.no_reference = true;
  return build_report(in);
}

std::vector<const Suspect*> device_suspects(const Report& report) {
  std::vector<const Suspect*> out;
  for (const auto& f : report.findings)
    for (const auto& s : f.suspects)
      if (s.kind == kDeviceSuspect) out.push_back(&s);
  return out;
}

const Finding* finding_with(const Report& report, const std::string& text) {
  for (const auto& f : report.findings)
    if (f.title.find(text) != std::string::npos) return &f;
  return nullptr;
}

std::string titles(const Report& report) {
  std::string out;
  for (const auto& f : report.findings) out += f.title + "\n";
  return out;
}

bool has_line(const std::vector<std::string>& lines, const std::string& text) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(text) != std::string::npos; });
}

bool failed_check(const Report& report, const std::string& rule, const std::string& case_name) {
  return std::any_of(report.checks.begin(), report.checks.end(), [&](const Check& c) {
    return c.rule == rule && c.case_name.find(case_name) != std::string::npos &&
           c.verdict == CheckVerdict::kFail;
  });
}

// GEMM: rank 2 wrong in 3 of its 40 results, the majority's result rank 0's.
const std::vector<Plant> kPlantedGemm = {
    {2, 4, 100, 3 * kM + 17, 1.5, 1.75, 0}, {2, 9, 50, 17, 2, 3, 0}, {2, 20, 7, 5, 1, 0, 0}};

TEST(SilentCorruption, APlantedGemmRankIsNamedAloneWithItsHostAndGpu) {
  const std::vector<RunData> runs{run_of({correctness_case(1, true, kPlantedGemm)})};
  const auto report = report_of(runs);
  const auto named = device_suspects(report);
  ASSERT_EQ(named.size(), 1u);
  EXPECT_EQ(named[0]->rank, 2);
  EXPECT_EQ(named[0]->device, "GPU-c");
  EXPECT_EQ(named[0]->hosts, std::vector<std::string>{"pf2"});
  const auto* f = finding_with(report, "computed wrong results");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->title,
            "rank 2 on host pf2 (GPU GPU-c) computed wrong results: 3 of 40 GEMMs 1024x1024x1024 "
            "float32 disagreed with the majority of its class");
  EXPECT_EQ(f->stage, Stage::kCorrectness);
  EXPECT_TRUE(has_line(f->evidence,
                       "iteration 4: C[17,3] expected 1.5 found 1.75 (100 wrong "
                       "elements; the majority's result: rank 0)"))
      << fmt::format("{}", fmt::join(f->evidence, "\n"));
  EXPECT_EQ(report.findings.front().title, f->title) << "the named device comes first";
  // Acceptance: the named device and the case's wrong results both fail.
  EXPECT_TRUE(failed_check(report, std::string(kSuspectRule), "device pf2 rank 2 GPU-c"));
  EXPECT_TRUE(failed_check(report, "results correct", "000001"));
  EXPECT_EQ(report.exit_code(), 1);
  // The generic finding names the rank with wrong elements as evidence, not as a suspect.
  const auto* generic = finding_with(report, "wrong results in case 000001");
  ASSERT_NE(generic, nullptr);
  EXPECT_TRUE(generic->suspects.empty());
  EXPECT_TRUE(has_line(generic->evidence,
                       "wrong elements by rank (1 rank): rank 2 on host pf2 (GPU GPU-c): 157"))
      << fmt::format("{}", fmt::join(generic->evidence, "\n"));
}

TEST(SilentCorruption, ARankWrongInSeveralAlgorithmsIsOneFinding) {
  const std::vector<RunData> runs{
      run_of({correctness_case(1, false, {{1, 3, 5, 100, 4, 5, 3}}, "ring",
                               "coll_tuned_allreduce_algorithm=4"),
              correctness_case(2, false, {{1, 7, 2, 9, 4, 6, -1}, {1, 8, 1, 9, 4, 6, -1}},
                               "recursive_doubling", "coll_tuned_allreduce_algorithm=3"),
              correctness_case(3, false, {}, "basic_linear", "coll_tuned_allreduce_algorithm=1")})};
  const auto report = report_of(runs);
  const auto named = device_suspects(report);
  ASSERT_EQ(named.size(), 1u);
  EXPECT_EQ(named[0]->rank, 1);
  const auto* f = finding_with(report, "received wrong elements");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->title,
            "rank 1 on host pf1 (GPU GPU-b) received wrong elements in 3 of 80 allreduce runs with "
            "algorithm ring (coll_tuned_allreduce_algorithm=4), algorithm recursive_doubling "
            "(coll_tuned_allreduce_algorithm=3)");
  EXPECT_TRUE(has_line(f->evidence,
                       "element 100 expected 4 found 5 (5 wrong elements; the element "
                       "came from rank 3)"));
  EXPECT_TRUE(has_line(f->evidence, "a reduced element"));
}

TEST(SilentCorruption, ACleanRunNamesNobodyAndSaysWhatWasCompared) {
  const std::vector<RunData> runs{
      run_of({correctness_case(1, true, {}), correctness_case(2, false, {})})};
  const auto report = report_of(runs);
  EXPECT_TRUE(device_suspects(report).empty());
  for (const auto& f : report.findings) EXPECT_NE(f.stage, Stage::kCorrectness) << f.title;
  const auto section =
      std::find_if(report.sections.begin(), report.sections.end(),
                   [](const plugins::Section& s) { return s.id == "correctness"; });
  ASSERT_NE(section, report.sections.end());
  EXPECT_EQ(section->lines.front(),
            "320 results compared in 2 checks, 0 wrong; devices named: none");
  ASSERT_EQ(section->rows.size(), 2u);
  EXPECT_EQ(section->rows[0][1], "GEMM 1024x1024x1024 float32");
  EXPECT_EQ(section->rows[0][2], "160");
  EXPECT_EQ(section->rows[0][3], "0");
  EXPECT_EQ(section->rows[0][5], "none");
  for (const auto& c : report.checks) EXPECT_NE(c.verdict, CheckVerdict::kFail) << c.case_name;
}

TEST(SilentCorruption, AGemmClassWithoutAMajorityFailsButNamesNobody) {
  // Two ranks of a class of two disagree: no majority (wrong_source -1) on either.
  const std::vector<RunData> runs{
      run_of({correctness_case(1, true, {{0, 4, 9, 1, 1, 2, -1}, {1, 4, 9, 1, 2, 1, -1}})})};
  const auto report = report_of(runs);
  EXPECT_TRUE(device_suspects(report).empty());
  const auto* f = finding_with(report, "disagreed without a majority");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(f->suspects.empty());
  EXPECT_EQ(f->stage, Stage::kCorrectness);
  EXPECT_TRUE(failed_check(report, "results correct", "000001"));
  EXPECT_EQ(report.exit_code(), 1);
  const auto section =
      std::find_if(report.sections.begin(), report.sections.end(),
                   [](const plugins::Section& s) { return s.id == "correctness"; });
  ASSERT_NE(section, report.sections.end());
  EXPECT_EQ(section->rows[0][5], "nobody: no majority");
}

TEST(SilentCorruption, MostRanksWrongInACollectiveNamesNoDevice) {
  const std::vector<RunData> runs{run_of({correctness_case(
      1, false, {{0, 1, 4, 0, 1, 2, -1}, {1, 1, 4, 0, 1, 2, -1}, {2, 1, 4, 0, 1, 2, -1}})})};
  const auto report = report_of(runs);
  EXPECT_TRUE(device_suspects(report).empty());
  EXPECT_NE(finding_with(report, "3 of 4 ranks received wrong elements"), nullptr);
  EXPECT_EQ(report.exit_code(), 1);
}

TEST(WrongResults, AnyFamilysFailedCaseListsItsRanksWithHostAndGpuButNamesNoSuspect) {
  // A case of another family (no correctness plug-in reads it) with wrong elements on two ranks.
  auto c = correctness_case(1, false, {});
  c.family = std::string(schema::kCommFamily);
  c.name = "allreduce float32 sum out-of-place world";
  c.status = "failed";
  c.params[std::string(schema::harness::kWrongElements.name)] = "12";
  c.wrong_per_rank = {{{3, 2}}, {{1, 9}, {3, 1}}};
  const std::vector<RunData> runs{run_of({c})};
  const auto report = report_of(runs);
  const auto* f = finding_with(report, "wrong results in case 000001");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(f->suspects.empty());
  EXPECT_TRUE(has_line(f->evidence,
                       "wrong elements by rank (2 ranks): rank 1 on host pf1 (GPU "
                       "GPU-b): 9; rank 3 on host pf3 (GPU GPU-d): 3"))
      << fmt::format("{}", fmt::join(f->evidence, "\n"));
  EXPECT_TRUE(device_suspects(report).empty());
  EXPECT_TRUE(failed_check(report, "results correct", "000001"));
}

TEST(SilentCorruption, EveryRankWrongFromOneSourceNamesTheSender) {
  // An all-gather: ranks 0, 2 and 3 received rank 1's block wrong; rank 1 itself is right.
  const std::vector<RunData> runs{run_of({correctness_case(
      1, false, {{0, 5, 8, 64, 1, 3, 1}, {2, 5, 8, 64, 1, 3, 1}, {3, 5, 8, 64, 1, 3, 1}}, "ring",
      "coll_tuned_allgather_algorithm=4")})};
  const auto report = report_of(runs);
  const auto named = device_suspects(report);
  ASSERT_EQ(named.size(), 1u);
  EXPECT_EQ(named[0]->rank, 1);
  EXPECT_NE(finding_with(report, "rank 1 on host pf1 (GPU GPU-b) sent wrong elements in 1 of 40"),
            nullptr);
  EXPECT_EQ(finding_with(report, "not one device"), nullptr);
}

TEST(SilentCorruption, OneWrongRankOfTwoNamesNoDeviceButSaysWhichRankReceived) {
  // Ranks 0 and 1 only: rank 1 received rank 0's elements wrong. The receiver, the sender and the
  // link between them cannot be told apart.
  auto c = correctness_case(1, false, {{1, 3, 5, 100, 4, 5, 0}, {1, 9, 5, 100, 4, 5, 0}});
  c.group_of_rank = {0, 0, -1, -1};
  const std::vector<RunData> runs{run_of({c})};
  const auto report = report_of(runs);
  EXPECT_TRUE(device_suspects(report).empty());
  const auto* f = finding_with(report, "rank 1 on host pf1 (GPU GPU-b) received wrong elements");
  ASSERT_NE(f, nullptr) << titles(report);
  EXPECT_NE(f->title.find("with 2 ranks the sender or the link between them cannot be told from "
                          "the receiver"),
            std::string::npos)
      << f->title;
  EXPECT_TRUE(f->suspects.empty());
  EXPECT_TRUE(failed_check(report, "results correct", "000001"));
  EXPECT_EQ(report.exit_code(), 1);
}

TEST(SilentCorruption, AReceiverOfOneRanksBlockIsNamedWithThePathFromThatRankToCheck) {
  // An all-gather on 4 ranks: rank 2 alone received rank 1's block wrong.
  const std::vector<RunData> runs{
      run_of({correctness_case(1, false, {{2, 5, 8, 64, 1, 3, 1}, {2, 6, 8, 64, 1, 3, 1}}, "ring",
                               "coll_tuned_allgather_algorithm=4")})};
  const auto report = report_of(runs);
  const auto named = device_suspects(report);
  ASSERT_EQ(named.size(), 1u);
  EXPECT_EQ(named[0]->rank, 2);
  const auto* f = finding_with(report, "rank 2 on host pf2 (GPU GPU-c) received wrong elements");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->next_check.find("Every wrong element came from rank 1 (host pf1): the link or path "
                               "from rank 1 to rank 2 (cable, NIC port) is the other suspect"),
            std::string::npos)
      << f->next_check;
  EXPECT_NE(f->next_check.find("do not drain on this one allreduce check alone if the GEMM check "
                               "passed on rank 2"),
            std::string::npos)
      << f->next_check;
}

TEST(SilentCorruption, WrongOnlyWithAForcedNcclProtocolNamesTheProtocolNotTheDevice) {
  // NCCL: rank 1 wrong with Ring/LL128 forced; NCCL's own choice of allreduce ran clean on it.
  const auto forced = correctness_case(1, false, {{1, 3, 5, 100, 4, 5, -1}}, "Ring",
                                       "NCCL_ALGO=Ring NCCL_PROTO=LL128", "LL128");
  const auto own = correctness_case(2, false, {}, "default", "");
  {
    const std::vector<RunData> runs{run_of({forced, own})};
    const auto report = report_of(runs);
    EXPECT_TRUE(device_suspects(report).empty());
    const auto* f = finding_with(report, "only with NCCL_PROTO=LL128 forced");
    ASSERT_NE(f, nullptr);
    EXPECT_TRUE(f->suspects.empty());
    EXPECT_NE(f->next_check.find("check whether NCCL enables LL128 on this platform by default"),
              std::string::npos)
        << f->next_check;
    EXPECT_TRUE(failed_check(report, "results correct", "000001"));
    EXPECT_EQ(report.exit_code(), 1);
  }
  {
    // Wrong in NCCL's own choice too: the device is named.
    const std::vector<RunData> runs{
        run_of({forced, correctness_case(2, false, {{1, 4, 5, 100, 4, 5, -1}}, "default", "")})};
    const auto report = report_of(runs);
    const auto named = device_suspects(report);
    ASSERT_EQ(named.size(), 1u);
    EXPECT_EQ(named[0]->rank, 1);
    EXPECT_EQ(finding_with(report, "only with NCCL_PROTO"), nullptr);
  }
  {
    // Without NCCL's own choice in the run nothing clears the device: named.
    const std::vector<RunData> runs{run_of({forced})};
    EXPECT_EQ(device_suspects(report_of(runs)).size(), 1u);
  }
}

TEST(SilentCorruption, AnUnlocatedSourceIsNotTakenForOneSender) {
  // Ranks 0 and 3 received rank 1's block wrong, rank 2 an element NCCL's check could not locate
  // (NaN): nobody is shown to have sent every wrong element.
  const std::vector<RunData> runs{run_of({correctness_case(
      1, false, {{0, 5, 8, 64, 1, 3, 1}, {2, 5, 8, 64, 1, 3, std::nan("")}, {3, 5, 8, 64, 1, 3, 1}},
      "ring", "coll_tuned_allgather_algorithm=4")})};
  const auto report = report_of(runs);
  EXPECT_TRUE(device_suspects(report).empty());
  EXPECT_NE(finding_with(report, "3 of 4 ranks received wrong elements"), nullptr);
}

TEST(SilentCorruption, WrongResultsOutsideTheTimedIterationsAreCountedAsWarmUpRuns) {
  // Rank 2 wrong only in two runs before timing (wrong_iteration -1).
  const std::vector<RunData> runs{
      run_of({correctness_case(1, true, {{2, -1, 4, 17, 1, 2, 0}, {2, -1, 4, 17, 1, 2, 0}})})};
  const auto report = report_of(runs);
  ASSERT_EQ(device_suspects(report).size(), 1u);
  const auto* f = finding_with(report, "computed wrong results");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->title,
            "rank 2 on host pf2 (GPU GPU-c) computed wrong results: 0 of 40 timed GEMMs and 2 "
            "warm-up runs of 1024x1024x1024 float32 disagreed with the majority of its class");
  EXPECT_TRUE(has_line(f->evidence, "and wrong in 2 runs outside the timed iterations (warm-up)"))
      << fmt::format("{}", fmt::join(f->evidence, "\n"));
}

TEST(SilentCorruption, JsonAndPrometheusCarryTheRankAndDeviceOfADeviceSuspect) {
  const std::vector<RunData> runs{run_of({correctness_case(1, true, kPlantedGemm)})};
  auto report = report_of(runs);
  // A host suspect beside it keeps its keys as before (no rank, no device).
  Finding host;
  host.run_label = "r";
  host.title = "node pf3 is slow";
  host.suspects.push_back({"host", {"pf3"}, "drain pf3"});
  report.findings.push_back(host);
  const auto json = nlohmann::json::parse(render_json(report));
  const auto& suspects = json.at("suspects");
  ASSERT_EQ(suspects.size(), 2u);
  EXPECT_EQ(suspects[0].at("kind"), "device");
  EXPECT_EQ(suspects[0].at("rank"), 2);
  EXPECT_EQ(suspects[0].at("device"), "GPU-c");
  EXPECT_EQ(suspects[0].at("hosts"), nlohmann::json::array({"pf2"}));
  EXPECT_FALSE(suspects[1].contains("rank"));
  EXPECT_FALSE(suspects[1].contains("device"));
  const auto text = render_prometheus(report);
  EXPECT_NE(
      text.find(
          R"(preflight_suspect{run="r",kind="device",hosts="pf2",rank="2",device="GPU-c"} 1)"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find(R"(preflight_suspect{run="r",kind="host",hosts="pf3"} 1)"), std::string::npos)
      << text;
}

}  // namespace
}  // namespace preflight::report::silent_corruption_test
