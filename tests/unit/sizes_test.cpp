#include "preflight/common/sizes.hpp"

#include <gtest/gtest.h>

#include "preflight/common/usage_error.hpp"

namespace preflight {
namespace {

using Sizes = std::vector<std::uint64_t>;

TEST(ParseSize, AcceptsPlainAndSuffixedSizes) {
  EXPECT_EQ(parse_size("8", "-b"), 8u);
  EXPECT_EQ(parse_size("64K", "-b"), 64u * 1024);
  EXPECT_EQ(parse_size("1M", "-b"), 1u << 20);
  EXPECT_EQ(parse_size("2G", "-b"), 2ull << 30);
  EXPECT_EQ(parse_size("4KiB", "-b"), 4096u);
  EXPECT_EQ(parse_size("16mb", "-b"), 16u << 20);
  EXPECT_EQ(parse_size("1.5K", "-b"), 1536u);
  EXPECT_EQ(parse_size(" 128 ", "-b"), 128u);
}

TEST(ParseSize, RejectsWhatIsNoSizeNamingTheField) {
  for (const char* bad : {"", "K", "abc", "12Q", "1.3", "-4", "1e400"}) {
    try {
      parse_size(bad, "--max-bytes");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("--max-bytes"), std::string::npos) << e.what();
    }
  }
}

TEST(ParseSweep, GeometricArithmeticListAndSingle) {
  EXPECT_EQ(parse_sweep("8:64:x2", "s"), (Sizes{8, 16, 32, 64}));
  EXPECT_EQ(parse_sweep("8:1K:x4", "s"), (Sizes{8, 32, 128, 512}));
  EXPECT_EQ(parse_sweep("0:32:+8", "s"), (Sizes{0, 8, 16, 24, 32}));
  EXPECT_EQ(parse_sweep("8,1K,1M", "s"), (Sizes{8, 1024, 1 << 20}));
  EXPECT_EQ(parse_sweep("1M", "s"), (Sizes{1 << 20}));
  EXPECT_EQ(parse_sweep("8:32", "s"), (Sizes{8, 16, 32}));  // factor 2 by default
}

TEST(ParseSweep, RejectsBrokenSweeps) {
  for (const char* bad :
       {"64:8:x2", "8:64:x1", "8:64:x0.5", "8:64:y2", "8:64:+0", "0:64:x2", "8,,16", "8:64:x"})
    EXPECT_THROW(parse_sweep(bad, "--sizes"), UsageError) << bad;
}

TEST(ExpandSweep, MatchesNcclTestsFlags) {
  SweepSpec spec{8, 128, 2, 0};
  EXPECT_EQ(expand_sweep(spec, "s"), (Sizes{8, 16, 32, 64, 128}));
  spec = {1024, 4096, 0, 1024};
  EXPECT_EQ(expand_sweep(spec, "s"), (Sizes{1024, 2048, 3072, 4096}));
  spec = {100, 100, 2, 0};
  EXPECT_EQ(expand_sweep(spec, "s"), (Sizes{100}));
}

TEST(ExpandSweep, RefusesEndlessSweeps) {
  EXPECT_THROW(expand_sweep({0, 1ull << 40, 0, 1}, "s"), UsageError);
  EXPECT_THROW(expand_sweep({8, 64, 1, 0}, "s"), UsageError);
}

TEST(FormatBytes, Readable) {
  EXPECT_EQ(format_bytes(8), "8 B");
  EXPECT_EQ(format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(format_bytes(64ull << 20), "64 MiB");
}

}  // namespace
}  // namespace preflight
