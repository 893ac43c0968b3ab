#include "analysis/trust.hpp"

#include <fmt/format.h>

#include <set>

#include "preflight/schema/layout.hpp"

namespace preflight::report {

std::string virtual_nodes_caveat(const RunData& run) {
  const auto names = run.environment.find(std::string(schema::env::kNodeName.name));
  const auto hosts_column = run.environment.find(std::string(schema::env::kHost.name));
  if (names == run.environment.end() || hosts_column == run.environment.end()) return "";
  const std::set<std::string> hosts(hosts_column->second.begin(), hosts_column->second.end());
  const std::set<std::string> nodes(names->second.begin(), names->second.end());
  if (nodes.size() <= hosts.size()) return "";
  return fmt::format(
      "its {} nodes are virtual nodes of {} host{} (ranks_per_node grouping): nothing between "
      "them crossed a network",
      nodes.size(), hosts.size(), hosts.size() == 1 ? "" : "s");
}

}  // namespace preflight::report
