// What the page cache holds before each timed read, set up and measured: O_DIRECT bypasses it,
// eviction empties it (fdatasync + posix_fadvise DONTNEED, then mincore says what is left),
// other-node reads what a rank on another node wrote (IOR -C), warm leaves it full.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/config/name_table.hpp"
#include "harness/run/rank_context.hpp"

namespace preflight::storage {

enum class CacheState { kDirect, kEvicted, kOtherNode, kWarm };

const NameTable<CacheState>& cache_state_names();
std::string_view name_of(CacheState s);
// Whether the state evicts the reader's own cache before each iteration: all but warm.
bool evicts(CacheState s);

// Writes back and drops [offset, offset + bytes) of the file from this node's page cache.
// Returns "" or what failed.
std::string evict_range(int fd, std::uint64_t offset, std::uint64_t bytes);

// Fraction of the pages of [offset, offset + bytes) in the page cache (mincore), 0..1; NaN
// when it cannot be measured. offset must be page-aligned.
double resident_fraction(int fd, std::uint64_t offset, std::uint64_t bytes);

// The rank whose data `rank` reads in other-node mode: the same local rank (modulo that
// node's size) on the next node, so no rank reads what its own node wrote. Needs 2+ nodes,
// and the same number of ranks on every node for every rank to read a different rank's data
// (otherwise two ranks of one node read one file: see uneven_nodes).
int other_node_source(int rank, const std::vector<int>& node_of_rank,
                      const std::vector<int>& local_rank_of_rank, int node_count);

// "" when every node has the same number of ranks; else which nodes differ ("node 0 has 2
// ranks, node 1 has 1"), for other-node's refusal.
std::string uneven_nodes(const std::vector<int>& node_of_rank, int node_count);

// Collective-free, the same on every rank: throws UsageError unless the job can read another
// node's data (2+ nodes, the same number of ranks on each). `who` starts the message
// ("storage: cache", "checkpoint: restore").
void require_other_node_layout(const RankContext& ctx, std::string_view who);
// Rank 0 says, on stderr, when other-node reads come from virtual nodes of one host (one page
// cache): only as cold as the eviction before each.
void warn_other_node_on_one_host(const RankContext& ctx, std::string_view family);

}  // namespace preflight::storage
