#include "harness/run/rank_context.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <climits>
#include <map>

#include "harness/run/mpi_strings.hpp"

namespace preflight {
namespace {

std::string host_name() {
  std::array<char, HOST_NAME_MAX + 1> buffer{};
  if (gethostname(buffer.data(), buffer.size() - 1) != 0) return "unknown";
  return buffer.data();
}

// The lowest world rank sharing memory with this one identifies its node. Emulated hosts
// (network namespaces) share memory but not host names, so the host name splits too.
int physical_node_leader(MPI_Comm world, int rank, const std::vector<std::string>& hosts) {
  const auto first_with_host =
      std::find(hosts.begin(), hosts.end(), hosts[static_cast<std::size_t>(rank)]);
  const int host_color = static_cast<int>(first_with_host - hosts.begin());
  MPI_Comm by_host = MPI_COMM_NULL;
  MPI_Comm_split(world, host_color, rank, &by_host);
  MPI_Comm shared = MPI_COMM_NULL;
  MPI_Comm_split_type(by_host, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared);
  int leader = rank;
  MPI_Allreduce(&rank, &leader, 1, MPI_INT, MPI_MIN, shared);
  MPI_Comm_free(&shared);
  MPI_Comm_free(&by_host);
  return leader;
}

}  // namespace

RankContext make_rank_context(MPI_Comm world, int ranks_per_node) {
  RankContext ctx;
  ctx.world = world;
  MPI_Comm_rank(world, &ctx.rank);
  MPI_Comm_size(world, &ctx.size);
  ctx.host = host_name();
  ctx.host_of_rank = all_gather_strings(world, ctx.host);

  std::vector<int> leader_of_rank(static_cast<std::size_t>(ctx.size));
  if (ranks_per_node > 0) {
    for (int r = 0; r < ctx.size; ++r)
      leader_of_rank[static_cast<std::size_t>(r)] = r - r % ranks_per_node;
  } else {
    const int leader = physical_node_leader(world, ctx.rank, ctx.host_of_rank);
    MPI_Allgather(&leader, 1, MPI_INT, leader_of_rank.data(), 1, MPI_INT, world);
  }
  // Node indices follow the order of each node's first rank; local ranks the world order.
  std::map<int, int> node_of_leader;
  for (int leader : leader_of_rank) node_of_leader.emplace(leader, 0);
  int index = 0;
  for (auto& [leader, node] : node_of_leader) node = index++;
  ctx.node_count = index;
  std::vector<int> seen(static_cast<std::size_t>(ctx.node_count), 0);
  for (int r = 0; r < ctx.size; ++r) {
    const int node = node_of_leader.at(leader_of_rank[static_cast<std::size_t>(r)]);
    ctx.node_of_rank.push_back(node);
    ctx.local_rank_of_rank.push_back(seen[static_cast<std::size_t>(node)]++);
  }
  ctx.node = ctx.node_of_rank[static_cast<std::size_t>(ctx.rank)];
  ctx.local_rank = ctx.local_rank_of_rank[static_cast<std::size_t>(ctx.rank)];
  for (const auto& [leader, node] : node_of_leader) {
    const auto& host = ctx.host_of_rank[static_cast<std::size_t>(leader)];
    ctx.node_names.push_back(ranks_per_node > 0 ? fmt::format("{}/v{}", host, node) : host);
  }
  return ctx;
}

}  // namespace preflight
