// A soak read as a time series (docs/report.md, "Soaks"): the campaign's cases repeated in
// rounds (schema: root soak_s, each case's repetition its round). Each round is judged alone by
// the judgements the report runs on a whole run (slow nodes, device telemetry, the chain's named
// hosts, links and devices); what each names, round after round, makes a pattern (persistent,
// step, intermittent), and each node's speed against its peers, round by round, a trend (drift).
// Each pattern gets the remedy an operator applies (isolate, reboot, reset, monitor), each node
// its worst. Names no family and no metric.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/bottlenecks.hpp"
#include "analysis/device_watch.hpp"
#include "analysis/outliers.hpp"
#include "preflight/schema/meaning.hpp"
#include "reader/results_reader.hpp"

namespace preflight::report {

// The thresholds of the soak's verdicts (flags --soak-*; docs/report.md, "Soaks").
struct SoakOptions {
  // An intermittent node, host, link or device seen in at least this many episodes (runs of
  // named rounds, a gap of one round allowed inside one) gets its remedy (slow: isolate; a
  // telemetry finding: the remedy its series declares); seen in fewer, monitor. Named in every
  // round (persistent) or from some round to the last (step): its remedy whatever the count.
  std::size_t isolate_episodes = 2;
  // Drift is called where a node's slope over the rounds is significant (below, Bonferroni) and
  // adds up to at least this much of its first rounds' level over the soak (0.05: 5%) ...
  double min_drift = 0.05;
  // ... and calls for isolation where it adds up to this much: by the end the node is as slow
  // as a named slow node (OutlierOptions::min_ratio); below, monitor.
  double isolate_drift = 0.15;
  // Significance of a node's slope, and of how often a subject was named against chance: p <
  // alpha / the subjects of its kind (each is a test).
  double alpha = 0.01;
  // Named in at least this share of the rounds, a subject named beyond chance is a pattern
  // however its rounds lie; named in fewer, its rounds must also hold a spell (consecutive
  // rounds) beyond chance: a fault comes in spells, a busy host's noise names a path now and
  // then, scattered over the soak.
  double frequent_share = 0.1;
};

// A round whose hosts gave this share of their CPU or more to other processes or the hypervisor
// while its cases ran (pooled over its cases, as each case records it: the worst host's share)
// is not judged on its timing: a slow node or link there is the load's. A soak of 4 emulated hosts
// beside a compiler measured 79-92% in the rounds that named four healthy links (2026-12-05);
// quiet rounds of short cases measure nothing (a case's window under half a CPU-second is not
// measured) and are judged as usual.
inline constexpr double kContendedRoundShare = 0.25;
// Whether a round that gave `contention` of its hosts' CPU to others is judged on its timing
// (NaN, not measured: judged).
constexpr bool timing_judged(double contention) {
  return !(contention >= kContendedRoundShare);
}

// One round: its repetition, when its first case started (ISO 8601; "" where the file does not
// record it), its cases, and the share of its hosts' CPU others took (NaN: not measured).
struct SoakRound {
  std::int64_t repetition = 0;
  std::string start_time;
  std::size_t cases = 0;
  double contention = std::numeric_limits<double>::quiet_NaN();
  bool timing_judged() const { return report::timing_judged(contention); }
};

// What a round's judgement named: a slow node ("node", its node name and host), a host, a link
// or the fabric (a finding's suspect), or a device (a rank's GPU: a telemetry finding or wrong
// results).
struct SoakSubject {
  std::string kind;                // "node", "host", "link", "fabric" or "device"
  std::vector<std::string> hosts;  // the host, or a link's two hosts
  std::string node = {};           // node: its name; device: its rank's node
  std::int64_t rank = -1;          // device: the world rank that used it
  std::string device = {};         // device: its GPU (UUID, else PCI bus id; "" for a CPU)
  std::string what = {};           // what it was named for: "slow node", a finding's words
  auto key() const { return std::tie(kind, hosts, node, rank, device, what); }
  bool operator<(const SoakSubject& o) const { return key() < o.key(); }
};

enum class SoakPatternKind { kPersistent, kStep, kIntermittent, kDrift };
const char* name_of(SoakPatternKind k);

struct SoakPattern {
  SoakPatternKind kind = SoakPatternKind::kIntermittent;
  SoakSubject subject;
  std::vector<std::size_t> rounds;  // indices into SoakSummary::rounds where it was named
  std::size_t episodes = 0;         // runs of those rounds, a one-round gap allowed in a run
  double chance_p = kNaN;           // P(named in as many rounds or more by chance); NaN: not tested
  std::size_t step_from = 0;        // step: the round it began (an index)
  std::vector<std::string> evidence;  // per named round (the first few), or the drift's figures
  schema::Remedy remedy = schema::Remedy::kMonitor;
  std::string why;                      // why that remedy
  std::vector<std::size_t> nodes = {};  // the nodes it concerns (SoakSummary::nodes)
  // drift: the slope per round as a fraction of the first rounds' level, its 95% interval, and
  // the p-value of its t-test; NaN for the other patterns.
  double slope = kNaN, slope_low = kNaN, slope_high = kNaN, p = kNaN;
  static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
};

// A node of the run (every one in the environment) and what the soak found on it.
struct SoakNode {
  std::string node, host;
  schema::Remedy verdict = schema::Remedy::kNone;  // the worst of its patterns'; none: ok
  std::vector<std::size_t> patterns;               // indices into SoakSummary::patterns
  std::vector<std::string> commands;               // what an operator runs, one per line
  // Per round: the median over points of its ranks' median time over all ranks' (cases that
  // compare peers); NaN where none ran.
  std::vector<double> figure;
};

// Every node's figure drifting together: a cause they share (cooling, power, a shared service).
struct SharedDrift {
  double slope = 0, slope_low = 0, slope_high = 0, p = 1;
  bool called = false;
};

struct SoakSummary {
  double soak_s = 0;
  std::vector<SoakRound> rounds;
  std::vector<SoakPattern> patterns;
  std::vector<SoakNode> nodes;              // in the environment's order
  std::vector<std::size_t> links;           // patterns of links and the fabric (no host command)
  std::optional<SharedDrift> shared_drift;  // the median node's slope; none: fewer than 3 rounds
  std::vector<std::string> notes;           // what could not be judged, cases that hung
};

// Null for a run that is not a soak (soak_s absent or 0). Judges one round at a time from a copy
// of that round's cases alone, so that memory holds one round besides the run.
std::optional<SoakSummary> analyse_soak(const RunData& run, const std::string& label,
                                        const SoakOptions& options, const OutlierOptions& outliers);

// A soak judged round by round while its file is read (read_run's per-case callback), so that
// judging overlaps reading: finish() gives what analyse_soak gives on the whole run. The rounds
// must come in order, each round's cases together, as preflight writes them; where they do not,
// finish() judges the whole run with analyse_soak. Worker threads: the cores less the reader's.
// Each case's watched series move to its round (the run's judgement of them is the rounds'
// joined, watch()): the run keeps none of a soak's per-rank readings.
class SoakStream {
 public:
  SoakStream(std::string label, SoakOptions options, OutlierOptions outliers);
  ~SoakStream();
  SoakStream(SoakStream&&) noexcept;
  SoakStream& operator=(SoakStream&&) noexcept;
  // run.cases[index] has just been read; the cases before it stay where they are (read_run).
  // Takes the case's watched series while its rounds come in order.
  void add(RunData& run, std::size_t index);
  // After the last add: the rounds came out of order after cases gave up their watched series,
  // so the run lacks them: read the file again without the stream and finish() on that.
  bool read_again() const;
  // `run` read to its end: waits for the rounds still being judged.
  std::optional<SoakSummary> finish(const RunData& run);
  // After the last add: whether its rounds are judged as they were read (false: finish() judges
  // the whole run).
  bool judged_while_read() const;
  // After finish, where judged while read: the watch rules over every round's cases, joined in
  // order (what find_watch_findings gives on the run before its cases gave them up).
  const WatchJudgement& watch() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Every pattern of the run's soak as a finding (stage stragglers and hardware) whose suspect
// carries its remediation and pattern, so that every consumer of suspects sees it.
struct RunReport;
void add_soak_findings(const RunReport& run, std::vector<Finding>& out);

// "2, 5-7, 9": round numbers (repetitions) of the indices, consecutive ones as a range.
std::string rounds_text(const SoakSummary& s, const std::vector<std::size_t>& rounds);
// In words the same way by every renderer: a node's verdict ("ok" for none, else the remedy);
// what a subject is ("node h2 (host h2)", "device of rank 3 (GPU-...) on h1", "link h1 - h2");
// when a pattern was seen ("in rounds 2, 7 (07:31:02 to 07:40:55 UTC)", "+2.01% per round
// (...)"); and one line of all of it with the remedy and why.
std::string soak_verdict(schema::Remedy verdict);
std::string subject_text(const SoakSubject& subject);
std::string when_text(const SoakSummary& s, const SoakPattern& p);
std::string soak_pattern_line(const SoakSummary& s, const SoakPattern& p);
// The start time of round index `round`: "07:42:10 UTC", or "" where the file has none.
std::string round_time(const SoakSummary& s, std::size_t round);
// "07:42:10": the time of day of an ISO 8601 time ("" where it has none).
std::string time_of_day(const std::string& iso);

}  // namespace preflight::report
