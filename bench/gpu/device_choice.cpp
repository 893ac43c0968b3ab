#include "gpu/device_choice.hpp"

#include <fmt/format.h>

#include <map>

namespace preflight::gpu {

int device_for(int host_rank, int visible) {
  if (visible <= 0 || host_rank < 0) return -1;
  return host_rank % visible;
}

std::string shared_gpu(const std::vector<std::string>& gpu_of_host_rank) {
  std::map<std::string, int> first_taker;
  for (int r = 0; r < static_cast<int>(gpu_of_host_rank.size()); ++r) {
    const auto [it, fresh] =
        first_taker.try_emplace(gpu_of_host_rank[static_cast<std::size_t>(r)], r);
    if (!fresh)
      return fmt::format("host ranks {} and {} both took GPU {}", it->second, r, it->first);
  }
  return "";
}

}  // namespace preflight::gpu
