#include "harness/config/duration.hpp"

#include <gtest/gtest.h>

#include "preflight/common/usage_error.hpp"

namespace preflight {
namespace {

TEST(ParseDuration, Units) {
  EXPECT_DOUBLE_EQ(parse_duration("0.5", "t"), 0.5);
  EXPECT_DOUBLE_EQ(parse_duration("2s", "t"), 2);
  EXPECT_DOUBLE_EQ(parse_duration("200ms", "t"), 0.2);
  EXPECT_DOUBLE_EQ(parse_duration("50us", "t"), 50e-6);
  EXPECT_DOUBLE_EQ(parse_duration("2m", "t"), 120);
}

TEST(ParseDuration, Rejects) {
  for (const char* bad : {"", "fast", "5 s", "-1s", "3days"})
    EXPECT_THROW(parse_duration(bad, "--budget"), UsageError) << bad;
}

}  // namespace
}  // namespace preflight
