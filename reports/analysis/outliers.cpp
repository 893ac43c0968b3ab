#include "analysis/outliers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <future>
#include <map>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "analysis/leave_one_out.hpp"
#include "preflight/common/stats.hpp"
#include "preflight/schema/layout.hpp"

namespace preflight::report {
namespace {

// Median and robust deviation (1.4826 x MAD, floored at 2% of the median so that tightly
// agreeing peers do not make noise look significant) of `values` without member `skip`.
// `peers` is reordered, then overwritten with the deviations: one copy of a soak's every ratio.
std::pair<double, double> centre_and_spread_in_place(std::vector<double>& peers) {
  std::erase_if(peers, [](double v) { return std::isnan(v); });  // as median() leaves them out
  const double m = median_in_place(peers);
  for (double& v : peers) v = std::abs(v - m);
  return {m, std::max(1.4826 * median_in_place(peers), 0.02 * m)};
}

std::pair<double, double> centre_and_spread(const std::vector<double>& values, std::size_t skip) {
  std::vector<double> peers;
  peers.reserve(values.size());
  for (std::size_t i = 0; i < values.size(); ++i)
    if (i != skip) peers.push_back(values[i]);
  return centre_and_spread_in_place(peers);
}

// Up to this many nodes each is judged against the others alone: among few peers the outlier
// itself would widen the spread it is measured by. Beyond, its weight is negligible.
constexpr std::size_t kLeaveOneOutUpTo = 64;

enum class Judge { kSlowNode, kSlowRank };

// Members whose value is min_ratio above their peers' median and min_z robust deviations away
// (late ranks are judged within their groups, late_ranks() below). Ranks are judged among
// all, conservatively: a busy host has a rank a little slow or fast by chance (rank 0 with the
// harness's own work), and a rank is named only when it is clearly apart; a slow node's ranks
// are named with it.
// Each flagged member with its robust z and its ratio to the peers it was judged against (the
// ratio the thresholds apply to, and the one shown).
struct Flagged {
  std::size_t index;
  double z;
  double ratio;
};

std::vector<Flagged> judge(const std::vector<double>& values, const OutlierOptions& o, Judge kind) {
  std::vector<Flagged> flagged;
  if (values.size() < 3) return flagged;
  const bool leave_one_out = kind == Judge::kSlowNode && values.size() <= kLeaveOneOutUpTo;
  const auto all = centre_and_spread(values, values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto [m, spread] = leave_one_out ? centre_and_spread(values, i) : all;
    const double z = (values[i] - m) / spread;
    if (values[i] >= o.min_ratio * m && z >= o.min_z) flagged.push_back({i, z, values[i] / m});
  }
  return flagged;
}

std::int64_t group_of(const CaseData& c, std::size_t rank) {
  return rank < c.group_of_rank.size() ? c.group_of_rank[rank] : 0;
}

// Whether `rank` ran in the group of one of the `late` ranks in case `c`: it waited for that
// rank inside each operation, so its time says nothing of its own speed.
bool waited_for_late(const CaseData& c, std::size_t rank, const std::vector<int>& late) {
  if (!c.meaning.peer_late) return false;
  return std::any_of(late.begin(), late.end(), [&](int l) {
    const auto g = group_of(c, static_cast<std::size_t>(l));
    return g >= 0 && g == group_of(c, rank);
  });
}

// Each rank's typical time relative to the peers that ran the same size, over the cases that
// declare peer_slow; NaN for a rank that ran none. `short_blocks`: sizes left out because their
// back-to-back blocks were too short, `fewest_ops` the shortest of those blocks.
struct SlownessEvidence {
  std::vector<double> ratio;
  std::vector<std::size_t> compared;
  std::size_t sizes = 0, short_blocks = 0;
  std::int64_t fewest_ops = 0;
  std::size_t waited = 0;  // sizes left with fewer than 3 ranks by leaving out the waiting ones
};

// Where the second of two threads takes over the cases (slowness and lateness are judged in two
// halves at once: a day's soak is thousands of cases); 0, one thread, for a run of few cases (a
// soak's round is not worth a thread).
std::size_t halfway(const RunData& run) {
  constexpr std::size_t kCasesWorthAThread = 64;
  return run.cases.size() < kCasesWorthAThread ? 0 : run.cases.size() / 2;
}

// The ratios of the cases [from, to) (the cases' share of slowness below), each rank's in the
// order of its points.
struct SlownessPart {
  std::vector<std::vector<double>> relative;  // per rank
  std::size_t sizes = 0, short_blocks = 0, waited = 0;
  std::int64_t fewest_ops = 0;
};

SlownessPart slowness_part(const RunData& run, const OutlierOptions& o,
                           const std::vector<int>& late, std::size_t from, std::size_t to) {
  const auto ranks = static_cast<std::size_t>(run.world_size);
  // A rank has a ratio at most once a point: room for all at once, not regrown point by point
  // (a day's soak is tens of thousands of points).
  std::size_t points = 0;
  for (std::size_t i = from; i < to; ++i)
    if (run.cases[i].meaning.peer_slow) points += run.cases[i].rank_medians.size();
  SlownessPart e;
  e.relative.resize(ranks);
  std::vector<double> own, active;
  for (std::size_t i = from; i < to; ++i) {
    const auto& c = run.cases[i];
    if (!c.meaning.peer_slow) continue;
    for (std::size_t point = 0; point < c.rank_medians.size(); ++point) {
      ++e.sizes;
      const auto* times = slowness_times(c, point, o);
      if (times == nullptr) {
        const auto ops = c.batch_ops[point];
        e.fewest_ops = e.short_blocks++ == 0 ? ops : std::min(e.fewest_ops, ops);
        continue;
      }
      own.assign(times->size(), std::nan(""));
      bool left_out = false;
      for (std::size_t r = 0; r < own.size(); ++r) {
        if (!waited_for_late(c, r, late))
          own[r] = (*times)[r];
        else
          left_out = left_out || !std::isnan((*times)[r]);
      }
      active.clear();
      for (double m : own)
        if (!std::isnan(m)) active.push_back(m);
      const double peers = median_in_place(active);
      if (active.size() < 3 || !(peers > 0)) {
        if (left_out) ++e.waited;
        continue;
      }
      for (std::size_t r = 0; r < own.size() && r < ranks; ++r) {
        if (std::isnan(own[r])) continue;
        if (e.relative[r].empty()) e.relative[r].reserve(points);
        e.relative[r].push_back(own[r] / peers);
      }
    }
  }
  return e;
}

// Two halves of the cases at once (a day's soak is thousands of cases, judged after reading
// while a core is free); a rank's ratio is the median of both halves' ratios together, which
// is what one pass over all the cases gives.
SlownessEvidence slowness(const RunData& run, const OutlierOptions& o,
                          const std::vector<int>& late) {
  const auto ranks = static_cast<std::size_t>(run.world_size);
  const std::size_t half = halfway(run);
  auto second = std::async(half == 0 ? std::launch::deferred : std::launch::async, slowness_part,
                           std::cref(run), std::cref(o), std::cref(late), half, run.cases.size());
  const auto first = slowness_part(run, o, late, 0, half);
  const auto last = second.get();
  SlownessEvidence e;
  e.sizes = first.sizes + last.sizes;
  e.short_blocks = first.short_blocks + last.short_blocks;
  e.fewest_ops = first.short_blocks == 0  ? last.fewest_ops
                 : last.short_blocks == 0 ? first.fewest_ops
                                          : std::min(first.fewest_ops, last.fewest_ops);
  e.waited = first.waited + last.waited;
  e.ratio.assign(ranks, std::nan(""));
  e.compared.assign(ranks, 0);
  std::vector<double> both;
  for (std::size_t r = 0; r < ranks; ++r) {
    both.assign(first.relative[r].begin(), first.relative[r].end());
    both.insert(both.end(), last.relative[r].begin(), last.relative[r].end());
    if (both.empty()) continue;
    e.compared[r] = both.size();
    e.ratio[r] = median_in_place(both);
  }
  return e;
}

// Each rank's per-iteration time at each size of the cases that declare peer_late, divided by
// the median of the other members of its group there: the ranks it waited for and that waited
// for it. Ranks of other groups never wait for it, so they are no measure of its lateness (in
// two groups {0,1} and {2,3}, a late rank 1 leaves rank 0 waiting and 2 and 3 untouched).
struct LateEvidence {
  std::vector<std::vector<double>> ratios;  // per rank, per size compared
  // Per rank: the sizes where it was late, its ratio 1/min_late_ratio or less and its peers'
  // wait min_late_wait_s or more (counted as they come: each wait kept was a day's soak's
  // 737 MB).
  std::vector<std::size_t> late_sizes;
  std::size_t sizes = 0, thin = 0;  // sizes compared; sizes of too few iterations
  std::size_t points = 0;           // of the cases that declare peer_late: room for a rank's ratios
};

void add_group_ratios(const CaseData& c, std::size_t point, const OutlierOptions& o,
                      LateEvidence& e) {
  const auto& times = c.rank_medians[point];
  std::map<std::int64_t, std::vector<std::size_t>> members;
  for (std::size_t r = 0; r < times.size() && r < e.ratios.size(); ++r)
    if (!std::isnan(times[r]) && group_of(c, r) >= 0) members[group_of(c, r)].push_back(r);
  bool compared = false;
  for (const auto& [group, ranks] : members) {
    if (ranks.size() < 2) continue;
    std::vector<double> values;
    values.reserve(ranks.size());
    for (std::size_t r : ranks) values.push_back(times[r]);
    const LeaveOneOutMedian others(std::move(values));
    for (std::size_t r : ranks) {
      const double m = others.without(times[r]);
      if (!(m > 0)) continue;
      if (e.ratios[r].empty()) e.ratios[r].reserve(e.points);
      const double ratio = times[r] / m;
      e.ratios[r].push_back(ratio);
      if (ratio * o.min_late_ratio <= 1 && m - times[r] >= o.min_late_wait_s) ++e.late_sizes[r];
      compared = true;
    }
  }
  if (compared) ++e.sizes;
}

// The lateness of the cases [from, to); `room`: the points a rank's ratios get room for.
LateEvidence lateness_part(const RunData& run, const OutlierOptions& o, std::size_t from,
                           std::size_t to, std::size_t room) {
  LateEvidence e;
  e.ratios.resize(static_cast<std::size_t>(run.world_size));
  e.late_sizes.assign(e.ratios.size(), 0);
  e.points = room;
  for (std::size_t i = from; i < to; ++i) {
    const auto& c = run.cases[i];
    if (!c.meaning.peer_late) continue;
    for (std::size_t point = 0; point < c.rank_medians.size(); ++point) {
      if (point < c.iteration_times.size() &&
          c.iteration_times[point].size() < o.min_late_iterations) {
        ++e.thin;
        continue;
      }
      add_group_ratios(c, point, o, e);
    }
  }
  return e;
}

// Two halves of the cases at once, as slowness: the first half's ratios, then the second's, as
// one pass in case order gives them.
LateEvidence lateness(const RunData& run, const OutlierOptions& o) {
  std::size_t points = 0, second_points = 0;
  const std::size_t half = halfway(run);
  for (std::size_t i = 0; i < run.cases.size(); ++i) {
    if (!run.cases[i].meaning.peer_late) continue;
    points += run.cases[i].rank_medians.size();
    if (i >= half) second_points += run.cases[i].rank_medians.size();
  }
  // One part (a soak's round): not an empty first part and every rank's ratios copied after it.
  if (half == 0) return lateness_part(run, o, 0, run.cases.size(), points);
  auto second = std::async(std::launch::async, lateness_part, std::cref(run), std::cref(o), half,
                           run.cases.size(), second_points);
  auto e = lateness_part(run, o, 0, half, points);
  const auto last = second.get();
  for (std::size_t r = 0; r < e.ratios.size(); ++r) {
    e.ratios[r].insert(e.ratios[r].end(), last.ratios[r].begin(), last.ratios[r].end());
    e.late_sizes[r] += last.late_sizes[r];
  }
  e.sizes += last.sizes;
  e.thin += last.thin;
  e.points = points;
  return e;
}

// The centre and spread of every rank's lateness ratios but those of rank `skip` (none skipped
// when it is out of range); NaN when there are none.
std::pair<double, double> others_centre_and_spread(const LateEvidence& e, std::size_t skip) {
  std::size_t count = 0;
  for (std::size_t peer = 0; peer < e.ratios.size(); ++peer)
    if (peer != skip) count += e.ratios[peer].size();
  if (count == 0) return {std::nan(""), std::nan("")};
  std::vector<double> others;
  others.reserve(count);
  for (std::size_t peer = 0; peer < e.ratios.size(); ++peer)
    if (peer != skip) others.insert(others.end(), e.ratios[peer].begin(), e.ratios[peer].end());
  return centre_and_spread_in_place(others);
}

// Ranks that arrive late: their group peers wait for them inside the operation, so their own
// time is the shortest of their group, size after size. A size counts as late when the rank's
// time is at most 1/min_late_ratio of its group peers' and they waited min_late_wait_s or more
// for it; named when late at min_late_share of min_late_points or more sizes, with the median
// of its ratios as short and min_z robust deviations below the ratios of all other ranks.
// Without the wait the barrier's release order would name a rank: on the 2-core VM the last
// rank released spent 0.3 us in an 8-byte collective its peers spent 5-12 us in, every run.
std::vector<Outlier> late_ranks(const LateEvidence& e, const OutlierOptions& o) {
  std::vector<Outlier> out;
  // Among few ranks each is judged against the others' ratios alone (its own would widen the
  // spread it is measured by); among many, against everyone's, computed once: a rank's weight
  // in them is negligible, and the others' ratios gathered anew for each rank are quadratic.
  const bool few = e.ratios.size() <= kLeaveOneOutUpTo;
  const auto everyone = few ? std::pair{0.0, 0.0} : others_centre_and_spread(e, e.ratios.size());
  std::vector<double> scratch;
  for (std::size_t r = 0; r < e.ratios.size(); ++r) {
    const auto& own = e.ratios[r];
    if (own.size() < o.min_late_points) continue;
    const std::size_t late_sizes = e.late_sizes[r];
    scratch.assign(own.begin(), own.end());
    const double typical = median_in_place(scratch);
    const auto [m, spread] = few ? others_centre_and_spread(e, r) : everyone;
    if (std::isnan(m)) continue;
    const double z = (typical - m) / spread;
    if (static_cast<double>(late_sizes) >= o.min_late_share * static_cast<double>(own.size()) &&
        typical * o.min_late_ratio <= 1 && z <= -o.min_z)
      out.push_back(
          {"late rank", fmt::format("rank {}", r), {static_cast<int>(r)}, typical, z, own.size()});
  }
  return out;
}

std::vector<int> ranks_of(const std::vector<Outlier>& outliers) {
  std::vector<int> ranks;
  for (const auto& o : outliers) ranks.insert(ranks.end(), o.ranks.begin(), o.ranks.end());
  return ranks;
}

// Everything the judgements read, computed once (lateness, then slowness without the groups of
// the late ranks): both the outliers and what could not be judged come from it.
struct Evidence {
  LateEvidence lateness;
  std::vector<Outlier> late;
  SlownessEvidence slowness;
};

Evidence gather_evidence(const RunData& run, const OutlierOptions& options) {
  Evidence e;
  e.lateness = lateness(run, options);
  e.late = late_ranks(e.lateness, options);
  // The ratios are judged: their memory goes to slowness' (a day's soak: 737 MB not made anew).
  std::vector<std::vector<double>>().swap(e.lateness.ratios);
  e.slowness = slowness(run, options, ranks_of(e.late));
  return e;
}

std::vector<Outlier> outliers_of(const RunData& run, const OutlierOptions& options,
                                 const Evidence& all) {
  const auto ranks = static_cast<std::size_t>(run.world_size);
  const auto& late = all.late;
  const auto& evidence = all.slowness;
  const auto& rank_ratio = evidence.ratio;
  const auto& compared = evidence.compared;
  std::vector<double> present;
  std::vector<int> present_rank;
  for (std::size_t r = 0; r < ranks; ++r) {
    if (std::isnan(rank_ratio[r])) continue;
    present.push_back(rank_ratio[r]);
    present_rank.push_back(static_cast<int>(r));
  }
  std::vector<Outlier> out;
  // Nodes first: a node is as slow as its typical rank.
  const auto node_column = run.environment.find("node");
  const auto name_column = run.environment.find(std::string(schema::env::kNodeName.name));
  if (node_column != run.environment.end() && name_column != run.environment.end()) {
    // Nodes in name order, each with its ranks: hashed, then the distinct names sorted (a soak
    // judges every round of thousands of ranks this way).
    std::unordered_map<std::string_view, std::size_t> index_of_node;
    std::vector<std::vector<int>> members_of;
    for (int r : present_rank) {
      const std::string_view node = node_column->second[static_cast<std::size_t>(r)];
      const auto [it, fresh] = index_of_node.try_emplace(node, members_of.size());
      if (fresh) members_of.emplace_back();
      members_of[it->second].push_back(r);
    }
    std::vector<std::pair<std::string_view, std::size_t>> by_name(index_of_node.begin(),
                                                                  index_of_node.end());
    std::sort(by_name.begin(), by_name.end());
    std::vector<double> node_ratio;
    std::vector<std::size_t> node_key;
    std::vector<double> v;
    for (const auto& [node, index] : by_name) {
      v.clear();
      for (int r : members_of[index]) v.push_back(rank_ratio[static_cast<std::size_t>(r)]);
      node_ratio.push_back(median(v));
      node_key.push_back(index);
    }
    for (const auto& [i, z, judged] : judge(node_ratio, options, Judge::kSlowNode)) {
      const auto& members = members_of[node_key[i]];
      out.push_back({"node", name_column->second[static_cast<std::size_t>(members.front())],
                     members, judged, z, compared[static_cast<std::size_t>(members.front())]});
    }
  }
  for (const auto& [i, z, judged] : judge(present, options, Judge::kSlowRank)) {
    const int r = present_rank[i];
    out.push_back(
        {"rank", fmt::format("rank {}", r), {r}, judged, z, compared[static_cast<std::size_t>(r)]});
  }
  out.insert(out.end(), late.begin(), late.end());
  return out;
}

// Why late ranks could not be judged, or "" where they could (or no case declares peer_late).
std::string lateness_not_judged(const RunData& run, const OutlierOptions& o,
                                const LateEvidence& e) {
  const bool declared = std::any_of(run.cases.begin(), run.cases.end(),
                                    [](const CaseData& c) { return c.meaning.peer_late; });
  if (!declared || e.sizes >= o.min_late_points) return "";
  std::string thin;
  if (e.thin > 0)
    thin = fmt::format(" ({} size{} of fewer than {} iterations left out)", e.thin,
                       e.thin == 1 ? "" : "s", o.min_late_iterations);
  return fmt::format(
      "late ranks: {} size{} compared ranks with their group peers{}; judging needs {} or more",
      e.sizes, e.sizes == 1 ? "" : "s", thin, o.min_late_points);
}

std::vector<std::string> not_judged_of(const RunData& run, const OutlierOptions& options,
                                       const Evidence& all) {
  const auto& e = all.slowness;
  std::unordered_set<std::string_view> nodes;
  std::size_t ranks = 0;
  const auto node_column = run.environment.find("node");
  for (std::size_t r = 0; r < e.ratio.size(); ++r) {
    if (std::isnan(e.ratio[r])) continue;
    ++ranks;
    if (node_column != run.environment.end() && r < node_column->second.size())
      nodes.insert(node_column->second[r]);
  }
  std::vector<std::string> out;
  if (e.short_blocks > 0)
    out.push_back(fmt::format(
        "slow nodes and ranks: {} of {} sizes left out, their back-to-back blocks of {} "
        "operation{} (too few iterations per size); judging needs {} or more per block",
        e.short_blocks, e.sizes, e.fewest_ops, e.fewest_ops == 1 ? "" : "s",
        options.min_block_ops));
  if (e.waited > 0)
    out.push_back(fmt::format(
        "slow nodes and ranks: {} of {} sizes left out, their ranks waited for a late rank",
        e.waited, e.sizes));
  if (ranks == 0 && e.short_blocks == 0 && e.waited == 0)
    out.push_back(
        "slow nodes and ranks: no case that compares ranks with their peers had 3 or more ranks "
        "active");
  if (ranks > 0 && nodes.size() < 3)
    out.push_back(fmt::format(
        "slow nodes: {} node{} ran cases that compare peers; judging a node needs 3 or more",
        nodes.size(), nodes.size() == 1 ? "" : "s"));
  if (ranks > 0 && ranks < 3)
    out.push_back(fmt::format("slow ranks: {} ranks compared; judging needs 3 or more", ranks));
  if (const auto late = lateness_not_judged(run, options, all.lateness); !late.empty())
    out.push_back(late);
  return out;
}

}  // namespace

const std::vector<double>* slowness_times(const CaseData& c, std::size_t point,
                                          const OutlierOptions& o) {
  if (point < c.rank_batched_medians.size() && !c.rank_batched_medians[point].empty()) {
    const bool amortised = !c.meaning.peer_late || point >= c.batch_ops.size() ||
                           c.batch_ops[point] >= o.min_block_ops;
    return amortised ? &c.rank_batched_medians[point] : nullptr;
  }
  return &c.rank_medians[point];
}

OutlierJudgement judge_outliers(const RunData& run, const OutlierOptions& options) {
  const auto evidence = gather_evidence(run, options);
  return {outliers_of(run, options, evidence), not_judged_of(run, options, evidence)};
}

}  // namespace preflight::report
