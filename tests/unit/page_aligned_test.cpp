// Collective buffers start on a page boundary whatever their size and element type, so the
// copies inside MPI run at the same speed on every run (kernels/cpu/page_aligned.hpp).
#include "cpu/page_aligned.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace preflight::kernels {
namespace {

template <typename T>
void expect_page_aligned(std::size_t n) {
  PageVector<T> a(n), b(n);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a.data()) % kPageBytes, 0u) << n;
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b.data()) % kPageBytes, 0u) << n;
  for (const T& v : a) EXPECT_EQ(v, T{});
}

TEST(PageAligned, EverySizeAndTypeStartsOnAPage) {
  for (std::size_t n : {1u, 2u, 3u, 1000u, 1u << 18, (1u << 20) + 3}) {
    expect_page_aligned<float>(n);
    expect_page_aligned<double>(n);
    expect_page_aligned<std::int32_t>(n);
    expect_page_aligned<std::uint64_t>(n);
  }
}

TEST(PageAligned, ResizeKeepsTheAlignment) {
  PageVector<float> v(3);
  v.resize(1 << 20);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(v.data()) % kPageBytes, 0u);
}

}  // namespace
}  // namespace preflight::kernels
