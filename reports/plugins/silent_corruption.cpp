// The silent-corruption plug-in (correctness): names the device that disagrees. For each
// correctness case it reads, per rank, the results that were wrong (the counter wrong_elements:
// an iteration with elements above 0) and the first wrong results the rank recorded (the
// wrong_* event series), and makes one finding per named rank and kind of check, listing every
// case (shape, algorithm) where it disagreed, so that a rank wrong in many cases reads as one
// problem. The finding's suspect is the rank's device (kind "device": its host, the rank, the
// GPU's UUID), which the acceptance checks fail and the drain scripts act on.
//
// Who is named:
//  - gemm: a rank whose result differs from the majority of its class (an event's wrong_source,
//    the rank taken as right, is 0 or more). Where the class had no majority (source -1) nobody
//    can be told: the finding says so and names no one.
//  - collective: a rank that received wrong elements, when it is a minority of the case's ranks
//    (one rank of three or more, or fewer than half; with 2 ranks the receiver, the sender and
//    the link between them cannot be told apart: nobody): when most ranks received wrong elements
//    the fault lies in what they share or in one contribution to all of them, not in one receiver;
//    but when every element recorded wrong came from one rank (wrong_source, an all-gather's
//    block) that is itself right, that rank is named as the one that sent wrong elements.
// A named receiver whose every wrong element came from one rank (an all-gather's block) stays the
// device suspect, but its next step names the link or path from that rank as the other one. NCCL:
// a rank wrong only in cases with a protocol forced, while NCCL's own choice of the same
// collective ran clean for it, is no device suspect: a protocol forced where NCCL leaves it off
// (LL128) can corrupt data itself; the finding says so and the failed case still fails.
// Recorded wrong results outside the timed iterations (wrong_iteration -1, warm-up) are counted
// in the titles as warm-up runs.
// Also a section listing every check: results compared, wrong, ranks named, so that a clean run
// shows what was compared.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "analysis/rank_device.hpp"
#include "analysis/report.hpp"
#include "plugins/plugins.hpp"
#include "preflight/schema/correctness.hpp"
#include "preflight/schema/family_names.hpp"
#include "preflight/schema/layout.hpp"

namespace preflight::report::plugins {
namespace {

namespace sc = schema::correctness;

constexpr std::size_t kEventsShown = 3;  // per rank and case, in the finding's evidence

// One wrong result a rank recorded (a row of the wrong_* series).
struct Event {
  std::size_t point = 0;
  double iteration = 0, element = 0, expected = 0, found = 0, count = 0, source = 0;
};

struct RankWrong {
  std::size_t results = 0;  // iterations with wrong elements (the counter)
  std::size_t untimed = 0;  // recorded wrong results outside the timed iterations (iteration -1)
  double elements = 0;
  std::vector<Event> events;
  std::set<std::size_t> points;
};

// What one correctness case found.
struct CaseCheck {
  const CaseData* c = nullptr;
  bool gemm = false;
  std::string what;  // "GEMM 1024x1024x1024 float32" or "allreduce, algorithm ring (...)"
  double compared = 0, wrong = 0;
  double per_rank = 0;  // results each rank computed (timed iterations over the points)
  std::size_t active = 0;
  std::map<std::int64_t, RankWrong> ranks;
  std::set<std::int64_t> named, unnamed;  // of ranks: named a device; wrong but not named
  // collective on 2 ranks, one of them wrong: the receiver, the sender and the link between them
  // cannot be told apart; the rank is in `unnamed`.
  bool two_ranks = false;
  // collective: the rank every wrong element came from, when most ranks received wrong elements
  // and each one's recorded events all name that one source, itself not wrong; -1: none.
  std::int64_t sender = -1;
};

// The sources a set of events name (wrong_source): the ranks (-1 for a reduced element), and
// whether one could not be located (NaN), kept apart: NaN has no place in an ordered set.
struct Sources {
  std::set<std::int64_t> ranks;
  bool unknown = false;
  void add(double source) {
    if (std::isnan(source))
      unknown = true;
    else
      ranks.insert(static_cast<std::int64_t>(source));
  }
  // The one rank (0 or more) every event named; -1 where they name none, several, or an unknown.
  std::int64_t single() const {
    return !unknown && ranks.size() == 1 && *ranks.begin() >= 0 ? *ranks.begin() : -1;
  }
};

// A count as a whole number; "-" for NaN.
std::string count_text(double x) {
  return std::isnan(x) ? std::string("-") : fmt::format("{}", static_cast<std::int64_t>(x));
}

// A stats column over the point's groups: its all-groups row, else the sum of its groups' rows.
double point_sum(const CaseView& v, std::string_view column, std::size_t point) {
  const std::string name(column);
  if (const auto row = v.row(point, -1); row != SIZE_MAX) return v.number(name, row);
  double sum = 0;
  for (int g = 0;; ++g) {
    const auto row = v.row(point, g);
    if (row == SIZE_MAX) break;
    const double x = v.number(name, row);
    if (!std::isnan(x)) sum += x;
  }
  return sum;
}

double series_at(const CaseData& c, std::string_view series, std::size_t point, std::int64_t rank,
                 std::size_t row) {
  const auto it = c.event_series.find(std::string(series));
  if (it == c.event_series.end() || point >= it->second.size()) return std::nan("");
  const auto r = it->second[point].find(rank);
  return r == it->second[point].end() || row >= r->second.size() ? std::nan("") : r->second[row];
}

std::string shape_at(const CaseView& v, std::size_t point) {
  const auto row = v.row(point, -1) != SIZE_MAX ? v.row(point, -1) : v.row(point, 0);
  const auto at = [&](std::string_view column) {
    const double x = v.number(std::string(column), row);
    return std::isnan(x) ? std::string("?") : fmt::format("{}", static_cast<std::int64_t>(x));
  };
  return fmt::format("{}x{}x{}", at(schema::matmul::kGemmMColumn.name),
                     at(schema::matmul::kGemmNColumn.name), at(schema::matmul::kGemmKColumn.name));
}

std::string algorithm_of(const CaseView& v) {
  auto text = fmt::format("algorithm {}", attribute_text(v.get(sc::kAlgorithm)));
  const auto protocol = attribute_text(v.get(sc::kProtocol));
  if (!protocol.empty()) text += " protocol " + protocol;
  const auto forced = attribute_text(v.get(sc::kForcedBy));
  if (!forced.empty()) text += " (" + forced + ")";
  return text;
}

CaseCheck check_case(const RunData& run, const CaseData& c) {
  const CaseView v(c);
  CaseCheck k;
  k.c = &c;
  k.gemm = attribute_text(v.get(sc::kCheck)) == sc::kCheckGemm;
  const auto points = v.points();
  std::set<std::string> shapes;
  for (std::size_t p = 0; p < points; ++p) {
    k.compared += point_sum(v, sc::kCheckedResultsColumn.name, p);
    k.wrong += point_sum(v, sc::kWrongResultsColumn.name, p);
    const auto row = v.row(p, -1) != SIZE_MAX ? v.row(p, -1) : v.row(p, 0);
    const double iterations = v.number(std::string(schema::harness::kIterationsColumn.name), row);
    if (!std::isnan(iterations)) k.per_rank += iterations;
    if (k.gemm) shapes.insert(shape_at(v, p));
  }
  if (k.gemm)
    k.what = fmt::format("GEMM {} {}", fmt::join(shapes, ", "),
                         attribute_text(v.get(schema::matmul::kDtype)));
  else
    k.what = fmt::format("{} {}, {}", attribute_text(v.get(schema::comm::kCollective)),
                         attribute_text(v.get(schema::comm::kDtype)), algorithm_of(v));
  k.active =
      c.group_of_rank.empty()
          ? static_cast<std::size_t>(std::max<std::int64_t>(run.world_size, 0))
          : static_cast<std::size_t>(std::count_if(c.group_of_rank.begin(), c.group_of_rank.end(),
                                                   [](std::int64_t g) { return g >= 0; }));
  // Wrong results per rank: the counter's cells, else (no counter) wrong_per_rank's elements.
  if (const auto it = c.fault_cells.find(std::string(sc::kWrongElementsCounter.name));
      it != c.fault_cells.end()) {
    for (std::size_t p = 0; p < it->second.size(); ++p)
      for (const auto& cell : it->second[p]) {
        auto& w = k.ranks[cell.rank];
        ++w.results;
        w.elements += cell.value;
        w.points.insert(p);
      }
  } else {
    for (std::size_t p = 0; p < c.wrong_per_rank.size(); ++p)
      for (const auto& [rank, elements] : c.wrong_per_rank[p]) {
        auto& w = k.ranks[rank];
        w.elements += static_cast<double>(elements);
        w.points.insert(p);
      }
  }
  // The events each rank recorded.
  if (const auto it = c.event_series.find(std::string(sc::kWrongIterationSeries.name));
      it != c.event_series.end())
    for (std::size_t p = 0; p < it->second.size(); ++p)
      for (const auto& [rank, iterations] : it->second[p])
        for (std::size_t row = 0; row < iterations.size(); ++row) {
          auto& w = k.ranks[rank];
          w.points.insert(p);
          if (iterations[row] < 0) ++w.untimed;
          w.events.push_back({p, iterations[row],
                              series_at(c, sc::kWrongElementSeries.name, p, rank, row),
                              series_at(c, sc::kWrongExpectedSeries.name, p, rank, row),
                              series_at(c, sc::kWrongFoundSeries.name, p, rank, row),
                              series_at(c, sc::kWrongCountSeries.name, p, rank, row),
                              series_at(c, sc::kWrongSourceSeries.name, p, rank, row)});
        }
  // Two ranks, one wrong: what it received is wrong, but the other rank sent it over the one link
  // between them, so none of the three is told from the others.
  k.two_ranks = !k.gemm && k.active == 2 && k.ranks.size() == 1;
  const bool minority =
      !k.two_ranks && (k.ranks.size() * 2 < k.active || (k.ranks.size() == 1 && k.active >= 2));
  for (const auto& [rank, w] : k.ranks) {
    bool named = false;
    if (k.gemm) {
      // Named when one of its wrong results had a majority to disagree with.
      for (const auto& e : w.events) named = named || e.source >= 0;
    } else {
      named = minority;
    }
    (named ? k.named : k.unnamed).insert(rank);
  }
  // Most ranks wrong, and every element recorded wrong came from one rank that is not: what it
  // sent was wrong (an all-gather's block), not what each received.
  if (!k.gemm && !minority && k.ranks.size() >= 2) {
    Sources sources;
    bool every_rank_told = true;
    for (const auto& [rank, w] : k.ranks) {
      every_rank_told = every_rank_told && !w.events.empty();
      for (const auto& e : w.events) sources.add(e.source);
    }
    if (const auto one = sources.single(); every_rank_told && one >= 0 && k.ranks.count(one) == 0) {
      k.sender = one;
      k.unnamed.clear();
    }
  }
  return k;
}

std::string value_text(double x) {
  return std::isnan(x) ? std::string("?") : fmt::format("{:.9g}", x);
}

std::string event_text(const CaseCheck& k, const CaseView& v, const Event& e) {
  std::string where;
  if (k.gemm) {
    const auto row = v.row(e.point, -1) != SIZE_MAX ? v.row(e.point, -1) : v.row(e.point, 0);
    const double m = v.number(std::string(schema::matmul::kGemmMColumn.name), row);
    if (m > 0 && e.element >= 0)
      where = fmt::format("C[{},{}]", static_cast<std::int64_t>(std::fmod(e.element, m)),
                          static_cast<std::int64_t>(std::floor(e.element / m)));
    else
      where = fmt::format("element {}", value_text(e.element));
  } else {
    where = fmt::format("element {}", value_text(e.element));
  }
  std::string source;
  if (k.gemm)
    source = e.source >= 0 ? fmt::format("the majority's result: rank {}", e.source)
                           : std::string("no majority in its class: cannot tell which is wrong");
  else
    source = e.source >= 0 ? fmt::format("the element came from rank {}", e.source)
                           : std::string("a reduced element");
  return fmt::format("iteration {}: {} expected {} found {} ({} wrong element{}; {})",
                     value_text(e.iteration), where, value_text(e.expected), value_text(e.found),
                     value_text(e.count), e.count == 1 ? "" : "s", source);
}

// The evidence of one rank in one case: its count and its first events.
std::vector<std::string> rank_evidence(const CaseCheck& k, std::int64_t rank) {
  const CaseView v(*k.c);
  const auto& w = k.ranks.at(rank);
  std::vector<std::string> out{fmt::format(
      "case {} {} ({}): rank {} wrong in {} of {} results, {} wrong elements", k.c->group_name,
      k.c->name, k.what, rank, w.results, count_text(k.per_rank), count_text(w.elements))};
  if (w.untimed > 0)
    out.front() += fmt::format(", and wrong in {} run{} outside the timed iterations (warm-up)",
                               w.untimed, w.untimed == 1 ? "" : "s");
  for (std::size_t i = 0; i < w.events.size() && i < kEventsShown; ++i)
    out.push_back("  " + event_text(k, v, w.events[i]));
  if (w.events.size() > kEventsShown)
    out.push_back(
        fmt::format("  and {} more recorded wrong results", w.events.size() - kEventsShown));
  return out;
}

std::string action_for(const RankDevice& d) {
  if (!d.gpu_uuid.empty())
    return fmt::format(
        "Drain {} (or take GPU {}, rank {}'s, out of service) and check that GPU: uncorrected ECC "
        "errors and row remapping (nvidia-smi -q -d ECC,ROW_REMAPPER), Xid errors in the kernel "
        "log (dmesg | grep -i xid); then rerun the correctness check to see whether the fault "
        "follows the GPU.",
        d.host, d.gpu_uuid, d.rank);
  return fmt::format(
      "Drain {} and check its memory and CPU (rank {}): ECC and machine-check errors "
      "(ras-mc-ctl --errors, edac-util, dmesg); then rerun the correctness check to see whether "
      "the fault stays with the host.",
      d.host.empty() ? fmt::format("the host of rank {}", d.rank) : d.host, d.rank);
}

// "3 of 40 GEMMs"; with recorded wrong results outside the timed iterations, "0 of 40 timed GEMMs
// and 2 warm-up runs", so that a rank wrong only there does not read as never wrong.
std::string runs_text(std::size_t wrong, std::size_t untimed, double results,
                      const std::string& noun) {
  if (untimed == 0) return fmt::format("{} of {} {}", wrong, count_text(results), noun);
  return fmt::format("{} of {} timed {} and {} warm-up run{}", wrong, count_text(results), noun,
                     untimed, untimed == 1 ? "" : "s");
}

// NCCL only: whether the rank's wrong results in `cases` all came with a protocol forced
// (forced_protocol not empty) while the library's own choice (forced_by empty) of each of their
// collectives ran, and ran clean for the rank. The protocols forced go to `protocols`.
bool only_with_forced_protocol(const std::vector<CaseCheck>& checks,
                               const std::vector<const CaseCheck*>& cases, std::int64_t rank,
                               std::set<std::string>& protocols) {
  for (const auto* k : cases) {
    const CaseView v(*k->c);
    const auto protocol = attribute_text(v.get(schema::correctness::kProtocol));
    if (k->gemm || protocol.empty()) return false;
    protocols.insert(protocol);
    const auto collective = attribute_text(v.get(schema::comm::kCollective));
    bool default_ran = false;
    for (const auto& d : checks) {
      const CaseView dv(*d.c);
      if (d.gemm || attribute_text(dv.get(schema::comm::kCollective)) != collective ||
          !attribute_text(dv.get(schema::correctness::kForcedBy)).empty())
        continue;
      if (d.ranks.count(rank) > 0 || d.sender == rank) return false;
      default_ran = true;
    }
    if (!default_ran) return false;
  }
  return !cases.empty();
}

std::vector<CaseCheck> checks_of(const RunData& run) {
  std::vector<CaseCheck> out;
  for (const auto& c : run.cases)
    if (c.family == schema::kCorrectnessFamily) out.push_back(check_case(run, c));
  return out;
}

}  // namespace

void silent_corruption_findings(const RunReport& r, std::vector<Finding>& out) {
  const auto checks = checks_of(*r.run);
  // One finding per named rank and kind of check, over every case where it disagreed.
  struct Named {
    std::vector<const CaseCheck*> cases;
    std::size_t wrong = 0, untimed = 0;
    double results = 0;
  };
  // By what the rank did wrong (computed, received, sent) and the rank.
  enum Role { kComputed, kReceived, kSent };
  std::map<std::pair<Role, std::int64_t>, Named> named;
  for (const auto& k : checks) {
    for (auto rank : k.named) {
      auto& n = named[{k.gemm ? kComputed : kReceived, rank}];
      n.cases.push_back(&k);
      n.wrong += k.ranks.at(rank).results;
      n.untimed += k.ranks.at(rank).untimed;
    }
    if (k.sender >= 0) {
      auto& n = named[{kSent, k.sender}];
      n.cases.push_back(&k);
      std::size_t most = 0, untimed = 0;  // the runs in which some rank received a wrong element
      for (const auto& [rank, w] : k.ranks) {
        most = std::max(most, w.results);
        untimed = std::max(untimed, w.untimed);
      }
      n.wrong += most;
      n.untimed += untimed;
    }
  }
  // Each rank's results over the cases where it disagreed (the denominator of its title).
  for (auto& [key, n] : named)
    for (const auto* k : n.cases) n.results += k->per_rank;
  for (const auto& [key, n] : named) {
    const auto [role, rank] = key;
    const bool gemm = role == kComputed;
    const auto d = device_of(*r.run, rank);
    std::vector<std::string> whats;
    std::set<std::string> collectives;
    Sources sources;  // what a receiver's wrong elements came from, over its cases
    for (const auto* k : n.cases) {
      const CaseView v(*k->c);
      if (gemm) {
        whats.push_back(k->what.substr(5));  // without "GEMM "
      } else {
        collectives.insert(attribute_text(v.get(schema::comm::kCollective)));
        whats.push_back(algorithm_of(v));
      }
      if (role == kReceived)
        for (const auto& e : k->ranks.at(rank).events) sources.add(e.source);
    }
    std::set<std::string> protocols;
    const bool protocol_only = !gemm && only_with_forced_protocol(checks, n.cases, rank, protocols);
    std::vector<std::string> forced;
    for (const auto& p : protocols) forced.push_back("NCCL_PROTO=" + p);
    const auto collective_text = fmt::format("{}", fmt::join(collectives, " and "));
    Finding f;
    f.stage = Stage::kCorrectness;
    f.run_label = r.label;
    if (gemm)
      f.title =
          fmt::format("{} computed wrong results: {}{} {} disagreed with the majority of its class",
                      describe(d), runs_text(n.wrong, n.untimed, n.results, "GEMMs"),
                      n.untimed == 0 ? "" : " of", fmt::join(whats, ", "));
    else
      f.title = fmt::format(
          "{} {} wrong elements{} in {} with {}", describe(d), role == kSent ? "sent" : "received",
          protocol_only ? fmt::format(" only with {} forced", fmt::join(forced, " or "))
                        : std::string(),
          runs_text(n.wrong, n.untimed, n.results, collective_text + " runs"),
          fmt::join(whats, ", "));
    for (const auto* k : n.cases) {
      if (role != kSent) {
        for (auto& line : rank_evidence(*k, rank)) f.evidence.push_back(std::move(line));
        continue;
      }
      f.evidence.push_back(fmt::format(
          "case {}: {} of {} ranks received wrong elements, every one recorded from rank {}",
          k->c->group_name, k->ranks.size(), k->active, rank));
      std::size_t shown = 0;
      for (const auto& [receiver, w] : k->ranks)
        if (shown++ < 2)
          for (auto& line : rank_evidence(*k, receiver)) f.evidence.push_back(std::move(line));
    }
    f.weight = 2e9 + static_cast<double>(n.wrong + n.untimed);  // above the case's own finding
    if (protocol_only) {
      // NCCL's documentation warns that LL128 forced where NCCL leaves it off can corrupt data:
      // the wrong results may be the protocol's, so the device is no suspect on them alone.
      f.evidence.push_back(fmt::format(
          "rank {} was right in every {} run with NCCL's own choice (no algorithm or protocol "
          "forced)",
          rank, collective_text));
      f.next_check = fmt::format(
          "Wrong only with {} forced: check whether NCCL enables {} on this platform by default "
          "(NCCL's documentation warns that a protocol forced where NCCL leaves it off, LL128 "
          "above all, can corrupt data): if it does not, the wrong results are the protocol's, "
          "not the device's; if it does, rerun the check to see whether they stay with rank {}.",
          fmt::join(forced, " or "), fmt::join(protocols, " or "), rank);
      out.push_back(std::move(f));
      continue;
    }
    f.next_check = action_for(d);
    if (const auto from = sources.single(); role == kReceived && from >= 0 && from != rank) {
      // Every wrong element came from one rank (an all-gather's block): the receiver, or the
      // path from that rank to it.
      const auto s = device_of(*r.run, from);
      f.next_check += fmt::format(
          " Every wrong element came from rank {}{}: the link or path from rank {} to rank {} "
          "(cable, NIC port) is the other suspect to check; do not drain on this one {} check "
          "alone if the GEMM check passed on rank {}.",
          from, s.host.empty() ? std::string() : fmt::format(" (host {})", s.host), from, rank,
          collective_text, rank);
    }
    Suspect s{
        kDeviceSuspect, {d.host.empty() ? fmt::format("rank {}", rank) : d.host}, f.next_check};
    s.rank = rank;
    s.device = d.gpu_uuid;
    f.suspects.push_back(std::move(s));
    out.push_back(std::move(f));
  }
  // Wrong results that name nobody: a class without a majority, or most ranks wrong at once.
  for (const auto& k : checks) {
    if (k.unnamed.empty()) continue;
    std::map<std::int64_t, std::uint64_t> elements;
    for (auto rank : k.unnamed)
      elements[rank] = static_cast<std::uint64_t>(k.ranks.at(rank).elements);
    Finding f;
    f.stage = Stage::kCorrectness;
    f.run_label = r.label;
    if (k.two_ranks) {
      const auto rank = *k.unnamed.begin();
      const auto d = device_of(*r.run, rank);
      f.title = fmt::format(
          "{} received wrong elements in case {} ({}), one of 2 ranks: with 2 ranks the sender "
          "or the link between them cannot be told from the receiver",
          describe(d), k.c->group_name, k.what);
      for (auto& line : rank_evidence(k, rank)) f.evidence.push_back(std::move(line));
      f.next_check = fmt::format(
          "Rerun the check on 4 or more ranks, where a receiver wrong alone is named; meanwhile "
          "check both hosts (ECC and Xid errors) and the link between them, rank {} being the "
          "one that received wrong elements.",
          rank);
      f.weight = 1.5e9;
      out.push_back(std::move(f));
      continue;
    }
    f.title = k.gemm
                  ? fmt::format(
                        "GEMM results disagreed without a majority in case {} ({}): "
                        "{} rank{} wrong, the wrong device cannot be told",
                        k.c->group_name, k.what, k.unnamed.size(), k.unnamed.size() == 1 ? "" : "s")
                  : fmt::format(
                        "{} of {} ranks received wrong elements in case {} ({}): not "
                        "one device",
                        k.unnamed.size() + k.named.size(), k.active, k.c->group_name, k.what);
    f.evidence.push_back(
        fmt::format("ranks not named: {}", ranks_with_counts(*r.run, elements, 8)));
    for (auto rank : k.unnamed)
      for (auto& line : rank_evidence(k, rank)) f.evidence.push_back(std::move(line));
    f.next_check =
        k.gemm ? "Rerun the check with more ranks of the same device model (three or more "
                 "give a majority), and look for ECC and Xid errors on every host named."
               : "Look at what the ranks share (the library's algorithm and protocol: compare "
                 "with the other algorithms of the sweep; the fabric; a rank whose contribution "
                 "reached all of them) and rerun the check.";
    f.weight = 1.5e9;
    out.push_back(std::move(f));
  }
}

void silent_corruption_section(const RunReport& r, std::vector<Section>& out) {
  const auto checks = checks_of(*r.run);
  if (checks.empty()) return;
  Section s;
  s.id = "correctness";
  s.title = fmt::format("Silent data corruption checks ({})", r.label);
  double compared = 0, wrong = 0;
  std::set<std::string> named;
  for (const auto& k : checks) {
    compared += k.compared;
    wrong += k.wrong;
    for (auto rank : k.named) named.insert(describe(device_of(*r.run, rank)));
    if (k.sender >= 0) named.insert(describe(device_of(*r.run, k.sender)) + " (sender)");
  }
  s.lines.push_back(fmt::format(
      "{} results compared in {} check{}, {} wrong; devices named: {}", count_text(compared),
      checks.size(), checks.size() == 1 ? "" : "s", count_text(wrong),
      named.empty() ? std::string("none") : fmt::format("{}", fmt::join(named, "; "))));
  s.lines.push_back(
      "gemm: the same seeded GEMMs on every rank, compared bit for bit within a class of the "
      "same device model and library; a rank unlike the majority is named. collective: each "
      "forced algorithm's full result checked against the fill pattern; a rank that received "
      "wrong elements is named when it is a minority of the ranks; when most did and every "
      "wrong element came from one rank that is right, that rank is named as the sender.");
  s.header = {"case", "check", "results compared", "wrong results", "ranks wrong", "named"};
  for (const auto& k : checks) {
    std::vector<std::string> wrong_ranks, named_ranks;
    for (const auto& [rank, w] : k.ranks) wrong_ranks.push_back(fmt::format("{}", rank));
    for (auto rank : k.named) named_ranks.push_back(describe(device_of(*r.run, rank)));
    if (k.sender >= 0) named_ranks.push_back(describe(device_of(*r.run, k.sender)) + " (sender)");
    s.rows.push_back({fmt::format("{} {}", k.c->group_name, k.c->name), k.what,
                      count_text(k.compared), count_text(k.wrong),
                      wrong_ranks.empty() ? "none" : fmt::format("{}", fmt::join(wrong_ranks, ",")),
                      !named_ranks.empty() ? fmt::format("{}", fmt::join(named_ranks, "; "))
                      : k.unnamed.empty()  ? std::string("none")
                      : k.gemm             ? std::string("nobody: no majority")
                      : k.two_ranks        ? std::string("nobody: 2 ranks")
                                           : std::string("nobody: most ranks wrong")});
  }
  out.push_back(std::move(s));
}

}  // namespace preflight::report::plugins
