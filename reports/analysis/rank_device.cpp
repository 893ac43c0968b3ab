#include "analysis/rank_device.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "preflight/schema/layout.hpp"

namespace preflight::report {
namespace {

std::string column_at(const RunData& run, const schema::Item& column, std::int64_t rank) {
  const auto it = run.environment.find(std::string(column.name));
  if (it == run.environment.end() || rank < 0 ||
      static_cast<std::size_t>(rank) >= it->second.size())
    return "";
  return it->second[static_cast<std::size_t>(rank)];
}

}  // namespace

RankDevice device_of(const RunData& run, std::int64_t rank) {
  return {rank, column_at(run, schema::env::kHost, rank),
          column_at(run, schema::env::kGpuUuid, rank)};
}

std::string describe(const RankDevice& d) {
  if (d.host.empty()) return fmt::format("rank {}", d.rank);
  return fmt::format("rank {} on host {} ({})", d.rank, d.host,
                     d.gpu_uuid.empty() ? "CPU" : "GPU " + d.gpu_uuid);
}

std::string ranks_with_counts(const RunData& run,
                              const std::map<std::int64_t, std::uint64_t>& by_rank,
                              std::size_t most) {
  std::vector<std::pair<std::int64_t, std::uint64_t>> ranks(by_rank.begin(), by_rank.end());
  std::stable_sort(ranks.begin(), ranks.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (std::size_t i = 0; i < ranks.size() && i < most; ++i)
    out += fmt::format("{}{}: {}", out.empty() ? "" : "; ",
                       describe(device_of(run, ranks[i].first)), ranks[i].second);
  if (ranks.size() > most)
    out += fmt::format("; and {} more rank{}", ranks.size() - most,
                       ranks.size() - most == 1 ? "" : "s");
  return out;
}

}  // namespace preflight::report
