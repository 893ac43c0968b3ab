#include "analysis/trust.hpp"

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "preflight/schema/layout.hpp"

namespace preflight::report {

namespace {

// Hashed views, not a sorted set of copies: a soak asks for every round of thousands of ranks.
std::size_t distinct(const std::vector<std::string>& column) {
  return std::unordered_set<std::string_view>(column.begin(), column.end()).size();
}

}  // namespace

std::string virtual_nodes_caveat(const RunData& run) {
  const auto names = run.environment.find(std::string(schema::env::kNodeName.name));
  const auto hosts_column = run.environment.find(std::string(schema::env::kHost.name));
  if (names == run.environment.end() || hosts_column == run.environment.end()) return "";
  const auto hosts = distinct(hosts_column->second), nodes = distinct(names->second);
  if (nodes <= hosts) return "";
  return fmt::format(
      "its {} nodes are virtual nodes of {} host{} (ranks_per_node grouping): nothing between "
      "them crossed a network",
      nodes, hosts, hosts == 1 ? "" : "s");
}

}  // namespace preflight::report
