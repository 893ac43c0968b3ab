// The report's heap faulted in ahead of the reader (huge_page_heap.hpp): what the reader writes
// while the second thread makes pages stays as written.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "huge_page_heap.hpp"

namespace {

using preflight::report::HeapPrefault;

TEST(HeapPrefault, WhatIsWrittenWhilePagesAreMadeStaysWritten) {
  const HeapPrefault prefault(std::uint64_t{1} << 30);
  std::vector<std::unique_ptr<std::vector<std::uint64_t>>> blocks;
  // 320 blocks of 1 MiB (past a 256 MiB step of the heap), each filled as it is made.
  for (std::uint64_t b = 0; b < 320; ++b) {
    blocks.push_back(std::make_unique<std::vector<std::uint64_t>>(std::size_t{1} << 17));
    auto& v = *blocks.back();
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = b * 1'000'003 + i;
  }
  std::size_t wrong = 0;
  for (std::uint64_t b = 0; b < blocks.size(); ++b)
    for (std::size_t i = 0; i < blocks[b]->size(); ++i)
      wrong += (*blocks[b])[i] != b * 1'000'003 + i;
  EXPECT_EQ(wrong, 0u);
}

}  // namespace
