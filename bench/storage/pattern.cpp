#include "storage/pattern.hpp"

#include <fmt/format.h>

#include <cstdio>

namespace preflight::storage {

std::string bad_page_message(const std::string& path, std::uint32_t file_id, std::uint64_t offset,
                             const std::byte* page, long at) {
  std::uint64_t found;
  std::memcpy(&found, page + at, 8);
  const std::uint64_t wrong_at = offset + static_cast<std::uint64_t>(at);
  return fmt::format(
      "bad block in {} at offset {} (4 KiB page; first wrong byte at offset {}): expected "
      "0x{:016x}, found 0x{:016x}",
      path, offset, wrong_at, pattern_word(file_id, wrong_at), found);
}

void PatternBuffers::fill(std::byte* out, std::size_t bytes, std::uint64_t offset) {
  const std::uint64_t phase = offset % kPatternPeriod;
  for (auto& h : held_)
    if (h.buffer == out) {
      if (h.bytes == bytes && h.phase == phase) return stamp_sectors(out, bytes, file_id_, offset);
      h = {out, bytes, phase};
      ++whole_fills_;
      return fill_pattern(out, bytes, file_id_, offset);
    }
  held_.push_back({out, bytes, phase});
  ++whole_fills_;
  fill_pattern(out, bytes, file_id_, offset);
}

void BadPages::add(std::string message) {
  ++count_;
  if (named_.size() < kNamed) named_.push_back(std::move(message));
}

void BadPages::add(const BadPages& other) {
  count_ += other.count_;
  for (const auto& m : other.named_)
    if (named_.size() < kNamed) named_.push_back(m);
}

void BadPages::plant(const std::string& path, std::uint64_t offset) {
  add(fmt::format("test-only corruption of {} at offset {}", path, offset));
}

std::uint64_t BadPages::report(int rank, std::string_view label) {
  for (const auto& m : named_) fmt::print(stderr, "preflight: rank {}: {}: {}\n", rank, label, m);
  if (count_ > named_.size())
    fmt::print(stderr, "preflight: rank {}: {}: {} bad 4 KiB pages in all\n", rank, label, count_);
  std::fflush(stderr);
  const std::uint64_t found = count_;
  count_ = 0;
  named_.clear();
  return found;
}

}  // namespace preflight::storage
