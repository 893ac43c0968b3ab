#include "analysis/soak.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <exception>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

#include "analysis/bottlenecks.hpp"
#include "analysis/case_table.hpp"
#include "analysis/device_watch.hpp"
#include "analysis/headline_figures.hpp"
#include "analysis/host_load.hpp"
#include "analysis/leave_one_out.hpp"
#include "analysis/replicates.hpp"
#include "analysis/report.hpp"
#include "preflight/common/stats.hpp"
#include "preflight/schema/layout.hpp"

namespace preflight::report {
namespace {

namespace s = schema;

// Evidence kept per subject: the first rounds' lines (a 24-hour soak names a persistent node in
// every one of 150 rounds; the rounds themselves are all kept).
constexpr std::size_t kEvidenceKept = 4;
// Notes kept (cases that hung or failed), the rest counted.
constexpr std::size_t kNotesKept = 20;

std::string rank_column(const RunData& run, std::string_view column, std::size_t rank) {
  const auto it = run.environment.find(std::string(column));
  return it == run.environment.end() || rank >= it->second.size() ? "" : it->second[rank];
}

}  // namespace

// Named, not anonymous: SoakStream::State holds them.
namespace soak_parts {

// The run's nodes in order of their first rank, and each rank's node.
struct NodeMap {
  std::vector<std::string> names, hosts;
  std::vector<std::size_t> node_of_rank;        // index into names
  std::vector<std::vector<std::size_t>> ranks;  // per node
  std::map<std::string, std::size_t> index;     // node name -> index
  // What the chain of findings needs of the environment (as RunReport holds it), the same in
  // every round: taken once.
  std::vector<std::string> distinct_hosts;
  std::map<std::string, std::string> host_of_node;
  std::string rank0_host;
};

}  // namespace soak_parts
using soak_parts::NodeMap;

namespace {

NodeMap node_map(const RunData& run) {
  NodeMap m;
  const auto ranks = static_cast<std::size_t>(std::max<std::int64_t>(run.world_size, 0));
  for (std::size_t r = 0; r < ranks; ++r) {
    std::string name = rank_column(run, s::env::kNodeName.name, r);
    const std::string host = rank_column(run, s::env::kHost.name, r);
    if (name.empty()) name = host;
    auto [it, fresh] = m.index.try_emplace(name, m.names.size());
    if (fresh) {
      m.names.push_back(name);
      m.hosts.push_back(host);
      m.ranks.emplace_back();
    }
    m.node_of_rank.push_back(it->second);
    m.ranks[it->second].push_back(r);
  }
  m.distinct_hosts = distinct_hosts(run);
  m.host_of_node = host_of_node(run);
  m.rank0_host = rank0_host(run);
  return m;
}

// The device a rank used, as nvidia-smi -i takes it: its GPU's UUID, else its PCI bus id.
std::string gpu_of_rank(const RunData& run, std::size_t rank) {
  auto uuid = rank_column(run, s::env::kGpuUuid.name, rank);
  return uuid.empty() ? rank_column(run, s::kGpuEnvironmentColumns[0].name, rank) : uuid;
}

}  // namespace

// Named, not anonymous: SoakStream::State holds them.
namespace soak_parts {

// Each subject named in some round: the rounds (indices, increasing) and the first lines.
struct Named {
  std::vector<std::size_t> rounds;
  std::vector<std::string> evidence;
  s::Remedy declared = s::Remedy::kNone;  // a telemetry finding's remedy, as its series declares
  // Named for how long something took (a slow node, link or host), so only in the rounds judged
  // on their timing (SoakRound::timing_judged); else wrong results or telemetry, in every round.
  bool timed = true;
};
using NamedMap = std::map<SoakSubject, Named>;

}  // namespace soak_parts
using soak_parts::Named;
using soak_parts::NamedMap;

namespace {

void record_named(NamedMap& named, const SoakSubject& subject, std::size_t round,
                  std::string evidence, s::Remedy declared = s::Remedy::kNone, bool timed = true) {
  auto& n = named[subject];
  n.timed = n.timed && timed;  // one subject named both ways (it should not be): all rounds
  if (n.rounds.empty() || n.rounds.back() != round) n.rounds.push_back(round);
  if (n.evidence.size() < kEvidenceKept) n.evidence.push_back(std::move(evidence));
  n.declared = std::max(n.declared, declared);
}

std::string round_label(const SoakRound& r) {
  const auto time = time_of_day(r.start_time);
  return time.empty() ? fmt::format("round {}", r.repetition)
                      : fmt::format("round {} ({} UTC)", r.repetition, time);
}

std::string round_label(const SoakSummary& s, std::size_t round) {
  return round_label(s.rounds[round]);
}

bool exact_judgement(const SoakSubject& subject);

// The judgements of a whole run, on one round: slow nodes, device telemetry, and the hosts,
// links, fabric and devices the chain's findings name (a fabric pair sweep's isolation, a
// device's wrong results). Without `timing`, only what does not rest on time: telemetry and
// wrong results. `watch`: the round's telemetry judged, to be joined with the other rounds'
// into the run's (SoakStream::watch).
void judge_round(const RunData& round, const std::string& label, const NodeMap& nodes,
                 const OutlierOptions& outlier_options, const SoakRound& this_round, std::size_t k,
                 bool timing, NamedMap& named, WatchJudgement& watch) {
  const auto when = round_label(this_round);
  auto judged = timing ? judge_outliers(round, outlier_options) : OutlierJudgement{};
  for (const auto& o : judged.outliers) {
    if (o.kind != "node") continue;
    const auto it = nodes.index.find(o.name);
    const std::string host = it == nodes.index.end() ? o.name : nodes.hosts[it->second];
    record_named(named, {"node", {host}, o.name, -1, "", "slow node"}, k,
                 fmt::format("{}: {:.2f}x its peers' typical time (robust z {:.1f}, {} sizes)",
                             when, o.ratio, o.z, o.sizes));
  }
  for (const auto& c : round.cases) watch.add(round, c);
  RunReport report{&round, label, std::move(judged.outliers), std::move(judged.not_judged),
                   watch.findings(round)};
  for (const auto& w : report.watch_findings) {
    const auto rank = static_cast<std::size_t>(std::max(w.rank, 0));
    const auto node = rank < nodes.node_of_rank.size() ? nodes.node_of_rank[rank] : 0;
    if (nodes.names.empty()) break;
    record_named(named,
                 {"device",
                  {nodes.hosts[node]},
                  nodes.names[node],
                  w.rank,
                  gpu_of_rank(round, rank),
                  w.finding},
                 k, fmt::format("{}: {}: {}", when, w.finding, w.detail), w.remedy, false);
  }
  report.outcomes = case_outcomes(round);
  report.hosts = nodes.distinct_hosts;
  report.host_of_node = nodes.host_of_node;
  report.rank0_host = nodes.rank0_host;
  const std::vector<RunReport> one{std::move(report)};
  for (const auto& f : find_bottlenecks(one, {}))
    for (const auto& suspect : f.suspects) {
      SoakSubject subject{suspect.kind, suspect.hosts,  "",
                          suspect.rank, suspect.device, name_of(f.stage)};
      const auto r = static_cast<std::size_t>(std::max<std::int64_t>(suspect.rank, 0));
      if (suspect.kind == kDeviceSuspect && r < nodes.node_of_rank.size())
        subject.node = nodes.names[nodes.node_of_rank[r]];
      const bool exact = exact_judgement(subject);
      if (!timing && !exact) continue;
      record_named(named, subject, k, fmt::format("{}: {}", when, f.title), s::Remedy::kNone,
                   !exact);
    }
}

// Cases of the round that failed or hung: a note each (the chain's findings name a device
// where the evidence does).
void note_failures(const RunData& round, const SoakRound& r, std::vector<std::string>& notes,
                   std::size_t& dropped) {
  for (const auto& c : round.cases) {
    if (c.status == s::case_status::kOk) continue;
    if (notes.size() >= kNotesKept) {
      ++dropped;
      continue;
    }
    notes.push_back(fmt::format("{}: case {} {} {}", round_label(r), c.group_name, c.name,
                                c.status == s::case_status::kTimeout ? "hung" : "failed"));
  }
}

// The active ranks' times at a point, into `out` (idle ranks' are NaN).
void active_times(const std::vector<double>& times, std::vector<double>& out) {
  out.clear();
  for (double t : times)
    if (!std::isnan(t)) out.push_back(t);
}

// Per node: the median over the round's points (cases that compare peers) of the median of its
// ranks' times over the median of the other nodes' active ranks' -- against its peers, as the
// slow-node judgement compares (outliers.hpp), kept per round; without itself, so that with two
// nodes a node's drift is not halved by its own share of the median. Linear in ranks per point
// (and log ranks per node).
std::vector<double> node_figures(const RunData& round, const NodeMap& nodes,
                                 const OutlierOptions& o) {
  std::vector<std::vector<double>> ratios(nodes.names.size());
  std::size_t most = 0;  // ranks of the largest node
  for (const auto& r : nodes.ranks) most = std::max(most, r.size());
  std::vector<double> active, own;
  for (const auto& c : round.cases) {
    if (!c.meaning.peer_slow) continue;
    for (std::size_t point = 0; point < c.rank_medians.size(); ++point) {
      const auto* times = slowness_times(c, point, o);
      if (times == nullptr) continue;
      active_times(*times, active);
      if (active.size() < 2) continue;
      const LeaveSomeOutMedian all(active, most);
      for (std::size_t n = 0; n < nodes.ranks.size(); ++n) {
        own.clear();
        for (std::size_t r : nodes.ranks[n])
          if (r < times->size() && !std::isnan((*times)[r])) own.push_back((*times)[r]);
        if (own.empty()) continue;
        const double peers = all.without(own);
        if (peers > 0) ratios[n].push_back(median_in_place(own) / peers);
      }
    }
  }
  std::vector<double> out(ratios.size(), kNaN);
  for (std::size_t n = 0; n < ratios.size(); ++n)
    if (!ratios[n].empty()) out[n] = median_in_place(ratios[n]);
  return out;
}

// Per round: the median over points of all active ranks' median time against the same case
// position and point in the first round that ran it, for every node drifting together. A
// round's levels are taken on its own (rounds are judged in parallel), then set against the
// first rounds' in order (shared_figures).
}  // namespace

// Named, not anonymous: SoakStream::State holds them.
namespace soak_parts {

struct PointLevel {
  std::size_t position = 0, point = 0;
  double all = 0;  // all active ranks' median time
};

}  // namespace soak_parts
using soak_parts::PointLevel;

namespace {

std::vector<PointLevel> point_levels(const RunData& round, const OutlierOptions& o) {
  std::vector<PointLevel> out;
  std::vector<double> active;
  for (std::size_t position = 0; position < round.cases.size(); ++position) {
    const auto& c = round.cases[position];
    if (!c.meaning.peer_slow) continue;
    for (std::size_t point = 0; point < c.rank_medians.size(); ++point) {
      const auto* times = slowness_times(c, point, o);
      if (times == nullptr) continue;
      active_times(*times, active);
      if (active.empty()) continue;
      const double all = median_in_place(active);
      if (all > 0) out.push_back({position, point, all});
    }
  }
  return out;
}

std::vector<double> shared_figures(const std::vector<std::vector<PointLevel>>& levels) {
  std::map<std::pair<std::size_t, std::size_t>, double> first;  // (position, point) -> time
  std::vector<double> figure(levels.size(), kNaN), relative;
  for (std::size_t k = 0; k < levels.size(); ++k) {
    relative.clear();
    for (const auto& l : levels[k]) {
      const auto [it, fresh] = first.try_emplace({l.position, l.point}, l.all);
      relative.push_back(l.all / it->second);
    }
    if (!relative.empty()) figure[k] = median_in_place(relative);
  }
  return figure;
}

}  // namespace

// Named, not anonymous: SoakStream::State holds them.
namespace soak_parts {

// What one round's judgement found, kept until the rounds are taken in order (take_round).
struct RoundJudgement {
  double contention = kNaN;  // the share of its hosts' CPU others took (SoakRound::contention)
  NamedMap named;
  std::vector<std::string> notes;  // cases that failed or hung
  std::size_t dropped = 0;
  std::vector<double> node_figures;  // per node (node_figures)
  std::vector<PointLevel> levels;
  WatchJudgement watch;  // its cases' telemetry, for the run's judgement (SoakStream::watch)
  bool done = false;     // judged (SoakStream: rounds finish out of order)
};

}  // namespace soak_parts
using soak_parts::RoundJudgement;

namespace {

// The run without its cases: a round's cases go in, one round at a time.
RunData run_without_cases(const RunData& run) {
  RunData round;
  round.path = run.path;
  round.schema_version = run.schema_version;
  round.status = run.status;
  round.world_size = run.world_size;
  round.node_count = run.node_count;
  round.environment = run.environment;
  return round;
}

// Everything a soak's judgement of one round needs besides the round: the same for every round.
struct RoundContext {
  const std::string& label;
  const NodeMap& nodes;
  const OutlierOptions& outliers;
};

// `round` holds the round's cases (and the run's environment).
RoundJudgement judge_one_round(const RunData& round, const RoundContext& x, const SoakRound& r,
                               std::size_t k) {
  RoundJudgement j;
  if (const auto load = run_host_load(round); load.measured()) j.contention = load.contention();
  const bool timing = timing_judged(j.contention);
  judge_round(round, x.label, x.nodes, x.outliers, r, k, timing, j.named, j.watch);
  note_failures(round, r, j.notes, j.dropped);
  if (!timing) return j;  // no figure of a contended round goes into a node's drift
  j.node_figures = node_figures(round, x.nodes, x.outliers);
  j.levels = point_levels(round, x.outliers);
  return j;
}

// The rounds in about equal blocks, as many as the machine has cores (up to 8), each from..to.
std::vector<std::pair<std::size_t, std::size_t>> round_blocks(std::size_t rounds) {
  const std::size_t cores = std::max(1U, std::thread::hardware_concurrency());
  const std::size_t count =
      std::clamp<std::size_t>(std::min<std::size_t>(cores, 8), 1, std::max<std::size_t>(rounds, 1));
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t b = 0; b < count; ++b)
    out.emplace_back(rounds * b / count, rounds * (b + 1) / count);
  return out;
}

// Round k's names, notes and figures after those of the rounds before it, as one pass in round
// order records them, whatever thread judged which round.
void take_round(RoundJudgement&& j, std::size_t k, NamedMap& named, SoakSummary& s,
                std::vector<std::vector<PointLevel>>& levels, std::size_t& dropped) {
  s.rounds[k].contention = j.contention;
  for (auto& [subject, n] : j.named) {
    auto& into = named[subject];
    into.timed = into.timed && n.timed;
    into.rounds.insert(into.rounds.end(), n.rounds.begin(), n.rounds.end());
    for (auto& e : n.evidence)
      if (into.evidence.size() < kEvidenceKept) into.evidence.push_back(std::move(e));
    into.declared = std::max(into.declared, n.declared);
  }
  for (auto& note : j.notes) {
    if (s.notes.size() < kNotesKept)
      s.notes.push_back(std::move(note));
    else
      ++dropped;
  }
  dropped += j.dropped;
  for (std::size_t n = 0; n < s.nodes.size() && n < j.node_figures.size(); ++n)
    s.nodes[n].figure[k] = j.node_figures[n];
  levels[k] = std::move(j.levels);
}

// Least squares of a figure on the round index: the slope as a fraction of the fitted level at
// the first round, its 95% interval and the two-sided p of its t-test; NaN with fewer than 3
// rounds.
struct Trend {
  double slope = kNaN, low = kNaN, high = kNaN, p = kNaN;
  double span = 0;  // rounds between the first and the last with a figure
};

Trend trend(const std::vector<double>& y) {
  double n = 0, sx = 0, sy = 0;
  for (std::size_t i = 0; i < y.size(); ++i)
    if (!std::isnan(y[i])) {
      ++n;
      sx += static_cast<double>(i);
      sy += y[i];
    }
  Trend t;
  if (n < 3) return t;
  const double mx = sx / n, my = sy / n;
  double sxx = 0, sxy = 0, first = -1, last = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    if (std::isnan(y[i])) continue;
    const double x = static_cast<double>(i);
    sxx += (x - mx) * (x - mx);
    sxy += (x - mx) * (y[i] - my);
    if (first < 0) first = x;
    last = x;
  }
  const double b = sxy / sxx, level = my - b * mx;
  if (!(level > 0)) return t;
  double ssr = 0;
  for (std::size_t i = 0; i < y.size(); ++i)
    if (!std::isnan(y[i])) {
      const double e = y[i] - (level + b * static_cast<double>(i));
      ssr += e * e;
    }
  const double df = n - 2, se = std::sqrt(ssr / df / sxx);
  const double q = student_t_quantile(0.975, df);
  t.slope = b / level;
  t.low = (b - q * se) / level;
  t.high = (b + q * se) / level;
  t.p = se > 0 ? student_t_two_sided_p(std::abs(b) / se, df) : (b != 0 ? 0.0 : 1.0);
  t.span = last - first;
  return t;
}

// A step holds at least this many consecutive rounds to the last: a node named in the last round
// or two by chance is no step.
constexpr std::size_t kStepRounds = 3;

// Runs of named rounds (increasing indices), a gap of one round allowed inside a run: a round
// in the middle of a slow spell that judged fine by chance does not split it in two.
std::size_t episodes_of(const std::vector<std::size_t>& rounds) {
  std::size_t episodes = 0;
  for (std::size_t i = 0; i < rounds.size(); ++i)
    if (i == 0 || rounds[i] > rounds[i - 1] + 2) ++episodes;
  return episodes;
}

// Persistent (every round), step (from some round after the first to the last without a gap,
// kStepRounds rounds or more), else intermittent.
SoakPattern pattern_of(const SoakSubject& subject, const Named& n, std::size_t rounds) {
  SoakPattern p;
  p.subject = subject;
  p.rounds = n.rounds;
  p.evidence = n.evidence;
  p.episodes = episodes_of(n.rounds);
  if (n.rounds.size() == rounds) {
    p.kind = SoakPatternKind::kPersistent;
    return p;
  }
  if (n.rounds.empty() || n.rounds.back() + 1 != rounds) return p;
  // n.rounds[from..] are the consecutive rounds that end at the last one.
  std::size_t from = n.rounds.size() - 1;
  while (from > 0 && n.rounds[from - 1] + 1 == n.rounds[from]) --from;
  if (n.rounds.size() - from >= kStepRounds && n.rounds[from] > 0) {
    p.kind = SoakPatternKind::kStep;
    p.step_from = n.rounds[from];
  }
  return p;
}

// P(X >= k) for X ~ Binomial(n, p).
double binomial_upper_tail(std::size_t k, std::size_t n, double p) {
  if (k == 0) return 1;
  if (k > n || p <= 0) return 0;
  if (p >= 1) return 1;
  const double log_p = std::log(p), log_q = std::log1p(-p), dn = static_cast<double>(n);
  double tail = 0;
  for (std::size_t i = k; i <= n; ++i) {
    const double di = static_cast<double>(i);
    tail += std::exp(std::lgamma(dn + 1) - std::lgamma(di + 1) - std::lgamma(dn - di + 1) +
                     di * log_p + (dn - di) * log_q);
  }
  return std::min(tail, 1.0);
}

// What a round could have named of a subject's kind: nodes, hosts, host pairs (links), ranks
// (devices), one fabric.
std::size_t candidates_of(const std::string& kind, const NodeMap& nodes) {
  const std::set<std::string> hosts(nodes.hosts.begin(), nodes.hosts.end());
  if (kind == "node") return std::max<std::size_t>(nodes.names.size(), 1);
  if (kind == "host") return std::max<std::size_t>(hosts.size(), 1);
  if (kind == kLinkSuspect) return std::max<std::size_t>(hosts.size() * (hosts.size() - 1) / 2, 1);
  if (kind == kDeviceSuspect) return std::max<std::size_t>(nodes.node_of_rank.size(), 1);
  return 1;
}

// Every round's judgement errs now and then on a busy host, and a soak of n rounds gives each
// node n chances: a subject is a pattern only where it was named more often than its kind's
// subjects are by chance. The chance rate is the median rate over every subject of the kind
// (those never named count as 0: robust to the few that are faulty), at least one round in n;
// named in k rounds is beyond chance where P(Binomial(n, rate) >= k) < alpha / candidates.
// Wrong results are exact, never chance: not tested.
struct Chance {
  double rate = 0;
  std::size_t candidates = 1;
};
std::map<std::pair<std::string, std::string>, Chance> chance_rates(const NamedMap& named,
                                                                   std::size_t rounds,
                                                                   const NodeMap& nodes) {
  std::map<std::pair<std::string, std::string>, std::vector<double>> rates;
  for (const auto& [subject, n] : named)
    rates[{subject.kind, subject.what}].push_back(static_cast<double>(n.rounds.size()) /
                                                  static_cast<double>(rounds));
  std::map<std::pair<std::string, std::string>, Chance> out;
  for (auto& [key, r] : rates) {
    Chance c;
    c.candidates = std::max(candidates_of(key.first, nodes), r.size());
    r.resize(c.candidates, 0.0);
    std::sort(r.begin(), r.end());
    const std::size_t mid = r.size() / 2;
    const double median = r.size() % 2 == 1 ? r[mid] : (r[mid - 1] + r[mid]) / 2;
    c.rate = std::max(median, 1.0 / static_cast<double>(rounds));
    out[key] = c;
  }
  return out;
}

// The longest run of consecutive rounds among `rounds` (increasing indices).
std::size_t longest_spell(const std::vector<std::size_t>& rounds) {
  std::size_t longest = 0, run = 0;
  for (std::size_t i = 0; i < rounds.size(); ++i) {
    run = i > 0 && rounds[i] == rounds[i - 1] + 1 ? run + 1 : 1;
    longest = std::max(longest, run);
  }
  return longest;
}

// log C(n, k).
double log_choose(std::size_t n, std::size_t k) {
  const auto f = [](std::size_t x) { return std::lgamma(static_cast<double>(x) + 1); };
  return f(n) - f(k) - f(n - k);
}

// With k rounds of n named at random, the chance that `spell` or more of them are consecutive
// somewhere: at most, over the n - spell + 1 windows of that many rounds, the chance that a
// window is all named, C(n - spell, k - spell) / C(n, k) each.
double spell_chance(std::size_t spell, std::size_t k, std::size_t n) {
  if (spell == 0 || spell > k || k > n) return 1;
  const double window = std::exp(log_choose(n - spell, k - spell) - log_choose(n, k));
  return std::min(1.0, static_cast<double>(n - spell + 1) * window);
}

// The chance that a run of `spell` or more consecutive rounds of n is all named when each round
// is named at `rate` on its own: at most, over the n - spell + 1 windows, rate^spell each.
double run_chance(std::size_t spell, std::size_t n, double rate) {
  if (spell == 0 || spell > n) return 1;
  return std::min(1.0,
                  static_cast<double>(n - spell + 1) * std::pow(rate, static_cast<double>(spell)));
}

// Whether the rounds a subject was named in are beyond chance (docs/report.md, "Named more often
// than chance"): more of them than its kind's rate makes likely and, under frequent_share of the
// rounds, a spell too long for their count; or, however few, a spell too long both for their
// count and for its kind's rate (a node slow for 3 rounds of a day's 960). "" for a pattern, else
// the note that says why not; sets p.chance_p (the smaller P of the tests that called it).
std::string beyond_chance(const SoakSummary& s, const SoakSubject& subject, const Named& n,
                          const Chance& c, const SoakOptions& o, SoakPattern& p) {
  const std::size_t named_in = n.rounds.size(), rounds = s.rounds.size();
  const double bar = o.alpha / static_cast<double>(c.candidates);
  const double often_p = binomial_upper_tail(named_in, rounds, c.rate);
  const std::size_t spell = longest_spell(n.rounds);
  const double spell_p = spell_chance(spell, named_in, rounds);
  const double run_p = run_chance(spell, rounds, c.rate);
  const double share = static_cast<double>(named_in) / static_cast<double>(rounds);
  const bool often = often_p < bar, in_a_spell = spell_p < bar;
  if (in_a_spell && run_p < bar) {
    p.chance_p = std::min(often_p, run_p);
    return "";
  }
  if (often && (share >= o.frequent_share || in_a_spell)) {
    p.chance_p = often_p;
    return "";
  }
  const auto spell_text = fmt::format("{} round{}", spell, spell == 1 ? "" : "s");
  if (!often)
    return fmt::format(
        "{} ({}) named in {} of {} rounds ({}): no more often than chance (its kind's subjects "
        "are named in {:.1f}% of rounds; P = {:.2g}, not below {:.2g}), nor in a spell beyond it "
        "(its longest, {}: P = {:.2g}): no pattern",
        subject_text(subject), subject.what, named_in, rounds, rounds_text(s, n.rounds),
        100 * c.rate, often_p, bar, spell_text, std::max(spell_p, run_p));
  return fmt::format(
      "{} ({}) named in {} of {} rounds ({}), scattered: its longest spell, {}, is no longer than "
      "chance makes of {} rounds (P = {:.2g}, not below {:.2g}): no pattern (a busy host's noise, "
      "or a path that fails a round at a time: rerun with longer rounds)",
      subject_text(subject), subject.what, named_in, rounds, rounds_text(s, n.rounds), spell_text,
      named_in, spell_p, bar);
}

bool exact_judgement(const SoakSubject& subject) {
  return subject.kind == kDeviceSuspect && subject.what == name_of(Stage::kCorrectness);
}

// The remedy of a pattern and why (docs/report.md, "Soaks").
void assign_remedy(SoakPattern& p, const Named& n, const SoakOptions& o) {
  const bool recurring =
      p.kind != SoakPatternKind::kIntermittent || p.episodes >= o.isolate_episodes;
  const auto& subject = p.subject;
  if (exact_judgement(subject)) {
    p.remedy = s::Remedy::kIsolate;
    p.why = "wrong results from its device: one is a hardware defect";
    return;
  }
  if (!recurring) {
    p.remedy = s::Remedy::kMonitor;
    p.why =
        fmt::format("seen in {} episode{} ({} round{}), fewer than {} (--soak-isolate-episodes)",
                    p.episodes, p.episodes == 1 ? "" : "s", p.rounds.size(),
                    p.rounds.size() == 1 ? "" : "s", o.isolate_episodes);
    return;
  }
  const std::string how = p.kind == SoakPatternKind::kPersistent ? "in every round"
                          : p.kind == SoakPatternKind::kStep
                              ? "from a round on to the last"
                              : fmt::format("in {} episodes (>= {}, --soak-isolate-episodes)",
                                            p.episodes, o.isolate_episodes);
  if (n.declared != s::Remedy::kNone) {
    p.remedy = n.declared;
    p.why = fmt::format("{} {}; its series declares {}", subject.what, how, s::name_of(n.declared));
    return;
  }
  p.remedy = s::Remedy::kIsolate;
  p.why = fmt::format("{} ({}) named {}: a hardware fault until shown otherwise", subject.kind,
                      subject.what, how);
}

// Whether a line fits the figure better than one change of level does (the least squared error
// of two flat parts, at least 3 rounds each): a drift grows round by round; a figure that moved
// once (another job started on the host, the hosts' load changed) or was thrown off by a few
// rounds at one end is no drift, however significant its fitted slope.
bool line_beats_step(const std::vector<double>& figure) {
  std::vector<double> y;
  std::vector<double> x;
  for (std::size_t i = 0; i < figure.size(); ++i)
    if (!std::isnan(figure[i])) {
      y.push_back(figure[i]);
      x.push_back(static_cast<double>(i));
    }
  const std::size_t n = y.size();
  if (n < 6) return true;  // too short to split: the slope's test alone
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < n; ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= static_cast<double>(n);
  my /= static_cast<double>(n);
  double sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
  }
  const double b = sxy / sxx;
  double line = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double e = y[i] - (my + b * (x[i] - mx));
    line += e * e;
  }
  // Prefix sums give each split's two sums of squares in constant time.
  std::vector<double> sum(n + 1, 0), squares(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    sum[i + 1] = sum[i] + y[i];
    squares[i + 1] = squares[i] + y[i] * y[i];
  }
  const auto sse = [&](std::size_t from, std::size_t to) {
    const double m = static_cast<double>(to - from), total = sum[to] - sum[from];
    return squares[to] - squares[from] - total * total / m;
  };
  double level_change = std::numeric_limits<double>::infinity();
  for (std::size_t k = 3; k + 3 <= n; ++k)
    level_change = std::min(level_change, sse(0, k) + sse(k, n));
  return line < level_change;
}

void drift_patterns(SoakSummary& s, const NodeMap& nodes, const SoakOptions& o) {
  const double nodes_judged = static_cast<double>(std::max<std::size_t>(nodes.names.size(), 1));
  for (std::size_t n = 0; n < s.nodes.size(); ++n) {
    const auto t = trend(s.nodes[n].figure);
    if (std::isnan(t.slope) || !(t.slope > 0) || !(t.p < o.alpha / nodes_judged) ||
        t.slope * t.span < o.min_drift)
      continue;
    if (!line_beats_step(s.nodes[n].figure)) {
      s.notes.push_back(fmt::format(
          "node {}: its figure rose {:+.2f}% a round (p {:.2g}), but one change of level fits "
          "it better than a line: no drift (a change at one round, or a few rounds at one end)",
          s.nodes[n].node, 100 * t.slope, t.p));
      continue;
    }
    SoakPattern p;
    p.kind = SoakPatternKind::kDrift;
    p.subject = {"node", {s.nodes[n].host}, s.nodes[n].node, -1, "", "drift"};
    p.slope = t.slope;
    p.slope_low = t.low;
    p.slope_high = t.high;
    p.p = t.p;
    for (std::size_t k = 0; k < s.rounds.size(); ++k) p.rounds.push_back(k);
    const double total = t.slope * t.span;
    p.evidence.push_back(fmt::format(
        "slower against its peers by {:+.2f}% of its first rounds' level per round (95% interval "
        "{:+.2f}% to {:+.2f}%; p {:.2g} < {:.2g}, alpha {} over {} nodes): {:+.1f}% over the soak",
        100 * t.slope, 100 * t.low, 100 * t.high, t.p, o.alpha / nodes_judged, o.alpha,
        nodes.names.size(), 100 * total));
    p.remedy = total >= o.isolate_drift ? s::Remedy::kIsolate : s::Remedy::kMonitor;
    p.why = total >= o.isolate_drift ? fmt::format(
                                           "drift of {:.1f}% over the soak, at least {:.0f}% "
                                           "(--soak-isolate-drift): as slow as a named slow node",
                                           100 * total, 100 * o.isolate_drift)
                                     : fmt::format(
                                           "drift of {:.1f}% over the soak, under {:.0f}% "
                                           "(--soak-isolate-drift)",
                                           100 * total, 100 * o.isolate_drift);
    s.patterns.push_back(std::move(p));
  }
}

std::string shell_word(const std::string& word) {
  const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_';
  });
  if (plain) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// A reason for a scheduler, quoted: the pattern's words without quotes or shell characters.
std::string reason_of(const SoakSummary& s, const SoakPattern& p) {
  std::string what = fmt::format("preflight soak: {} {} rounds {}", p.subject.what, name_of(p.kind),
                                 rounds_text(s, p.rounds));
  for (char& c : what)
    if (!(std::isalnum(static_cast<unsigned char>(c)) ||
          std::string_view(" .,:-_'/").find(c) != std::string_view::npos) ||
        c == '\'')
      c = ' ';
  return what;
}

std::vector<std::string> commands_of(const SoakSummary& s, const SoakNode& node) {
  std::vector<std::string> out;
  const std::string host = shell_word(node.host.empty() ? node.node : node.host);
  const SoakPattern* worst = nullptr;
  for (auto i : node.patterns)
    if (worst == nullptr || s.patterns[i].remedy > worst->remedy) worst = &s.patterns[i];
  if (worst == nullptr) return out;
  const auto reason = reason_of(s, *worst);
  const auto drain =
      fmt::format("scontrol update NodeName={} State=DRAIN Reason=\"{}\"", host, reason);
  switch (node.verdict) {
    case s::Remedy::kIsolate:
      out = {drain, fmt::format("kubectl cordon {}", host)};
      break;
    case s::Remedy::kReboot:
      out = {fmt::format("scontrol reboot ASAP nextstate=RESUME reason=\"{}\" {}", reason, host)};
      break;
    case s::Remedy::kReset: {
      out = {drain};
      std::set<std::string> devices;
      for (auto i : node.patterns)
        if (s.patterns[i].remedy == s::Remedy::kReset && !s.patterns[i].subject.device.empty())
          devices.insert(s.patterns[i].subject.device);
      for (const auto& d : devices)
        out.push_back(fmt::format(
            "nvidia-smi --gpu-reset -i {}   # on {}, once drained",  // names-ok: nvidia-smi's flag
            shell_word(d), host));
      if (devices.empty())
        out.push_back(fmt::format(
            "nvidia-smi --gpu-reset   # on {}, once drained",  // names-ok: nvidia-smi's flag
            host));
      break;
    }
    default:
      break;
  }
  return out;
}

// Each node's patterns (its own, its host's, its devices'), its worst remedy and the commands.
void verdicts(SoakSummary& s) {
  std::map<std::string, std::vector<std::size_t>> by_name;  // node name or host -> nodes
  for (std::size_t n = 0; n < s.nodes.size(); ++n) {
    by_name[s.nodes[n].node].push_back(n);
    if (s.nodes[n].host != s.nodes[n].node) by_name[s.nodes[n].host].push_back(n);
  }
  for (std::size_t i = 0; i < s.patterns.size(); ++i) {
    auto& p = s.patterns[i];
    if (p.subject.kind == kLinkSuspect || p.subject.kind == kFabricSuspect) {
      s.links.push_back(i);
      continue;
    }
    std::set<std::size_t> own;
    for (const auto& name :
         p.subject.node.empty() ? p.subject.hosts : std::vector<std::string>{p.subject.node})
      if (const auto it = by_name.find(name); it != by_name.end())
        own.insert(it->second.begin(), it->second.end());
    for (auto n : own) {
      p.nodes.push_back(n);
      s.nodes[n].patterns.push_back(i);
      s.nodes[n].verdict = std::max(s.nodes[n].verdict, p.remedy);
    }
  }
  for (auto& node : s.nodes) node.commands = commands_of(s, node);
}

// What to do: the node's commands for its host's patterns, words for a link's or a monitor's.
std::string action_of(const SoakSummary& s, const SoakPattern& p) {
  if (p.remedy == s::Remedy::kMonitor)
    return "Monitor it: no command; watch it in the next soak, and act if it returns more often.";
  if (p.subject.kind == kLinkSuspect || p.subject.kind == kFabricSuspect)
    return "Check the link's cable and both ports (error counters, ibstat/ethtool); a link has no "
           "host command.";
  for (auto n : p.nodes) {
    const auto& commands = s.nodes[n].commands;
    if (commands.empty()) continue;
    std::string out;
    for (const auto& c : commands) out += (out.empty() ? "" : "; ") + c;
    return out;
  }
  return std::string(s::name_of(p.remedy));
}

}  // namespace

void add_soak_findings(const RunReport& run, std::vector<Finding>& out) {
  if (!run.soak) return;
  const auto& s = *run.soak;
  for (const auto& p : s.patterns) {
    Finding f;
    f.stage = Stage::kStragglers;
    f.run_label = run.label;
    f.title = fmt::format("soak: {}: {}, {} {}: {}", subject_text(p.subject), p.subject.what,
                          name_of(p.kind), when_text(s, p), s::name_of(p.remedy));
    f.evidence = p.evidence;
    if (p.kind != SoakPatternKind::kDrift && p.rounds.size() > p.evidence.size())
      f.evidence.push_back(fmt::format("... named in {} rounds in all", p.rounds.size()));
    f.evidence.push_back(fmt::format("remedy {}: {}", s::name_of(p.remedy), p.why));
    f.next_check = action_of(s, p);
    f.weight = static_cast<double>(p.remedy) + 0.001 * static_cast<double>(p.rounds.size());
    Suspect suspect{p.subject.kind == "node" ? "host" : p.subject.kind, p.subject.hosts,
                    f.next_check};
    suspect.rank = p.subject.rank;
    suspect.device = p.subject.device;
    suspect.remediation = p.remedy;
    suspect.pattern = name_of(p.kind);
    f.suspects.push_back(std::move(suspect));
    out.push_back(std::move(f));
  }
}

// "node h2", "device rank 3 (GPU-...) on h1", "link h1 - h2".
std::string subject_text(const SoakSubject& subject) {
  std::string hosts;
  for (const auto& h : subject.hosts) hosts += (hosts.empty() ? "" : " - ") + h;
  if (subject.kind == "node")
    return subject.node == hosts || hosts.empty()
               ? fmt::format("node {}", subject.node)
               : fmt::format("node {} (host {})", subject.node, hosts);
  if (subject.kind == kDeviceSuspect)
    return fmt::format("device of rank {}{} on {}", subject.rank,
                       subject.device.empty() ? "" : " (" + subject.device + ")",
                       subject.node.empty() ? hosts : subject.node);
  return fmt::format("{} {}", subject.kind, hosts);
}

// When a pattern was seen: "in every round", "from round 5 (07:42:10 UTC) on, rounds 5-11",
// "in rounds 2, 7 (07:31:02 to 07:40:55 UTC)", the drift's slope.
std::string when_text(const SoakSummary& s, const SoakPattern& p) {
  switch (p.kind) {
    case SoakPatternKind::kPersistent:
      // Contended rounds are not judged on timing: a timing pattern's every round is every
      // judged round.
      return p.rounds.size() == s.rounds.size()
                 ? fmt::format("in every round ({})", s.rounds.size())
                 : fmt::format("in every round judged on its timing ({} of {})", p.rounds.size(),
                               s.rounds.size());
    case SoakPatternKind::kStep:
      return fmt::format("from {} on, rounds {}", round_label(s, p.step_from),
                         rounds_text(s, p.rounds));
    case SoakPatternKind::kDrift:
      return fmt::format("{:+.2f}% per round (95% interval {:+.2f}% to {:+.2f}%)", 100 * p.slope,
                         100 * p.slope_low, 100 * p.slope_high);
    case SoakPatternKind::kIntermittent:
      break;
  }
  const auto first = time_of_day(s.rounds[p.rounds.front()].start_time);
  const auto last = time_of_day(s.rounds[p.rounds.back()].start_time);
  return fmt::format("in round{} {}{}", p.rounds.size() == 1 ? "" : "s", rounds_text(s, p.rounds),
                     first.empty()   ? ""
                     : first == last ? fmt::format(" ({} UTC)", first)
                                     : fmt::format(" ({} to {} UTC)", first, last));
}

std::string soak_verdict(schema::Remedy verdict) {
  return verdict == s::Remedy::kNone ? "ok" : std::string(s::name_of(verdict));
}

std::string soak_pattern_line(const SoakSummary& s, const SoakPattern& p) {
  return fmt::format("{}: {}, {} {}: {} ({})", subject_text(p.subject), p.subject.what,
                     name_of(p.kind), when_text(s, p), s::name_of(p.remedy), p.why);
}

std::string round_time(const SoakSummary& s, std::size_t round) {
  const auto t = time_of_day(s.rounds[round].start_time);
  return t.empty() ? t : t + " UTC";
}

const char* name_of(SoakPatternKind k) {
  switch (k) {
    case SoakPatternKind::kPersistent:
      return "persistent";
    case SoakPatternKind::kStep:
      return "step";  // names-ok: the pattern (a change at one round), not the family
    case SoakPatternKind::kIntermittent:
      return "intermittent";
    case SoakPatternKind::kDrift:
      return "drift";
  }
  return "";
}

std::string time_of_day(const std::string& iso) {
  const auto t = iso.find('T');
  return t == std::string::npos || iso.size() < t + 9 ? "" : iso.substr(t + 1, 8);
}

std::string rounds_text(const SoakSummary& s, const std::vector<std::size_t>& rounds) {
  std::string out;
  for (std::size_t i = 0; i < rounds.size();) {
    std::size_t j = i;
    // By repetition, not index: a soak's timing is read over its judged rounds alone, where
    // neighbouring indices may be rounds apart.
    while (j + 1 < rounds.size() &&
           s.rounds[rounds[j + 1]].repetition == s.rounds[rounds[j]].repetition + 1)
      ++j;
    const auto first = s.rounds[rounds[i]].repetition, last = s.rounds[rounds[j]].repetition;
    out += fmt::format("{}{}", out.empty() ? "" : ", ",
                       i == j ? fmt::format("{}", first) : fmt::format("{}-{}", first, last));
    i = j + 1;
  }
  return out;
}

namespace {

// A summary of the run's nodes, with no round yet.
SoakSummary soak_of(const RunData& run, const NodeMap& nodes) {
  SoakSummary s;
  s.soak_s = run.soak_s;
  for (std::size_t n = 0; n < nodes.names.size(); ++n)
    s.nodes.push_back({nodes.names[n], nodes.hosts[n], s::Remedy::kNone, {}, {}, {}});
  return s;
}

// A round of `cases` (its repetition's): its first start time and its count.
SoakRound round_of(std::int64_t repetition, const std::vector<const CaseData*>& cases) {
  std::string start;
  for (const auto* c : cases) {
    const auto t = c->get(s::harness::kStartTime).value_or("");
    if (!t.empty() && (start.empty() || t < start)) start = t;
  }
  return {repetition, start, cases.size()};
}

// The soak as its timing was judged: the rounds whose hosts others did not contend, each with
// its index among all the rounds.
struct TimedView {
  SoakSummary soak;  // those rounds alone
  std::vector<std::size_t> index_in_soak;
  std::vector<std::size_t> index_in_view;  // per round of the soak; those rounds' only
  // A timed subject's rounds as indices into soak.rounds (it was named in no other round).
  Named renumbered(Named n) const {
    for (auto& k : n.rounds) k = index_in_view[k];
    return n;
  }
  // A pattern found on the view, its rounds as indices into the whole soak's.
  void to_soak(SoakPattern& p) const {
    if (p.kind == SoakPatternKind::kStep) p.step_from = index_in_soak[p.step_from];
    for (auto& k : p.rounds) k = index_in_soak[k];
  }
};

TimedView timed_view(const SoakSummary& s) {
  TimedView v;
  v.soak.soak_s = s.soak_s;
  v.index_in_view.assign(s.rounds.size(), 0);
  for (std::size_t k = 0; k < s.rounds.size(); ++k) {
    if (!s.rounds[k].timing_judged()) continue;
    v.index_in_view[k] = v.soak.rounds.size();
    v.index_in_soak.push_back(k);
    v.soak.rounds.push_back(s.rounds[k]);
  }
  return v;
}

// The rounds not judged on their timing, first among the notes: a reader must know what the
// verdict did not look at.
void note_contended_rounds(SoakSummary& s) {
  std::vector<std::size_t> contended;
  double worst = 0;
  for (std::size_t k = 0; k < s.rounds.size(); ++k)
    if (!s.rounds[k].timing_judged()) {
      contended.push_back(k);
      worst = std::max(worst, s.rounds[k].contention);
    }
  if (contended.empty()) return;
  s.notes.insert(
      s.notes.begin(),
      fmt::format(
          "{} of {} rounds not judged on their timing (rounds {}): other processes or the "
          "hypervisor took {:.0f}% or more of their hosts' CPU (up to {:.0f}%), so a node "
          "or link slow there is the load's; their wrong results and device readings are judged",
          contended.size(), s.rounds.size(), rounds_text(s, contended), 100 * kContendedRoundShare,
          100 * worst));
}

// The patterns, drift and verdicts from every round's judgement, taken in round order.
SoakSummary conclude(SoakSummary s, const NodeMap& nodes, std::vector<RoundJudgement>&& judged,
                     const SoakOptions& options) {
  for (auto& n : s.nodes) n.figure.assign(s.rounds.size(), kNaN);
  std::vector<std::vector<PointLevel>> levels(s.rounds.size());
  NamedMap named;
  std::size_t dropped = 0;
  for (std::size_t k = 0; k < judged.size(); ++k)
    take_round(std::move(judged[k]), k, named, s, levels, dropped);
  const auto shared = shared_figures(levels);
  note_contended_rounds(s);
  // What rests on time is read over the rounds judged on it alone, as if the soak had held no
  // other: their count is the chance tests' and the persistent pattern's, and a spell is not
  // split by a contended round inside it.
  const auto timed = timed_view(s);
  NamedMap on_timed_rounds;
  for (const auto& [subject, n] : named)
    if (n.timed) on_timed_rounds.emplace(subject, timed.renumbered(n));
  const auto timed_chance = chance_rates(on_timed_rounds, timed.soak.rounds.size(), nodes);
  const auto chance = chance_rates(named, s.rounds.size(), nodes);
  for (const auto& [subject, all_rounds] : named) {
    const bool on_time = all_rounds.timed;
    const SoakSummary& view = on_time ? timed.soak : s;
    const Named& n = on_time ? on_timed_rounds.at(subject) : all_rounds;
    auto p = pattern_of(subject, n, view.rounds.size());
    if (!exact_judgement(subject)) {
      const auto& rates = on_time ? timed_chance : chance;
      auto why_not =
          beyond_chance(view, subject, n, rates.at({subject.kind, subject.what}), options, p);
      if (!why_not.empty()) {
        s.notes.push_back(std::move(why_not));
        continue;
      }
    }
    assign_remedy(p, n, options);
    if (on_time) timed.to_soak(p);
    s.patterns.push_back(std::move(p));
  }
  drift_patterns(s, nodes, options);
  if (const auto t = trend(shared); !std::isnan(t.slope)) {
    s.shared_drift =
        SharedDrift{t.slope, t.low, t.high, t.p,
                    t.slope > 0 && t.p < options.alpha && t.slope * t.span >= options.min_drift};
  }
  verdicts(s);
  return s;
}

}  // namespace

std::optional<SoakSummary> analyse_soak(const RunData& run, const std::string& label,
                                        const SoakOptions& options,
                                        const OutlierOptions& outliers) {
  if (!(run.soak_s > 0)) return std::nullopt;
  const auto nodes = node_map(run);
  auto s = soak_of(run, nodes);
  std::map<std::int64_t, std::vector<const CaseData*>> cases_of_round;
  for (const auto& c : run.cases)
    cases_of_round[c.get(s::harness::kRepetition).value_or(0)].push_back(&c);
  std::vector<const std::vector<const CaseData*>*> round_cases;
  for (const auto& [repetition, cases] : cases_of_round) {
    s.rounds.push_back(round_of(repetition, cases));
    round_cases.push_back(&cases);
  }
  // Blocks of rounds judged in parallel (a day's soak at 1,000 nodes is thousands of rounds,
  // each judged as a whole run is), each round's names and notes then taken in round order:
  // the same summary whatever the threads.
  std::vector<RoundJudgement> judged(round_cases.size());
  const RoundContext context{label, nodes, outliers};
  std::vector<std::future<void>> blocks;
  for (const auto& [from, to] : round_blocks(round_cases.size()))
    blocks.push_back(std::async(std::launch::async, [&, from = from, to = to] {
      RunData round = run_without_cases(run);  // one round at a time, its cases copied in
      for (std::size_t k = from; k < to; ++k) {
        round.cases.clear();
        for (const auto* c : *round_cases[k]) round.cases.push_back(*c);
        judged[k] = judge_one_round(round, context, s.rounds[k], k);
        judged[k].watch = {};  // the run's own cases still hold their series: not kept
      }
    }));
  for (auto& b : blocks) b.get();
  return conclude(std::move(s), nodes, std::move(judged), options);
}

// The reading thread groups cases into rounds and queues each round as it completes; workers
// judge rounds from the queue into their slots.
struct SoakStream::State {
  std::string label;
  SoakOptions options;
  OutlierOptions outliers;
  bool started = false, soak = false, in_order = true;
  NodeMap nodes;
  SoakSummary summary;  // its rounds appended by the reading thread alone
  std::int64_t repetition = 0;
  std::vector<CaseData> pending;  // copies of the round being read: the reader's run may go
  std::set<std::int64_t> seen;
  bool gave_up = false;  // a case gave its watched series to a round

  struct Task {
    std::size_t k = 0;
    SoakRound round;
    std::vector<CaseData> cases;
  };
  std::mutex m;  // guards what follows
  std::condition_variable wake;
  std::deque<Task> queue;
  bool closing = false;
  std::vector<RoundJudgement> judged;
  // The rounds' watch judgements joined in round order as they are judged (each holds a slot
  // per rank for a reference rule: 384 KB a round at 8,000 ranks, 1.1 GB over a day if kept).
  WatchJudgement watch;
  std::size_t joined = 0;  // rounds whose watch judgement is in `watch`
  std::exception_ptr failed;
  std::vector<std::thread> workers;

  void start(const RunData& run) {
    started = true;
    soak = run.soak_s > 0;
    if (!soak) return;
    nodes = node_map(run);
    summary = soak_of(run, nodes);
    const std::size_t cores = std::max(1U, std::thread::hardware_concurrency());
    const std::size_t count = std::clamp<std::size_t>(cores - 1, 1, 7);
    for (std::size_t w = 0; w < count; ++w)
      workers.emplace_back([this, round = run_without_cases(run)]() mutable { work(round); });
  }

  void work(RunData& round) {
    const RoundContext context{label, nodes, outliers};
    for (;;) {
      Task task;
      {
        std::unique_lock lock(m);
        wake.wait(lock, [&] { return closing || !queue.empty(); });
        if (queue.empty()) return;
        task = std::move(queue.front());
        queue.pop_front();
      }
      try {
        round.cases = std::move(task.cases);
        auto j = judge_one_round(round, context, task.round, task.k);
        j.done = true;
        const std::lock_guard lock(m);
        if (judged.size() <= task.k) judged.resize(task.k + 1);
        judged[task.k] = std::move(j);
        join_watches();
      } catch (...) {
        const std::lock_guard lock(m);
        if (!failed) failed = std::current_exception();
      }
    }
  }

  // With `m` held, or the workers stopped.
  void join_watches() {
    for (; joined < judged.size() && judged[joined].done; ++joined) {
      watch.join(std::move(judged[joined].watch));
      judged[joined].watch = {};
    }
  }

  void submit() {
    seen.insert(repetition);
    const std::size_t k = summary.rounds.size();
    std::vector<const CaseData*> cases;
    for (const auto& c : pending) cases.push_back(&c);
    summary.rounds.push_back(round_of(repetition, cases));
    {
      const std::lock_guard lock(m);
      queue.push_back({k, summary.rounds.back(), std::move(pending)});
    }
    pending.clear();
    wake.notify_one();
  }

  void stop() {
    {
      const std::lock_guard lock(m);
      closing = true;
    }
    wake.notify_all();
    for (auto& w : workers) w.join();
    workers.clear();
  }
};

SoakStream::SoakStream(std::string label, SoakOptions options, OutlierOptions outliers)
    : state_(std::make_unique<State>()) {
  state_->label = std::move(label);
  state_->options = options;
  state_->outliers = outliers;
}

SoakStream::~SoakStream() {
  if (state_) state_->stop();
}

SoakStream::SoakStream(SoakStream&&) noexcept = default;
SoakStream& SoakStream::operator=(SoakStream&&) noexcept = default;

void SoakStream::add(RunData& run, std::size_t index) {
  auto& st = *state_;
  if (!st.started) st.start(run);
  if (!st.soak || !st.in_order) return;
  auto& c = run.cases[index];
  const auto repetition = c.get(s::harness::kRepetition).value_or(0);
  if (!st.pending.empty() && repetition != st.repetition) {
    if (repetition < st.repetition || st.seen.contains(repetition)) {
      st.in_order = false;  // finish() judges the whole run instead
      return;
    }
    st.submit();
  }
  st.repetition = repetition;
  // The watched series move (55% of the per-rank figures the reader keeps of a soak at 1,000
  // nodes: 184 of 333 MB an hour); the rest is copied: the run's own judgements read it.
  auto watched = std::move(c.watched);
  c.watched.clear();
  st.gave_up = st.gave_up || !watched.empty();
  st.pending.push_back(c);
  st.pending.back().watched = std::move(watched);
}

bool SoakStream::read_again() const {
  return state_->gave_up && !state_->in_order;
}

bool SoakStream::judged_while_read() const {
  return state_->started && state_->soak && state_->in_order;
}

const WatchJudgement& SoakStream::watch() const {
  return state_->watch;
}

std::optional<SoakSummary> SoakStream::finish(const RunData& run) {
  auto& st = *state_;
  if (st.soak && st.in_order && !st.pending.empty()) st.submit();
  st.stop();
  if (st.failed) std::rethrow_exception(st.failed);
  if (!st.started || !st.soak || !st.in_order) {
    st.judged.clear();  // the rounds judged before they came out of order: judged again, whole
    st.watch = {};
    return analyse_soak(run, st.label, st.options, st.outliers);
  }
  st.judged.resize(st.summary.rounds.size());
  st.join_watches();  // every round is judged: all of them
  return conclude(std::move(st.summary), st.nodes, std::move(st.judged), st.options);
}

}  // namespace preflight::report
