#include "storage/dataset_options.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "preflight/common/sizes.hpp"
#include "storage/engine.hpp"

namespace preflight::storage {
namespace {
constexpr std::uint64_t kPage = 4096;
}  // namespace

std::string default_dir() {
  const char* t = std::getenv("TMPDIR");
  return t != nullptr && *t != 0 ? std::string(t) : std::string("/var/tmp");
}

bool valid_id(const std::string& id) {
  if (id.empty() || id == "." || id == ".." || id.size() > 100) return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
}

void check_dir_and_id(const ConfigNode& entry, std::string& dir, const std::string& id) {
  if (dir.empty()) entry.fail("dir", "a directory", "an empty string");
  dir = std::filesystem::absolute(dir).lexically_normal().string();
  if (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  if (entry.has("dataset") && !valid_id(id))
    entry.fail("dataset", "a name of letters, digits, '-', '_' and '.' (it names a directory)",
               "'" + id + "'");
}

void check_block_sizes(const ConfigNode& entry, const std::vector<std::uint64_t>& block_sizes,
                       std::uint64_t size) {
  for (std::uint64_t b : block_sizes)
    if (b < kPage || b % kPage != 0 || b > (1ull << 30))
      entry.fail("block_sizes",
                 "multiples of 4K (4096 bytes) up to 1G (O_DIRECT and verification work in 4 KiB "
                 "pages)",
                 format_bytes(b));
  for (std::uint64_t b : block_sizes)
    if (size > 0 && size % b != 0)
      entry.fail("size", fmt::format("a multiple of every block size (here {})", format_bytes(b)),
                 format_bytes(size));
}

void check_queue_depths(const ConfigNode& entry, const std::vector<int>& queue_depths,
                        const std::vector<std::string>& engines) {
  const bool deep =
      std::any_of(queue_depths.begin(), queue_depths.end(), [](int q) { return q > 1; });
  const bool several = std::any_of(engines.begin(), engines.end(), [](const std::string& e) {
    return engine_supports_queue_depth(e);
  });
  if (deep && !several)
    entry.fail(
        "queue_depths", "1 unless an engine keeps several reads in flight (io_uring)",
        fmt::format("{} with engines {}", fmt::join(queue_depths, ","), fmt::join(engines, ",")));
}

}  // namespace preflight::storage
