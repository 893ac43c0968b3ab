// The report's figure formats, defined once (analysis/format.hpp) and wrapped for HTML
// (render/html_format.hpp): what every layer writes, pinned here byte for byte.
#include <gtest/gtest.h>

#include <cmath>

#include "analysis/format.hpp"
#include "render/html_format.hpp"

namespace preflight::report {
namespace {

TEST(ReportFormat, PlainText) {
  EXPECT_EQ(figure(12.34567), "12.35");
  EXPECT_EQ(figure(std::nan("")), "-");
  EXPECT_EQ(figure(0.000123456, 3), "0.000123");
  EXPECT_EQ(with_unit("12.5", "GB/s"), "12.5 GB/s");
  EXPECT_EQ(with_unit("12.5", ""), "12.5");
  EXPECT_EQ(with_unit("3", "s", "&nbsp;"), "3&nbsp;s");
  EXPECT_EQ(seconds(0.0951234), "0.09512");
  EXPECT_EQ(seconds(-1), "n/a");  // not measured
  EXPECT_EQ(seconds(std::nan("")), "n/a");
  EXPECT_EQ(binary_bytes(4096), "4 KiB");
  EXPECT_EQ(binary_bytes(1.5 * 1024 * 1024), "1.5 MiB");
  EXPECT_EQ(binary_bytes(512), "512 B");
  EXPECT_EQ(binary_bytes(std::ldexp(1, 60)), "1024 PiB");
}

TEST(ReportFormat, Html) {
  EXPECT_EQ(html::number_with_unit(12.5, "GB/s"), "12.5&nbsp;GB/s");
  EXPECT_EQ(html::number_with_unit(12.5, ""), "12.5");
  EXPECT_EQ(html::number_with_unit(std::nan(""), "GB/s"), "&ndash;");
  EXPECT_EQ(html::number_with_unit(1, "<b>"), "1&nbsp;&lt;b&gt;");
  EXPECT_EQ(html::scaled_seconds(4.2e-6), "4.2&nbsp;&micro;s");
  EXPECT_EQ(html::scaled_seconds(0), "0");
  EXPECT_EQ(html::bytes(16.0 * 1024 * 1024), "16&nbsp;MiB");
  EXPECT_EQ(html::bytes(std::nan("")), "&ndash;");
  EXPECT_EQ(html::size_text("1048576"), "<span title=\"1048576 bytes\">1&nbsp;MiB</span>");
  EXPECT_EQ(html::size_text("small"), "small");
}

}  // namespace
}  // namespace preflight::report
