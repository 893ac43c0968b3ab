// Host buffers that start on a page boundary. A copy between two buffers whose addresses differ
// by other than a multiple of 64 bytes runs far slower on some CPUs (measured here, AMD EPYC:
// a 1 MiB all-reduce on 2 ranks took 1.2 ms with the receive buffer 16 bytes off the send
// buffer's alignment, 0.21 ms with both page-aligned), so where malloc happens to place two
// buffers would decide the figure. Page alignment, as the OSU micro-benchmarks use, takes that
// chance out of the measurement.
#pragma once

#include <cstddef>
#include <new>
#include <vector>

namespace preflight::kernels {

inline constexpr std::size_t kPageBytes = 4096;

template <typename T>
struct PageAlignedAllocator {
  using value_type = T;
  PageAlignedAllocator() = default;
  template <typename U>
  PageAlignedAllocator(const PageAlignedAllocator<U>&) {}  // NOLINT: rebinding is implicit
  T* allocate(std::size_t n) {
    return static_cast<T*>(::operator new (n * sizeof(T), std::align_val_t{kPageBytes}));
  }
  void deallocate(T* p, std::size_t) { ::operator delete (p, std::align_val_t{kPageBytes}); }
  template <typename U>
  bool operator==(const PageAlignedAllocator<U>&) const {
    return true;
  }
};

template <typename T>
using PageVector = std::vector<T, PageAlignedAllocator<T>>;

}  // namespace preflight::kernels
