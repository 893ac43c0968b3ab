#include "storage/cache_state.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <utility>

#include "preflight/common/usage_error.hpp"

namespace preflight::storage {
namespace {

constexpr std::array kStates = {
    std::pair{CacheState::kDirect, std::string_view("direct")},
    std::pair{CacheState::kEvicted, std::string_view("evicted")},
    std::pair{CacheState::kOtherNode, std::string_view("other-node")},
    std::pair{CacheState::kWarm, std::string_view("warm")},
};

}  // namespace

const NameTable<CacheState>& cache_state_names() {
  static constexpr NameTable<CacheState> table{kStates};
  return table;
}

std::string_view name_of(CacheState s) {
  return cache_state_names().name(s);
}

bool evicts(CacheState s) {
  // direct too, as fio does (invalidate=1): O_DIRECT bypasses the cache, and an empty cache
  // makes resident_before mean the same for every state.
  return s != CacheState::kWarm;
}

std::string evict_range(int fd, std::uint64_t offset, std::uint64_t bytes) {
  // Dirty pages are not dropped by DONTNEED: write them back first.
  if (fdatasync(fd) != 0) return fmt::format("fdatasync: {}", std::strerror(errno));
  const int rc =
      posix_fadvise(fd, static_cast<off_t>(offset), static_cast<off_t>(bytes), POSIX_FADV_DONTNEED);
  if (rc != 0) return fmt::format("posix_fadvise(DONTNEED): {}", std::strerror(rc));
  return {};
}

double resident_fraction(int fd, std::uint64_t offset, std::uint64_t bytes) {
  // Test-only fault: PREFLIGHT_TEST_NO_MINCORE=1 makes the measurement fail.
  if (std::getenv("PREFLIGHT_TEST_NO_MINCORE") != nullptr)
    return std::numeric_limits<double>::quiet_NaN();
  const auto page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  if (bytes == 0 || offset % page != 0) return std::numeric_limits<double>::quiet_NaN();
  void* p = mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd, static_cast<off_t>(offset));
  if (p == MAP_FAILED) return std::numeric_limits<double>::quiet_NaN();
  const std::size_t pages = (bytes + page - 1) / page;
  std::vector<unsigned char> vec(pages);
  double fraction = std::numeric_limits<double>::quiet_NaN();
  if (mincore(p, bytes, vec.data()) == 0) {
    std::size_t resident = 0;
    for (unsigned char v : vec) resident += v & 1;
    fraction = static_cast<double>(resident) / static_cast<double>(pages);
  }
  munmap(p, bytes);
  return fraction;
}

int other_node_source(int rank, const std::vector<int>& node_of_rank,
                      const std::vector<int>& local_rank_of_rank, int node_count) {
  const int target = (node_of_rank[static_cast<std::size_t>(rank)] + 1) % node_count;
  std::vector<int> on_target;
  for (std::size_t r = 0; r < node_of_rank.size(); ++r)
    if (node_of_rank[r] == target) on_target.push_back(static_cast<int>(r));
  const int local = local_rank_of_rank[static_cast<std::size_t>(rank)];
  return on_target[static_cast<std::size_t>(local) % on_target.size()];
}

std::string uneven_nodes(const std::vector<int>& node_of_rank, int node_count) {
  std::vector<int> ranks(static_cast<std::size_t>(std::max(node_count, 0)));
  for (int n : node_of_rank)
    if (n >= 0 && n < node_count) ++ranks[static_cast<std::size_t>(n)];
  for (std::size_t n = 1; n < ranks.size(); ++n)
    if (ranks[n] != ranks[0])
      return fmt::format("node 0 has {} rank{}, node {} has {}", ranks[0], ranks[0] == 1 ? "" : "s",
                         n, ranks[n]);
  return {};
}

void require_other_node_layout(const RankContext& ctx, std::string_view who) {
  if (ctx.node_count < 2)
    throw UsageError(fmt::format(
        "{}: other-node reads what a rank on another node wrote (like IOR -C), so it needs at "
        "least 2 nodes; this job has 1. Run on 2+ nodes (or, to test, make virtual nodes with "
        "campaign.ranks_per_node / --ranks-per-node: they share one page cache, which "
        "resident_before then shows)",
        who));
  if (const auto uneven = uneven_nodes(ctx.node_of_rank, ctx.node_count); !uneven.empty())
    throw UsageError(fmt::format(
        "{}: other-node needs the same number of ranks on every node, so that each rank reads a "
        "different rank's file from the next node; here {} (two ranks would read one file, the "
        "second from the page cache the first filled). Run the same number of ranks on every "
        "node (with --ranks-per-node N, a multiple of N ranks)",
        who, uneven));
}

void warn_other_node_on_one_host(const RankContext& ctx, std::string_view family) {
  if (!ctx.is_root()) return;
  const int source = other_node_source(0, ctx.node_of_rank, ctx.local_rank_of_rank, ctx.node_count);
  if (ctx.host_of_rank[static_cast<std::size_t>(source)] == ctx.host)
    fmt::print(stderr,
               "preflight: {}: other-node on virtual nodes of one host: the ranks share one page "
               "cache, so its reads are only as cold as the eviction before each (see "
               "resident_before)\n",
               family);
}

}  // namespace preflight::storage
