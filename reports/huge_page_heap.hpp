// The report's heap, made cheap to grow. A day's soak at 1,000 nodes keeps gigabytes of per-rank
// figures, every page of it touched once: on a VM a page fault cost about 16 us (155,771 of them,
// 2.5 s of system time, for an hour's soak of 0.6 GB), and clearing fresh memory was still the
// largest single cost of the day's report (18% of its CPU samples) with huge pages.
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>

namespace preflight::report {

// Call first in main. glibc backs its heap with transparent huge pages where the kernel allows
// them only when asked at start-up (the tunable glibc.malloc.hugetlb, read before main), so this
// replaces the process with itself, the tunable added to GLIBC_TUNABLES, unless it is there
// already (the second start, or the user chose a value). Returns where it did not (already set,
// run through an explicit dynamic loader, no /proc, or the exec failed: the report then runs
// with small pages).
void restart_with_huge_page_heap(char** argv);

// While it lives, and the inputs are large (`input_bytes`, 256 MiB or more), the heap grows in
// steps of 256 MiB and a second thread faults each step in (MADV_POPULATE_WRITE: pages made,
// nothing written) while the reader fills the step before: the reader's first touch of fresh
// memory then costs nothing (a day's soak: 60 s to 53 s on 2 cores). Memory a step ahead, at most,
// is made before it is used.
class HeapPrefault {
 public:
  explicit HeapPrefault(std::uint64_t input_bytes);
  ~HeapPrefault();
  HeapPrefault(const HeapPrefault&) = delete;
  HeapPrefault& operator=(const HeapPrefault&) = delete;

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace preflight::report
