// The data set's content: every 8-byte word says which file it is in and where, so a read can
// be checked and a bad block named by file and offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace preflight::storage {

inline constexpr std::size_t kPatternPage = 4096;  // verification unit: bad pages are counted

// The word at byte `offset` (a multiple of 8) of the file with id `file_id`. Never 0.
inline std::uint64_t pattern_word(std::uint32_t file_id, std::uint64_t offset) {
  return (static_cast<std::uint64_t>(file_id + 1) << 48) | (offset >> 3);
}

// Fills `bytes` (a multiple of 8) that start at byte `offset` of file `file_id`.
inline void fill_pattern(std::byte* out, std::size_t bytes, std::uint32_t file_id,
                         std::uint64_t offset) {
  for (std::size_t i = 0; i < bytes; i += 8) {
    const std::uint64_t w = pattern_word(file_id, offset + i);
    std::memcpy(out + i, &w, 8);
  }
}

// The first word of a page that differs, as its byte position in the page; -1 when none.
inline long first_mismatch(const std::byte* page, std::size_t bytes, std::uint32_t file_id,
                           std::uint64_t offset) {
  for (std::size_t i = 0; i < bytes; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, page + i, 8);
    if (w != pattern_word(file_id, offset + i)) return static_cast<long>(i);
  }
  return -1;
}

}  // namespace preflight::storage
