// The data set's content: every 8-byte word says which file it is in and where, so a read can
// be checked and a bad block named by file and offset. The first word of each 512-byte sector
// holds its own offset; the others hold their offset modulo kPatternPeriod, so a block of a
// multiple of the period holds the same words at every offset but its sectors' first ones, and
// a writer whose buffer already holds such a block writes the next after changing one word a
// sector (PatternBuffers), as fio scrambles a few bytes of buffers it filled once, instead of
// filling a whole block. A sector moved by a multiple of the period differs in its first word.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace preflight::storage {

inline constexpr std::size_t kPatternPage = 4096;     // verification unit: bad pages are counted
inline constexpr std::uint64_t kPatternSector = 512;  // each sector's first word: its offset
inline constexpr std::uint64_t kPatternPeriod = std::uint64_t{1} << 20;  // a power of two
// Data sets record it in their marker: a set written with another content is written again.
inline constexpr int kPatternVersion = 2;

// The word at byte `offset` (a multiple of 8) of the file with id `file_id`. Never 0.
inline std::uint64_t pattern_word(std::uint32_t file_id, std::uint64_t offset) {
  const std::uint64_t at = offset % kPatternSector == 0 ? offset : offset % kPatternPeriod;
  return (static_cast<std::uint64_t>(file_id + 1) << 48) | (at >> 3);
}

// Writes the first word of every sector that starts in `bytes` at byte `offset` of the file.
inline void stamp_sectors(std::byte* out, std::size_t bytes, std::uint32_t file_id,
                          std::uint64_t offset) {
  const std::uint64_t first = (kPatternSector - offset % kPatternSector) % kPatternSector;
  for (std::uint64_t i = first; i + 8 <= bytes; i += kPatternSector) {
    const std::uint64_t w = pattern_word(file_id, offset + i);
    std::memcpy(out + i, &w, 8);
  }
}

// Fills `bytes` (a multiple of 8) that start at byte `offset` of file `file_id`.
inline void fill_pattern(std::byte* out, std::size_t bytes, std::uint32_t file_id,
                         std::uint64_t offset) {
  const std::uint64_t file = static_cast<std::uint64_t>(file_id + 1) << 48;
  for (std::size_t i = 0; i < bytes; i += 8) {
    const std::uint64_t w = file | (((offset + i) % kPatternPeriod) >> 3);
    std::memcpy(out + i, &w, 8);
  }
  stamp_sectors(out, bytes, file_id, offset);
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

// A writer's buffers (an engine's, reused block after block): fill() leaves a buffer holding the
// pattern of the block it is given, filling it whole only when it does not already hold a block
// of the same file, size and offset modulo kPatternPeriod, and else changing the sectors' first
// words. Only for buffers nothing else writes to between fills, and for no longer than they
// live: a buffer freed and allocated again at the same address would be taken for the old one
// (a save makes one PatternBuffers per engine run, in which the engine's buffers stay put).
class PatternBuffers {
 public:
  explicit PatternBuffers(std::uint32_t file_id) : file_id_(file_id) {}
  void fill(std::byte* out, std::size_t bytes, std::uint64_t offset);
  std::uint64_t whole_fills() const { return whole_fills_; }  // for tests

 private:
  struct Held {
    const std::byte* buffer;
    std::size_t bytes;
    std::uint64_t phase;  // offset % kPatternPeriod
  };
  std::uint32_t file_id_;
  std::vector<Held> held_;
  std::uint64_t whole_fills_ = 0;
};

// What a bad page holds where it first differs: the file, the page's offset, the first wrong
// byte, the word expected and the word found (`at` from first_mismatch). pattern.cpp.
std::string bad_page_message(const std::string& path, std::uint32_t file_id, std::uint64_t offset,
                             const std::byte* page, long at);

// The bad pages one rank's check found: all counted, the first few named (file and offset);
// report() prints them once per check and starts again.
class BadPages {
 public:
  static constexpr std::size_t kNamed = 5;
  // One more bad page, named by `message` while fewer than kNamed are.
  void add(std::string message);
  void add(const BadPages& other);  // another thread's
  // Test-only: as if the page at `offset` of `path` had been wrong.
  void plant(const std::string& path, std::uint64_t offset);
  // Prints "preflight: rank R: LABEL: MESSAGE" for each named page, and the count when more
  // were found; returns the count and forgets them.
  std::uint64_t report(int rank, std::string_view label);

 private:
  std::uint64_t count_ = 0;
  std::vector<std::string> named_;
};

}  // namespace preflight::storage
