// The cost of the storage and checkpoint families' data pattern on one core (bench/storage/
// pattern.hpp, the very functions the writers call): a whole fill of a 1 MiB block, and the
// stamp of its sectors' first words that a reused buffer of a 1 MiB multiple needs instead.
// Prints, for each, the median over ROUNDS of the time per MiB (each round writes 256 MiB
// through one page-aligned 1 MiB buffer) and the rate.
//   pattern_fill_cost [ROUNDS]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "storage/pattern.hpp"

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kBlock = std::size_t{1} << 20;
constexpr int kBlocksPerRound = 256;

template <typename Write>
double median_us_per_mib(int rounds, std::byte* buffer, Write write) {
  std::vector<double> us;
  std::uint64_t offset = 0;
  for (int r = 0; r < rounds; ++r) {
    const auto start = Clock::now();
    for (int b = 0; b < kBlocksPerRound; ++b, offset += kBlock) write(buffer, offset);
    const std::chrono::duration<double, std::micro> took = Clock::now() - start;
    us.push_back(took.count() / kBlocksPerRound);
  }
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 21;
  if (rounds < 1) {
    std::fprintf(stderr, "usage: pattern_fill_cost [ROUNDS >= 1]\n");
    return 2;
  }
  auto* buffer = static_cast<std::byte*>(std::aligned_alloc(4096, kBlock));
  using preflight::storage::fill_pattern;
  using preflight::storage::stamp_sectors;
  fill_pattern(buffer, kBlock, 0, 0);  // fault the pages in before timing
  const double fill = median_us_per_mib(
      rounds, buffer, [](std::byte* b, std::uint64_t at) { fill_pattern(b, kBlock, 0, at); });
  const double stamp = median_us_per_mib(
      rounds, buffer, [](std::byte* b, std::uint64_t at) { stamp_sectors(b, kBlock, 0, at); });
  // The buffer's last word, so the compiler cannot drop the writes.
  std::uint64_t last;
  std::memcpy(&last, buffer + kBlock - 8, 8);
  std::printf("whole fill of a 1 MiB block:  %8.1f us per MiB  %6.1f GB/s\n", fill,
              kBlock / fill / 1e3);
  std::printf("stamp of its sectors (reuse): %8.1f us per MiB  %6.1f GB/s  (last word %llx)\n",
              stamp, kBlock / stamp / 1e3, static_cast<unsigned long long>(last));
  std::free(buffer);
  return 0;
}
