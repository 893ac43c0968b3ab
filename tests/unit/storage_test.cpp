// The storage family's pure parts: other-node pairing, the data set's pattern, cache states.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "storage/cache_state.hpp"
#include "storage/engine.hpp"
#include "storage/pattern.hpp"

namespace preflight::storage {
namespace {

TEST(StorageOtherNode, EveryRankReadsAnotherNodesData) {
  // 3 nodes of 2, 1 and 3 ranks.
  const std::vector<int> node = {0, 0, 1, 2, 2, 2};
  const std::vector<int> local = {0, 1, 0, 0, 1, 2};
  std::vector<int> source;
  for (int r = 0; r < 6; ++r) {
    source.push_back(other_node_source(r, node, local, 3));
    EXPECT_NE(node[static_cast<std::size_t>(source.back())], node[static_cast<std::size_t>(r)])
        << "rank " << r << " reads its own node's data";
  }
  // The same local rank on the next node, modulo that node's size.
  EXPECT_EQ(source, (std::vector<int>{2, 2, 3, 0, 1, 0}));
}

TEST(StorageOtherNode, TwoNodesSwap) {
  const std::vector<int> node = {0, 0, 1, 1};
  const std::vector<int> local = {0, 1, 0, 1};
  for (int r = 0; r < 4; ++r) EXPECT_EQ(other_node_source(r, node, local, 2), (r + 2) % 4);
}

TEST(StorageOtherNode, UnevenNodesAreNamed) {
  // np 3 with 2 ranks per node: ranks 0 and 1 would both read rank 2's file.
  const std::vector<int> node = {0, 0, 1};
  const std::vector<int> local = {0, 1, 0};
  EXPECT_EQ(other_node_source(0, node, local, 2), other_node_source(1, node, local, 2));
  EXPECT_EQ(uneven_nodes(node, 2), "node 0 has 2 ranks, node 1 has 1");
  EXPECT_EQ(uneven_nodes({0, 0, 1, 2, 2, 2}, 3), "node 0 has 2 ranks, node 1 has 1");
  EXPECT_EQ(uneven_nodes({0, 0, 1, 1}, 2), "");
  EXPECT_EQ(uneven_nodes({0, 1, 2}, 3), "");
}

TEST(StorageOtherNode, EvenNodesPairOneToOne) {
  // 3 nodes of 2: every rank reads a different rank's data, on another node.
  const std::vector<int> node = {0, 0, 1, 1, 2, 2};
  const std::vector<int> local = {0, 1, 0, 1, 0, 1};
  std::vector<int> read_by(6, -1);
  for (int r = 0; r < 6; ++r) {
    const int s = other_node_source(r, node, local, 3);
    EXPECT_NE(node[static_cast<std::size_t>(s)], node[static_cast<std::size_t>(r)]);
    EXPECT_EQ(read_by[static_cast<std::size_t>(s)], -1)
        << "ranks " << read_by[static_cast<std::size_t>(s)] << " and " << r << " read one file";
    read_by[static_cast<std::size_t>(s)] = r;
  }
}

TEST(StoragePattern, NamesFileAndOffsetAndCatchesOneBadWord) {
  std::vector<std::byte> page(kPatternPage);
  fill_pattern(page.data(), page.size(), 7, 1 << 20);
  EXPECT_EQ(first_mismatch(page.data(), page.size(), 7, 1 << 20), -1);
  EXPECT_EQ(first_mismatch(page.data(), page.size(), 8, 1 << 20), 0) << "another file's page";
  EXPECT_EQ(first_mismatch(page.data(), page.size(), 7, 0), 0) << "another offset's page";
  page[1000] ^= std::byte{1};
  EXPECT_EQ(first_mismatch(page.data(), page.size(), 7, 1 << 20), 1000 / 8 * 8);
  std::vector<std::byte> zeros(kPatternPage);
  EXPECT_EQ(first_mismatch(zeros.data(), zeros.size(), 0, 0), 0) << "a zero page is never right";
}

TEST(StoragePattern, SectorsFirstWordsNameTheirOffsetAndTheRestRepeatsEachPeriod) {
  const std::size_t bytes = 2 * kPatternPage;
  std::vector<std::byte> here(bytes), period_on(bytes);
  fill_pattern(here.data(), bytes, 3, 8192);
  fill_pattern(period_on.data(), bytes, 3, 8192 + kPatternPeriod);
  auto word = [](const std::vector<std::byte>& v, std::size_t at) {
    std::uint64_t w;
    std::memcpy(&w, v.data() + at, 8);
    return w;
  };
  // By hand: file 3 -> 4 << 48; a 512-byte sector's first word is its offset / 8, the others'
  // offset modulo 1 MiB / 8.
  EXPECT_EQ(word(here, 0), (std::uint64_t{4} << 48) | 1024);
  EXPECT_EQ(word(period_on, 0), (std::uint64_t{4} << 48) | ((8192 + (1 << 20)) / 8));
  EXPECT_EQ(word(period_on, 8), (std::uint64_t{4} << 48) | (8200 / 8));
  EXPECT_EQ(word(period_on, 512), (std::uint64_t{4} << 48) | ((8704 + (1 << 20)) / 8));
  for (std::size_t i = 0; i < bytes; i += 8) {
    if (i % 512 == 0) continue;
    EXPECT_EQ(word(here, i), word(period_on, i)) << "word " << i;
  }
  EXPECT_EQ(first_mismatch(period_on.data(), kPatternPage, 3, 8192), 0)
      << "a page one period away differs in its first word";
  // A sector one period away, inside an otherwise right page: caught at the sector's start.
  std::memcpy(here.data() + 1024, period_on.data() + 1024, 512);
  EXPECT_EQ(first_mismatch(here.data(), kPatternPage, 3, 8192), 1024);
  EXPECT_EQ(first_mismatch(period_on.data(), kPatternPage, 3, 8192 + kPatternPeriod), -1);
}

// A writer's buffers reused block after block hold exactly what a fresh fill gives, and are
// filled whole only when the offset modulo the period or the size changes.
TEST(StoragePattern, ReusedBuffersHoldWhatAFreshFillGives) {
  const std::size_t block = kPatternPeriod;
  std::vector<std::byte> a(2 * block), b(2 * block), fresh(2 * block);
  PatternBuffers buffers(5);
  std::uint64_t offset = 0;
  for (int i = 0; i < 6; ++i, offset += block) {
    auto& buffer = i % 2 == 0 ? a : b;  // two slots in turn, as io_uring's
    buffers.fill(buffer.data(), block, offset);
    fill_pattern(fresh.data(), block, 5, offset);
    ASSERT_EQ(std::memcmp(buffer.data(), fresh.data(), block), 0) << "block " << i;
  }
  EXPECT_EQ(buffers.whole_fills(), 2u) << "one whole fill per buffer";
  // Blocks of a quarter period: each buffer's offset modulo the period changes every time.
  for (std::uint64_t o = 0; o < 4 * (block / 4); o += block / 4) {
    buffers.fill(a.data(), block / 4, o);
    fill_pattern(fresh.data(), block / 4, 5, o);
    ASSERT_EQ(std::memcmp(a.data(), fresh.data(), block / 4), 0) << "offset " << o;
  }
  EXPECT_EQ(buffers.whole_fills(), 6u);
  // Twice the period, at an odd page: the same phase again needs only the first words.
  buffers.fill(b.data(), 2 * block, kPatternPage);
  buffers.fill(b.data(), 2 * block, kPatternPage + 2 * block);
  fill_pattern(fresh.data(), 2 * block, 5, kPatternPage + 2 * block);
  EXPECT_EQ(std::memcmp(b.data(), fresh.data(), 2 * block), 0);
  EXPECT_EQ(buffers.whole_fills(), 7u);
}

TEST(StorageCacheState, NamesRoundTripAndOnlyWarmKeepsTheCache) {
  for (auto s :
       {CacheState::kDirect, CacheState::kEvicted, CacheState::kOtherNode, CacheState::kWarm}) {
    EXPECT_EQ(cache_state_names().parse(name_of(s)), s);
    EXPECT_EQ(evicts(s), s != CacheState::kWarm);
  }
  EXPECT_FALSE(cache_state_names().parse("cold"));
}

TEST(StorageEngines, TableAndCapabilities) {
  EXPECT_EQ(engine_names(), (std::vector<std::string>{"psync", "io_uring", "mmap"}));
  for (const auto& n : engine_names()) EXPECT_EQ(make_engine(n)->name(), n);
  EXPECT_FALSE(make_engine("libaio"));
  EXPECT_TRUE(engine_supports_direct("psync"));
  EXPECT_FALSE(engine_supports_direct("mmap"));
  EXPECT_TRUE(engine_supports_queue_depth("io_uring"));
  EXPECT_FALSE(engine_supports_queue_depth("psync"));
}

}  // namespace
}  // namespace preflight::storage
