#include "dataloader/image_cache.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

namespace preflight::dataloader {

double set_cache_state(const ImageSet& set, const std::vector<std::size_t>& order,
                       storage::CacheState cache) {
  constexpr std::uint64_t kPage = 4096;
  double cached = 0, total = 0;
  for (std::size_t i : order) {
    const ImageRef& img = set.images[i];
    const int fd = open(set.files[img.file].c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      throw std::runtime_error(
          fmt::format("cannot open {}: {}", set.files[img.file], std::strerror(errno)));
    const std::uint64_t start = img.offset / kPage * kPage;
    const std::uint64_t bytes = img.offset + img.size - start;
    std::string error;
    if (storage::evicts(cache)) error = storage::evict_range(fd, start, bytes);
    const double resident = storage::resident_fraction(fd, start, bytes);
    close(fd);
    if (!error.empty()) throw std::runtime_error(fmt::format("evicting {}: {}", img.name, error));
    cached += resident * static_cast<double>(img.size);
    total += static_cast<double>(img.size);
  }
  return total > 0 ? cached / total : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace preflight::dataloader
