// Byte sizes and size sweeps the way nccl-tests users write them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace preflight {

// "8", "64K", "1M", "2G", "4KiB", "16MB" (K/M/G are powers of 1024, as in nccl-tests).
// Throws UsageError naming `field` when `text` is not a size.
std::uint64_t parse_size(std::string_view text, std::string_view field);

// A sweep from min to max inclusive: geometric when factor > 1, else arithmetic by step.
struct SweepSpec {
  std::uint64_t min_bytes = 8;
  std::uint64_t max_bytes = 8;
  double factor = 2.0;     // -f; 0 or 1 means use step
  std::uint64_t step = 0;  // -i
};
std::vector<std::uint64_t> expand_sweep(const SweepSpec& spec, std::string_view field);

// A written sweep: "8:1M:x4" (geometric), "0:64K:+8K" (arithmetic), "8,1K,1M" (list), "1M".
std::vector<std::uint64_t> parse_sweep(std::string_view text, std::string_view field);

// "1.5 KiB", "64 MiB": for tables and messages.
std::string format_bytes(std::uint64_t bytes);

}  // namespace preflight
