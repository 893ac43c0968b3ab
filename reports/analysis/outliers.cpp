#include "analysis/outliers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "harness/stats.hpp"

namespace preflight::report {
namespace {

// Median and robust deviation (1.4826 x MAD, floored at 2% of the median so that tightly
// agreeing peers do not make noise look significant) of `values` without member `skip`.
std::pair<double, double> centre_and_spread(const std::vector<double>& values, std::size_t skip) {
  std::vector<double> peers;
  for (std::size_t i = 0; i < values.size(); ++i)
    if (i != skip) peers.push_back(values[i]);
  const double m = median(peers);
  std::vector<double> deviations;
  for (double v : peers) deviations.push_back(std::abs(v - m));
  return {m, std::max(1.4826 * median(deviations), 0.02 * m)};
}

// Up to this many nodes each is judged against the others alone: among few peers the outlier
// itself would widen the spread it is measured by. Beyond, its weight is negligible.
constexpr std::size_t kLeaveOneOutUpTo = 64;

enum class Judge { kSlowNode, kSlowRank, kLateRank };

// Members whose value is min_ratio above their peers' median and min_z robust deviations away;
// late ranks as far below (ratio at most 1/min_ratio, z at most -min_z). Ranks are judged among
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
  const bool low = kind == Judge::kLateRank;
  const bool leave_one_out = kind == Judge::kSlowNode && values.size() <= kLeaveOneOutUpTo;
  const auto all = centre_and_spread(values, values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto [m, spread] = leave_one_out ? centre_and_spread(values, i) : all;
    const double z = (values[i] - m) / spread;
    const bool far = low ? values[i] * o.min_late_ratio <= m && z <= -o.min_z
                         : values[i] >= o.min_ratio * m && z >= o.min_z;
    if (far) flagged.push_back({i, z, values[i] / m});
  }
  return flagged;
}

// Which per-rank time a judgement compares. Slowness: the back-to-back time where the point has
// it, since over a block of operations the ranks' arrival skew and their roles in the algorithm
// amortise (in one collective, the rank the barrier releases first waits longest for the others,
// and a ring or tree gives each rank its own share of the wait: on 4 emulated hosts with nothing
// planted, per-iteration own times ranged 0.13-2.3x their peers', back-to-back ones 0.99-1.01x);
// else the per-iteration time. Lateness: the per-iteration time, where a late arrival shows.
enum class Times { kForSlowness, kPerIteration };

const std::vector<double>& rank_times(const CaseData& c, std::size_t point, Times which) {
  if (which == Times::kForSlowness && point < c.rank_batched_medians.size() &&
      !c.rank_batched_medians[point].empty())
    return c.rank_batched_medians[point];
  return c.rank_medians[point];
}

// Each rank's typical time relative to the peers that ran the same size, over the cases `use`
// accepts; NaN for a rank that ran none.
template <typename Accept>
std::vector<double> typical_ratios(const RunData& run, Accept use, Times which,
                                   std::vector<std::size_t>& compared) {
  const auto ranks = static_cast<std::size_t>(run.world_size);
  std::vector<std::vector<double>> relative(ranks);
  for (const auto& c : run.cases) {
    if (!use(c)) continue;
    for (std::size_t point = 0; point < c.rank_medians.size(); ++point) {
      const auto& medians = rank_times(c, point, which);
      std::vector<double> active;
      for (double m : medians)
        if (!std::isnan(m)) active.push_back(m);
      const double peers = median(active);
      if (active.size() < 3 || !(peers > 0)) continue;
      for (std::size_t r = 0; r < medians.size() && r < ranks; ++r)
        if (!std::isnan(medians[r])) relative[r].push_back(medians[r] / peers);
    }
  }
  std::vector<double> ratio(ranks, std::nan(""));
  compared.assign(ranks, 0);
  for (std::size_t r = 0; r < ranks; ++r) {
    if (relative[r].empty()) continue;
    ratio[r] = median(relative[r]);
    compared[r] = relative[r].size();
  }
  return ratio;
}

// Ranks that arrive late, in cases that declare peer_late: every peer waits for them inside the
// operation, so their own time is the shortest, size after size.
void add_late_ranks(const RunData& run, const OutlierOptions& options, std::vector<Outlier>& out) {
  std::vector<std::size_t> compared;
  const auto ratio = typical_ratios(
      run, [](const CaseData& c) { return c.meaning.peer_late; }, Times::kPerIteration, compared);
  std::vector<double> present;
  std::vector<int> rank_of;
  for (std::size_t r = 0; r < ratio.size(); ++r)
    if (!std::isnan(ratio[r])) {
      present.push_back(ratio[r]);
      rank_of.push_back(static_cast<int>(r));
    }
  for (const auto& [i, z, judged] : judge(present, options, Judge::kLateRank)) {
    const int r = rank_of[i];
    out.push_back({"late rank",
                   fmt::format("rank {}", r),
                   {r},
                   judged,
                   z,
                   compared[static_cast<std::size_t>(r)]});
  }
}

}  // namespace

std::vector<Outlier> find_outliers(const RunData& run, const OutlierOptions& options) {
  const auto ranks = static_cast<std::size_t>(run.world_size);
  std::vector<std::size_t> compared;
  const auto rank_ratio = typical_ratios(
      run, [](const CaseData& c) { return c.meaning.peer_slow; }, Times::kForSlowness, compared);
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
  const auto name_column = run.environment.find("node_name");
  if (node_column != run.environment.end() && name_column != run.environment.end()) {
    std::map<std::string, std::vector<int>> ranks_of_node;
    for (int r : present_rank)
      ranks_of_node[node_column->second[static_cast<std::size_t>(r)]].push_back(r);
    std::vector<double> node_ratio;
    std::vector<std::string> node_key;
    for (const auto& [node, members] : ranks_of_node) {
      std::vector<double> v;
      for (int r : members) v.push_back(rank_ratio[static_cast<std::size_t>(r)]);
      node_ratio.push_back(median(v));
      node_key.push_back(node);
    }
    for (const auto& [i, z, judged] : judge(node_ratio, options, Judge::kSlowNode)) {
      const auto& members = ranks_of_node[node_key[i]];
      out.push_back({"node", name_column->second[static_cast<std::size_t>(members.front())],
                     members, judged, z, compared[static_cast<std::size_t>(members.front())]});
    }
  }
  for (const auto& [i, z, judged] : judge(present, options, Judge::kSlowRank)) {
    const int r = present_rank[i];
    out.push_back(
        {"rank", fmt::format("rank {}", r), {r}, judged, z, compared[static_cast<std::size_t>(r)]});
  }
  add_late_ranks(run, options, out);
  return out;
}

std::vector<std::string> outliers_not_judged(const RunData& run) {
  std::vector<std::size_t> compared;
  const auto ratio = typical_ratios(
      run, [](const CaseData& c) { return c.meaning.peer_slow; }, Times::kForSlowness, compared);
  std::vector<std::string> nodes;
  std::size_t ranks = 0;
  const auto node_column = run.environment.find("node");
  for (std::size_t r = 0; r < ratio.size(); ++r) {
    if (std::isnan(ratio[r])) continue;
    ++ranks;
    if (node_column != run.environment.end() && r < node_column->second.size())
      nodes.push_back(node_column->second[r]);
  }
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  std::vector<std::string> out;
  if (ranks == 0) {
    out.push_back(
        "slow nodes and ranks: no case that compares ranks with their peers had 3 or more ranks "
        "active");
    return out;
  }
  if (nodes.size() < 3)
    out.push_back(fmt::format(
        "slow nodes: {} node{} ran cases that compare peers; judging a node needs 3 or more",
        nodes.size(), nodes.size() == 1 ? "" : "s"));
  if (ranks < 3)
    out.push_back(fmt::format("slow ranks: {} ranks compared; judging needs 3 or more", ranks));
  return out;
}

}  // namespace preflight::report
