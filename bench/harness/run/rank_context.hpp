// Who this rank is in the job: world rank, node grouping and local rank.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

namespace preflight {

struct RankContext {
  MPI_Comm world = MPI_COMM_WORLD;
  int rank = 0;
  int size = 1;
  std::string host;    // this rank's host name
  int node = 0;        // this rank's node index
  int local_rank = 0;  // rank within the node
  int node_count = 1;
  std::vector<int> node_of_rank;          // world rank -> node index
  std::vector<int> local_rank_of_rank;    // world rank -> local rank
  std::vector<std::string> host_of_rank;  // world rank -> host name
  std::vector<std::string> node_names;    // node index -> label (host, or host/vN)

  bool is_root() const { return rank == 0; }
};

// Collective over `world`. ranks_per_node == 0 groups ranks by the node they share memory
// with (MPI_Comm_split_type) and host name; N > 0 makes virtual nodes of N consecutive ranks,
// so multi-node logic can run on one machine.
RankContext make_rank_context(MPI_Comm world, int ranks_per_node);

}  // namespace preflight
