// Where a world rank ran, from the run's environment (layout.hpp kEnvironmentColumns): its host
// and its GPU, so that a finding can name the device a rank used, for any family.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "reader/results_reader.hpp"

namespace preflight::report {

struct RankDevice {
  std::int64_t rank = -1;
  std::string host;      // the host the rank ran on; "" when the environment does not say
  std::string gpu_uuid;  // its GPU's UUID; "" for a rank without one
};

RankDevice device_of(const RunData& run, std::int64_t rank);

// "rank 2 on host pf3 (GPU GPU-abc)", "rank 2 on host pf3 (CPU)", "rank 2" without a host.
std::string describe(const RankDevice& d);

// "rank 2 on host pf3 (GPU GPU-abc): 12; rank 5 ...: 3": at most `most` ranks, the most first,
// then "and N more ranks".
std::string ranks_with_counts(const RunData& run,
                              const std::map<std::int64_t, std::uint64_t>& by_rank,
                              std::size_t most);

}  // namespace preflight::report
