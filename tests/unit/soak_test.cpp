// A soak read as a time series (analysis/soak.hpp): each round judged alone, what it names
// making a pattern (persistent, step, intermittent) and each node's speed against its peers a
// trend (drift), each with the remedy an operator applies.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <limits>
#include <numeric>
#include <random>

#include "analysis/device_watch.hpp"
#include "analysis/report.hpp"
#include "analysis/soak.hpp"
#include "preflight/schema/layout.hpp"
#include "render/json.hpp"

namespace {

namespace s = preflight::schema;
using preflight::report::analyse_soak;
using preflight::report::CaseData;
using preflight::report::RunData;
using preflight::report::SoakOptions;
using preflight::report::SoakPattern;
using preflight::report::SoakPatternKind;
using preflight::report::SoakSummary;

constexpr std::size_t kNodes = 4, kRounds = 12;
constexpr double kNaNLimit = std::numeric_limits<double>::quiet_NaN();

// How much slower than its peers node `node` is in round `round` (1: as fast).
using Slowdown = std::function<double(std::size_t node, std::size_t round)>;

// A soak of 4 one-rank nodes h0..h3, `rounds` rounds of one case that compares peers, 3 sizes,
// each rank's time drawn with `noise` (relative, normal) around its node's slowdown. Rounds
// start a minute apart from 07:30:00.
RunData soak(const Slowdown& slow, std::uint32_t seed, double noise = 0.02,
             std::size_t rounds = kRounds, std::size_t nodes = kNodes) {
  RunData r;
  r.world_size = static_cast<std::int64_t>(nodes);
  r.node_count = static_cast<std::int64_t>(nodes);
  r.soak_s = 60.0 * static_cast<double>(rounds);
  r.status = "complete";
  r.exit_code = 0;
  for (std::size_t n = 0; n < nodes; ++n) {
    r.environment["node"].push_back(std::to_string(n));
    r.environment[std::string(s::env::kNodeName.name)].push_back("h" + std::to_string(n));
    r.environment[std::string(s::env::kHost.name)].push_back("h" + std::to_string(n));
  }
  std::mt19937 random(seed);
  std::normal_distribution<double> jitter(0, noise);
  for (std::size_t round = 0; round < rounds; ++round) {
    CaseData c;
    c.index = static_cast<std::int64_t>(round);
    c.group_name = fmt::format("{:06d}", round);
    c.name = "peer case";
    c.status = "ok";
    c.meaning.peer_slow = true;
    c.params[std::string(s::harness::kRepetition.name)] = std::to_string(round);
    c.params[std::string(s::harness::kStartTime.name)] =
        fmt::format("2026-12-05T07:{:02d}:00.000Z", 30 + round);
    for (double size : {1e-5, 1e-4, 1e-3}) {
      std::vector<double> times;
      for (std::size_t n = 0; n < nodes; ++n)
        times.push_back(size * slow(n, round) * (1 + jitter(random)));
      c.rank_medians.push_back(times);
      c.rank_batched_medians.emplace_back();
    }
    r.cases.push_back(c);
  }
  return r;
}

SoakSummary analyse(const RunData& run, const SoakOptions& options = {}) {
  const auto summary = analyse_soak(run, "soak", options, {});
  EXPECT_TRUE(summary.has_value());
  return summary.value_or(SoakSummary{});
}

// Node h2 slow by half in the given rounds, else as fast as the others.
Slowdown slow_in(std::vector<std::size_t> rounds) {
  return [rounds](std::size_t node, std::size_t round) {
    return node == 2 && std::count(rounds.begin(), rounds.end(), round) ? 1.5 : 1.0;
  };
}

const SoakPattern* pattern_of(const SoakSummary& s, const std::string& node, SoakPatternKind kind) {
  for (const auto& p : s.patterns)
    if (p.subject.node == node && p.kind == kind) return &p;
  return nullptr;
}

std::vector<std::int64_t> repetitions(const SoakSummary& s, const SoakPattern& p) {
  std::vector<std::int64_t> out;
  for (auto k : p.rounds) out.push_back(s.rounds[k].repetition);
  return out;
}

TEST(Soak, NotASoakHasNoSoakSummary) {
  auto run = soak(slow_in({}), 1);
  run.soak_s = 0;
  EXPECT_FALSE(analyse_soak(run, "run", {}, {}).has_value());
}

TEST(Soak, RoundsAreTheRepetitionsWithTheirFirstStartTime) {
  const auto s = analyse(soak(slow_in({}), 1));
  ASSERT_EQ(s.rounds.size(), kRounds);
  EXPECT_EQ(s.rounds[3].repetition, 3);
  EXPECT_EQ(s.rounds[3].start_time, "2026-12-05T07:33:00.000Z");
  EXPECT_EQ(s.nodes.size(), kNodes);
}

// Rounds 0..n-1 from `first` to `last`.
std::vector<std::size_t> span(std::size_t first, std::size_t last) {
  std::vector<std::size_t> out;
  for (std::size_t k = first; k <= last; ++k) out.push_back(k);
  return out;
}

std::vector<std::size_t> joined(std::vector<std::size_t> a, const std::vector<std::size_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

constexpr std::size_t kLongSoak = 24;

TEST(Soak, NodeSlowInOneSpellIsIntermittentWithExactlyThoseRoundsAndMonitored) {
  const auto s = analyse(soak(slow_in(span(3, 8)), 1, 0.02, kLongSoak));
  const auto* p = pattern_of(s, "h2", SoakPatternKind::kIntermittent);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(repetitions(s, *p), (std::vector<std::int64_t>{3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(p->episodes, 1u);
  EXPECT_EQ(p->remedy, s::Remedy::kMonitor);
  EXPECT_EQ(s.nodes[2].verdict, s::Remedy::kMonitor);
  EXPECT_EQ(preflight::report::when_text(s, *p), "in rounds 3-8 (07:33:00 to 07:38:00 UTC)");
  for (std::size_t n : {0, 1, 3}) EXPECT_EQ(s.nodes[n].verdict, s::Remedy::kNone) << n;
}

TEST(Soak, NodeSlowInTwoSpellsIsIsolatedWithDrainCommands) {
  const auto slow = slow_in(joined(span(3, 7), span(15, 19)));
  const auto s = analyse(soak(slow, 1, 0.02, kLongSoak));
  const auto* p = pattern_of(s, "h2", SoakPatternKind::kIntermittent);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->episodes, 2u);
  EXPECT_EQ(p->remedy, s::Remedy::kIsolate);
  ASSERT_EQ(s.nodes[2].commands.size(), 2u);
  EXPECT_EQ(s.nodes[2].commands[0].rfind("scontrol update NodeName=h2 State=DRAIN Reason=\"", 0),
            0u);
  EXPECT_EQ(s.nodes[2].commands[1], "kubectl cordon h2");
  // The threshold is the option's: 3 episodes needed, 2 seen -> monitor.
  SoakOptions stricter;
  stricter.isolate_episodes = 3;
  const auto relaxed = analyse(soak(slow, 1, 0.02, kLongSoak), stricter);
  EXPECT_EQ(relaxed.nodes[2].verdict, s::Remedy::kMonitor);
}

// A slow spell with one round inside it judged fine is one episode, not two.
TEST(Soak, AOneRoundGapDoesNotSplitAnEpisode) {
  const auto s = analyse(soak(slow_in(joined(span(3, 6), span(8, 11))), 1, 0.02, kLongSoak));
  const auto* p = pattern_of(s, "h2", SoakPatternKind::kIntermittent);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->episodes, 1u);
  EXPECT_EQ(p->remedy, s::Remedy::kMonitor);
}

// A round's judgement errs now and then; named in a round or two of many, as often as chance
// allows, a node is no pattern: the notes say so, the node is ok.
TEST(Soak, NamedNoMoreOftenThanChanceIsNoPattern) {
  for (const auto& rounds : {std::vector<std::size_t>{5}, std::vector<std::size_t>{5, 17}}) {
    const auto s = analyse(soak(slow_in(rounds), 1, 0.02, kLongSoak));
    EXPECT_TRUE(s.patterns.empty());
    EXPECT_EQ(s.nodes[2].verdict, s::Remedy::kNone);
    ASSERT_FALSE(s.notes.empty());
    EXPECT_NE(s.notes.front().find("no more often than chance"), std::string::npos)
        << s.notes.front();
  }
}

// A path named now and then over a long soak, more often than the others but never in a spell
// (a busy host's noise), is no pattern; the same number of rounds in one spell is.
TEST(Soak, ScatteredNamingsAreNoPatternASpellIs) {
  constexpr std::size_t rounds = 400;
  std::vector<std::size_t> scattered;
  for (std::size_t k = 7; k < rounds; k += 23) scattered.push_back(k);  // 18 single rounds
  const auto s = analyse(soak(slow_in(scattered), 1, 0.02, rounds));
  EXPECT_TRUE(s.patterns.empty());
  bool noted = false;
  for (const auto& n : s.notes) noted = noted || n.find("scattered") != std::string::npos;
  EXPECT_TRUE(noted);
  const auto spell = analyse(soak(slow_in(span(200, 217)), 1, 0.02, rounds));
  const auto* p = pattern_of(spell, "h2", SoakPatternKind::kIntermittent);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->rounds.size(), 18u);
}

// A day's soak of 960 rounds: a node slow in 3 rounds running is a fault, named with those
// rounds however rare (a spell that long is beyond chance at its kind's rate); slow in 3 rounds
// far apart, it is no pattern.
TEST(Soak, AFewRoundsInARowOfADayAreNamedScatteredTheyAreNot) {
  constexpr std::size_t rounds = 960;
  const auto spell = analyse(soak(slow_in(span(480, 482)), 1, 0.02, rounds));
  const auto* p = pattern_of(spell, "h2", SoakPatternKind::kIntermittent);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->rounds, (std::vector<std::size_t>{480, 481, 482}));
  EXPECT_EQ(p->remedy, s::Remedy::kMonitor);
  EXPECT_LT(p->chance_p, 1e-5);
  EXPECT_EQ(spell.patterns.size(), 1u);
  const auto apart = analyse(soak(slow_in({100, 480, 900}), 1, 0.02, rounds));
  EXPECT_TRUE(apart.patterns.empty());
  EXPECT_EQ(apart.nodes[2].verdict, s::Remedy::kNone);
}

TEST(Soak, NodeSlowInEveryRoundIsPersistentAndIsolated) {
  std::vector<std::size_t> all(kRounds);
  for (std::size_t k = 0; k < kRounds; ++k) all[k] = k;
  const auto s = analyse(soak(slow_in(all), 1));
  const auto* p = pattern_of(s, "h2", SoakPatternKind::kPersistent);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->remedy, s::Remedy::kIsolate);
  EXPECT_EQ(s.nodes[2].verdict, s::Remedy::kIsolate);
}

TEST(Soak, NodeSlowFromARoundToTheLastIsAStepAtThatRound) {
  const auto s = analyse(soak(slow_in(span(16, 23)), 1, 0.02, kLongSoak));
  const auto* p = pattern_of(s, "h2", SoakPatternKind::kStep);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(s.rounds[p->step_from].repetition, 16);
  EXPECT_EQ(p->remedy, s::Remedy::kIsolate);
}

// Node h1 2% slower every round (the harness's --test-drift-per-round 0.02), each rank's times
// with 2% noise: drift found, its slope near 2%, over several draws; its 95% interval holds 2%
// in all but at most one of 10 draws (each misses with probability 0.05).
TEST(Soak, PlantedDriftIsFoundWithItsSlope) {
  int covered = 0;
  for (std::uint32_t seed = 1; seed <= 10; ++seed) {
    const auto s = analyse(soak(
        [](std::size_t node, std::size_t round) {
          return node == 1 ? 1 + 0.02 * static_cast<double>(round) : 1.0;
        },
        seed));
    const auto* p = pattern_of(s, "h1", SoakPatternKind::kDrift);
    ASSERT_NE(p, nullptr) << "seed " << seed;
    covered += p->slope_low <= 0.02 && p->slope_high >= 0.02;
    EXPECT_NEAR(p->slope, 0.02, 0.005) << "seed " << seed;
    // 22% over the soak: as slow as a named slow node by the end.
    EXPECT_EQ(p->remedy, s::Remedy::kIsolate);
    for (const char* other : {"h0", "h2", "h3"})
      EXPECT_EQ(pattern_of(s, other, SoakPatternKind::kDrift), nullptr) << other;
  }
  EXPECT_GE(covered, 9);
}

// A slower drift, 0.6% a round (6.6% over 12 rounds): called, but monitored.
TEST(Soak, SmallDriftIsMonitored) {
  const auto s = analyse(soak(
      [](std::size_t node, std::size_t round) {
        return node == 1 ? 1 + 0.006 * static_cast<double>(round) : 1.0;
      },
      3, 0.002));
  const auto* p = pattern_of(s, "h1", SoakPatternKind::kDrift);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->remedy, s::Remedy::kMonitor);
}

// Nothing planted, 2% noise: no drift and no name, over several draws.
TEST(Soak, CleanSoakNamesNoOneAndNoDrift) {
  for (std::uint32_t seed = 1; seed <= 20; ++seed) {
    const auto s = analyse(soak(slow_in({}), seed));
    EXPECT_TRUE(s.patterns.empty())
        << "seed " << seed << ": " << (s.patterns.empty() ? "" : s.patterns[0].why);
    for (const auto& n : s.nodes) EXPECT_EQ(n.verdict, s::Remedy::kNone) << n.node;
    ASSERT_TRUE(s.shared_drift.has_value());
    EXPECT_FALSE(s.shared_drift->called) << "seed " << seed;
  }
}

// Against its peers means without itself: of two nodes, the drifting one's slope is its own
// (with itself in the median, half of it).
TEST(Soak, OfTwoNodesTheDriftIsMeasuredAgainstTheOther) {
  const auto s = analyse(soak(
      [](std::size_t node, std::size_t round) {
        return node == 1 ? 1 + 0.02 * static_cast<double>(round) : 1.0;
      },
      3, 0.005, kRounds, 2));
  const auto* p = pattern_of(s, "h1", SoakPatternKind::kDrift);
  ASSERT_NE(p, nullptr);
  EXPECT_NEAR(p->slope, 0.02, 0.003);
  EXPECT_EQ(pattern_of(s, "h0", SoakPatternKind::kDrift), nullptr);
}

// A node whose figure moved once, 10% at mid-soak (the host's load changed), has a significant
// fitted slope but no drift: one change of level fits it better than a line (a note says so).
TEST(Soak, OneChangeOfLevelIsNoDrift) {
  const auto s = analyse(
      soak([](std::size_t node,
              std::size_t round) { return node == 1 && round >= kLongSoak / 2 ? 1.1 : 1.0; },
           5, 0.01, kLongSoak));
  EXPECT_EQ(pattern_of(s, "h1", SoakPatternKind::kDrift), nullptr);
  bool noted = false;
  for (const auto& n : s.notes) noted = noted || n.find("one change of level") != std::string::npos;
  EXPECT_TRUE(noted);
}

// Every node 1% slower each round: no node against its peers, a drift they share.
TEST(Soak, EveryNodeDriftingTogetherIsASharedDriftNotANodes) {
  const auto s = analyse(
      soak([](std::size_t, std::size_t round) { return 1 + 0.01 * static_cast<double>(round); }, 1,
           0.005));
  EXPECT_TRUE(s.patterns.empty());
  ASSERT_TRUE(s.shared_drift.has_value());
  EXPECT_TRUE(s.shared_drift->called);
  EXPECT_NEAR(s.shared_drift->slope, 0.01, 0.003);
}

// A GPU clock unlike its peers' in two spells: the remedy its series declares (reboot).
TEST(Soak, TelemetryFindingGetsTheRemedyItsSeriesDeclares) {
  auto run = soak(slow_in({}), 1, 0.02, kLongSoak);
  for (std::size_t round : joined(span(1, 4), span(10, 13))) {
    preflight::report::WatchedSeries w;
    w.rule = s::Watch::kPeers;
    w.finding = "SM clock unlike its peers'";
    w.tolerance = 0.1;
    w.remedy = s::Remedy::kReboot;
    w.per_rank = {1980, 1980, 1980, 1200};
    w.readings = w.broken = {10, 10, 10, 10};
    run.cases[round].watched["gpu_sm_mhz"] = w;
  }
  const auto s = analyse(run);
  ASSERT_EQ(s.patterns.size(), 1u);
  EXPECT_EQ(s.patterns[0].subject.kind, "device");
  EXPECT_EQ(s.patterns[0].subject.rank, 3);
  EXPECT_EQ(s.patterns[0].remedy, s::Remedy::kReboot);
  EXPECT_EQ(s.nodes[3].verdict, s::Remedy::kReboot);
  ASSERT_EQ(s.nodes[3].commands.size(), 1u);
  EXPECT_EQ(s.nodes[3].commands[0].rfind("scontrol reboot ASAP nextstate=RESUME reason=\"", 0), 0u);
}

// Others took `share` of the hosts' CPU while these rounds ran (each round one case here).
void contend(RunData& run, const std::vector<std::size_t>& rounds, double share) {
  for (std::size_t round : rounds) {
    auto& c = run.cases[round];
    c.host_cpu_foreign = share;
    c.host_cpu_stolen = 0;
    c.host_cpu_s = 1;
  }
}

// A node slow only while other processes held its hosts' CPU is the load's, not the node's: the
// contended rounds are not judged on timing, and the report says which they were. With 5% of the
// CPU taken, under the 25% bar, the same rounds are judged as usual.
TEST(Soak, RoundsWhoseHostsOthersHeldAreNotJudgedOnTheirTiming) {
  auto run = soak(slow_in(span(3, 8)), 1, 0.02, kLongSoak);
  contend(run, span(3, 8), 0.8);
  const auto s = analyse(run);
  EXPECT_TRUE(s.patterns.empty());
  for (auto& p : s.patterns) ADD_FAILURE() << "named " << p.subject.node;
  ASSERT_FALSE(s.notes.empty());
  EXPECT_EQ(s.notes[0].rfind("6 of 24 rounds not judged on their timing (rounds 3-8): other "
                             "processes or the hypervisor took 25% or more of their hosts' CPU "
                             "(up to 80%)",
                             0),
            0u)
      << s.notes[0];
  EXPECT_TRUE(s.rounds[2].timing_judged());
  EXPECT_FALSE(s.rounds[3].timing_judged());
  EXPECT_EQ(s.nodes[2].verdict, s::Remedy::kNone);

  auto quiet = soak(slow_in(span(3, 8)), 1, 0.02, kLongSoak);
  contend(quiet, span(3, 8), 0.05);
  const auto judged = analyse(quiet);
  const auto* p = pattern_of(judged, "h2", SoakPatternKind::kIntermittent);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(repetitions(judged, *p), (std::vector<std::int64_t>{3, 4, 5, 6, 7, 8}));
}

// The timing patterns are read over the judged rounds alone: a node slow in every round is still
// persistent with two contended rounds left out, and a slow spell with a contended round inside
// is one spell of the judged rounds around it.
TEST(Soak, PatternsAreReadOverTheRoundsJudgedOnTiming) {
  auto always =
      soak([](std::size_t node, std::size_t) { return node == 1 ? 1.5 : 1.0; }, 1, 0.02, kLongSoak);
  contend(always, {10, 11}, 0.9);
  const auto s = analyse(always);
  const auto* persistent = pattern_of(s, "h1", SoakPatternKind::kPersistent);
  ASSERT_NE(persistent, nullptr);
  EXPECT_EQ(persistent->rounds.size(), kLongSoak - 2);
  EXPECT_EQ(std::count(persistent->rounds.begin(), persistent->rounds.end(), 10u), 0);
  EXPECT_EQ(s.nodes[1].verdict, s::Remedy::kIsolate);

  auto spell = soak(slow_in(span(3, 10)), 1, 0.02, kLongSoak);
  contend(spell, {5, 6}, 0.9);
  const auto t = analyse(spell);
  const auto* p = pattern_of(t, "h2", SoakPatternKind::kIntermittent);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(repetitions(t, *p), (std::vector<std::int64_t>{3, 4, 7, 8, 9, 10}));
  EXPECT_EQ(p->episodes, 1u);
  EXPECT_EQ(preflight::report::when_text(t, *p), "in rounds 3-4, 7-10 (07:33:00 to 07:40:00 UTC)");
  EXPECT_EQ(preflight::report::when_text(s, *persistent),
            "in every round judged on its timing (22 of 24)");
}

// A GPU that runs within its margin of the temperature where its hardware slows it, in two hot
// spells of a soak, is a cooling fault: its node is isolated, with the drain commands. Another
// GPU, warm but 10 C short of its limit, and one whose limit NVML did not give, are not named.
TEST(Soak, AGpuCloseToItsSlowdownTemperatureInTwoSpellsIsIsolated) {
  auto run = soak(slow_in({}), 1, 0.02, kLongSoak);
  for (std::size_t round = 0; round < kLongSoak; ++round) {
    const bool hot = round % 12 >= 3 && round % 12 < 6;  // rounds 3-5 and 15-17
    preflight::report::WatchedSeries w;
    w.rule = s::Watch::kMargin;
    w.finding = "close to its slowdown temperature";
    w.tolerance = 5;
    w.unit = "C";
    w.reference = "gpu_slowdown_temp_c";
    w.remedy = s::Remedy::kIsolate;
    w.per_rank = {70, hot ? 87.0 : 74.0, 80, 95};
    w.reference_per_rank = {90, 90, 90, kNaNLimit};
    run.cases[round].watched["gpu_temp_c"] = w;
  }
  const auto s = analyse(run);
  ASSERT_EQ(s.patterns.size(), 1u);
  EXPECT_EQ(s.patterns[0].subject.kind, "device");
  EXPECT_EQ(s.patterns[0].subject.rank, 1);
  EXPECT_EQ(s.patterns[0].kind, SoakPatternKind::kIntermittent);
  EXPECT_EQ(repetitions(s, s.patterns[0]), (std::vector<std::int64_t>{3, 4, 5, 15, 16, 17}));
  EXPECT_EQ(s.nodes[1].verdict, s::Remedy::kIsolate);
  ASSERT_EQ(s.nodes[1].commands.size(), 2u);
  EXPECT_EQ(s.nodes[1].commands[1], "kubectl cordon h1");
  EXPECT_EQ(s.nodes[2].verdict, s::Remedy::kNone);
  EXPECT_EQ(s.nodes[3].verdict, s::Remedy::kNone);
}

preflight::report::Report report_of(const std::vector<RunData>& runs) {
  preflight::report::ReportInputs in;
  in.runs = &runs;
  in.labels = {"soak"};
  in.no_reference = true;
  return preflight::report::build_report(in);
}

// The soak's suspects are findings with suspects carrying their remedy: a monitor is listed and
// passes; an isolate fails the report (exit 1).
TEST(Soak, MonitorPassesAndIsolateFailsTheReport) {
  const std::vector<RunData> monitored{soak(slow_in(span(3, 8)), 1, 0.02, kLongSoak)};
  EXPECT_EQ(report_of(monitored).exit_code(), 0);
  const std::vector<RunData> isolated{
      soak(slow_in(joined(span(2, 6), span(15, 19))), 1, 0.02, kLongSoak)};
  const auto report = report_of(isolated);
  EXPECT_EQ(report.exit_code(), 1);
  bool named = false;
  for (const auto& f : report.findings)
    for (const auto& suspect : f.suspects)
      named = named ||
              (suspect.remediation == s::Remedy::kIsolate && suspect.pattern == "intermittent" &&
               suspect.hosts == std::vector<std::string>{"h2"});
  EXPECT_TRUE(named);
}

TEST(Soak, JsonHasTheSoakObjectAndTheSuspectsRemediation) {
  const std::vector<RunData> runs{
      soak(slow_in(joined(span(2, 6), span(15, 19))), 1, 0.02, kLongSoak)};
  const auto json = nlohmann::json::parse(preflight::report::render_json(report_of(runs)));
  const auto& summary = json.at("runs").at(0).at("soak");
  EXPECT_EQ(summary.at("rounds"), kLongSoak);
  ASSERT_EQ(summary.at("nodes").size(), kNodes);
  const auto& h2 = summary.at("nodes").at(2);
  EXPECT_EQ(h2.at("node"), "h2");
  EXPECT_EQ(h2.at("verdict"), "isolate");
  EXPECT_EQ(h2.at("patterns").at(0).at("kind"), "intermittent");
  EXPECT_EQ(h2.at("patterns").at(0).at("rounds"),
            (nlohmann::json{2, 3, 4, 5, 6, 15, 16, 17, 18, 19}));
  EXPECT_EQ(h2.at("patterns").at(0).at("episodes"), 2);
  EXPECT_EQ(h2.at("patterns").at(0).at("start_times").at(0), "2026-12-05T07:32:00.000Z");
  EXPECT_EQ(h2.at("commands").size(), 2u);
  EXPECT_EQ(summary.at("nodes").at(0).at("verdict"), "ok");
  bool suspect = false;
  for (const auto& x : json.at("suspects"))
    suspect = suspect ||
              (x.value("remediation", "") == "isolate" && x.value("pattern", "") == "intermittent");
  EXPECT_TRUE(suspect);
  // Not a soak: no soak object, and no suspect with a remediation.
  std::vector<RunData> plain{soak(slow_in({2, 5, 9}), 1)};
  plain[0].soak_s = 0;
  const auto without = nlohmann::json::parse(preflight::report::render_json(report_of(plain)));
  EXPECT_FALSE(without.at("runs").at(0).contains("soak"));
  for (const auto& x : without.at("suspects")) EXPECT_FALSE(x.contains("remediation"));
}

namespace streamed {

using preflight::report::SoakStream;

// The run as read in `order`, its cases fed to `stream` one by one as the reader feeds them (the
// run so far, the case's index); read again without the stream where it asks.
RunData read_into(SoakStream& stream, const RunData& whole, const std::vector<std::size_t>& order) {
  RunData so_far = whole;
  so_far.cases.clear();
  for (const auto i : order) {
    so_far.cases.push_back(whole.cases[i]);
    stream.add(so_far, so_far.cases.size() - 1);
  }
  if (stream.read_again())
    for (std::size_t k = 0; k < order.size(); ++k) so_far.cases[k] = whole.cases[order[k]];
  return so_far;
}

// What a SoakStream concludes of the run read in `order`.
SoakSummary streamed(const RunData& whole, const std::vector<std::size_t>& order,
                     bool& while_read) {
  SoakStream stream("soak", {}, {});
  const auto so_far = read_into(stream, whole, order);
  const auto summary = stream.finish(so_far);
  while_read = stream.judged_while_read();
  EXPECT_TRUE(summary.has_value());
  return summary.value_or(SoakSummary{});
}

// What the report shows of a summary, all of it compared.
std::string shown(const SoakSummary& s) {
  std::string out;
  for (const auto& r : s.rounds)
    out += fmt::format("round {} {} {}\n", r.repetition, r.start_time, r.cases);
  for (const auto& p : s.patterns) {
    out += fmt::format("{} {} {} {} {}", preflight::report::name_of(p.kind),
                       preflight::report::subject_text(p.subject), fmt::join(p.rounds, ","),
                       static_cast<int>(p.remedy), p.slope);
    for (const auto& e : p.evidence) out += " | " + e;
    out += "\n";
  }
  for (const auto& n : s.nodes)
    out += fmt::format("{} {} {}\n", n.node, static_cast<int>(n.verdict), fmt::join(n.figure, ","));
  for (const auto& note : s.notes) out += note + "\n";
  return out;
}

// A node slow in two spells, another drifting: the stream concludes what the whole run's
// analysis does, case by case in order; out of order it judges the whole run, with the same result.
TEST(SoakStream, ConcludesWhatTheWholeRunsAnalysisDoes) {
  const auto run = soak(
      [](std::size_t node, std::size_t round) {
        const bool spell = (round >= 3 && round <= 5) || (round >= 15 && round <= 17);
        return node == 2 && spell ? 1.5 : node == 1 ? 1 + 0.005 * static_cast<double>(round) : 1.0;
      },
      7, 0.01, 24);
  const auto whole = shown(analyse(run));
  ASSERT_NE(whole.find("intermittent node h2"), std::string::npos) << whole;
  ASSERT_NE(whole.find("drift node h1"), std::string::npos) << whole;
  std::vector<std::size_t> order(run.cases.size());
  std::iota(order.begin(), order.end(), 0);
  bool while_read = false;
  EXPECT_EQ(shown(streamed(run, order, while_read)), whole);
  EXPECT_TRUE(while_read);
  std::swap(order[5], order[20]);  // round 20 read before round 5: not in order
  EXPECT_EQ(shown(streamed(run, order, while_read)), whole);
  EXPECT_FALSE(while_read);
}

// Read in order, each case gives its telemetry to its round (the run keeps none of it), and the
// rounds' watch judgements joined are the whole run's; out of order, the stream asks for the file
// again and the run's own judgement reads it whole.
TEST(SoakStream, TheRunsTelemetryIsJudgedByItsRoundsJoined) {
  auto run = soak(slow_in({}), 1, 0.02, kLongSoak);
  for (std::size_t round = 0; round < kLongSoak; ++round) {
    preflight::report::WatchedSeries w;
    w.rule = s::Watch::kPeers;
    w.finding = "SM clock unlike its peers'";
    w.tolerance = 0.1;
    w.remedy = s::Remedy::kReboot;
    w.per_rank = {1980, 1980, round % 5 == 4 ? 1500.0 : 1980.0, round < 3 ? 1200.0 : 1980.0};
    run.cases[round].watched["gpu_sm_mhz"] = w;
  }
  const auto whole = preflight::report::find_watch_findings(run);
  ASSERT_EQ(whole.size(), 2u);  // rank 3 in rounds 0-2, rank 2 in rounds 4, 9, 14, 19
  std::vector<std::size_t> order(run.cases.size());
  std::iota(order.begin(), order.end(), 0);
  SoakStream stream("soak", {}, {});
  const auto read = read_into(stream, run, order);
  EXPECT_FALSE(stream.read_again());
  for (const auto& c : read.cases) EXPECT_TRUE(c.watched.empty()) << c.group_name;
  ASSERT_TRUE(stream.finish(read).has_value());
  ASSERT_TRUE(stream.judged_while_read());
  EXPECT_EQ(stream.watch().findings(read), whole);
  EXPECT_EQ(stream.watch().findings(read)[1].cases.size(), kLongSoak / 5);

  std::swap(order[5], order[20]);
  SoakStream disordered("soak", {}, {});
  const auto again = read_into(disordered, run, order);
  EXPECT_TRUE(disordered.read_again());
  EXPECT_FALSE(again.cases[0].watched.empty());
  EXPECT_EQ(preflight::report::find_watch_findings(again).size(), 2u);
}

TEST(SoakStream, NotASoakHasNoSummary) {
  auto run = soak(slow_in({}), 1);
  run.soak_s = 0;
  SoakStream stream("soak", {}, {});
  for (std::size_t i = 0; i < run.cases.size(); ++i) stream.add(run, i);
  EXPECT_FALSE(stream.finish(run).has_value());
}

}  // namespace streamed

}  // namespace
