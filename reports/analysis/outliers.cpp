#include "analysis/outliers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/median.hpp"

namespace preflight::report {
namespace {

// Members whose value is min_ratio above the median and min_z robust deviations away. The MAD
// has a floor of 2% of the median, so tightly agreeing peers do not make noise look significant.
std::vector<std::pair<std::size_t, double>> judge(const std::vector<double>& values,
                                                  const OutlierOptions& o) {
  std::vector<std::pair<std::size_t, double>> flagged;
  if (values.size() < 3) return flagged;
  const double m = median(values);
  std::vector<double> deviations;
  for (double v : values) deviations.push_back(std::abs(v - m));
  const double mad = std::max(1.4826 * median(deviations), 0.02 * m);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double z = (values[i] - m) / mad;
    if (values[i] >= o.min_ratio * m && z >= o.min_z) flagged.emplace_back(i, z);
  }
  return flagged;
}

}  // namespace

std::vector<Outlier> find_outliers(const RunData& run, const OutlierOptions& options) {
  const auto ranks = static_cast<std::size_t>(run.world_size);
  // Each rank's time relative to its peers in every size it ran, then its typical (median) one.
  std::vector<std::vector<double>> relative(ranks);
  for (const auto& c : run.cases)
    for (const auto& medians : c.rank_medians) {
      std::vector<double> active;
      for (double m : medians)
        if (!std::isnan(m)) active.push_back(m);
      const double peers = median(active);
      if (active.size() < 3 || !(peers > 0)) continue;
      for (std::size_t r = 0; r < medians.size() && r < ranks; ++r)
        if (!std::isnan(medians[r])) relative[r].push_back(medians[r] / peers);
    }
  std::vector<double> rank_ratio(ranks, std::nan(""));
  std::vector<std::size_t> compared(ranks, 0);
  std::vector<double> present;
  std::vector<int> present_rank;
  for (std::size_t r = 0; r < ranks; ++r) {
    if (relative[r].empty()) continue;
    rank_ratio[r] = median(relative[r]);
    compared[r] = relative[r].size();
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
    for (const auto& [i, z] : judge(node_ratio, options)) {
      const auto& members = ranks_of_node[node_key[i]];
      out.push_back({"node", name_column->second[static_cast<std::size_t>(members.front())],
                     members, node_ratio[i], z,
                     compared[static_cast<std::size_t>(members.front())]});
    }
  }
  for (const auto& [i, z] : judge(present, options)) {
    const int r = present_rank[i];
    out.push_back({"rank",
                   fmt::format("rank {}", r),
                   {r},
                   present[i],
                   z,
                   compared[static_cast<std::size_t>(r)]});
  }
  return out;
}

}  // namespace preflight::report
