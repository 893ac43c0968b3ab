// The report's heap in transparent huge pages. A day's soak at 1,000 nodes keeps gigabytes of
// per-rank figures, every page of it touched once: on a VM a page fault cost about 16 us (155,771
// of them, 2.5 s of system time, for an hour's soak of 0.6 GB). glibc backs its heap with huge
// pages where the kernel allows them only when asked at start-up (the tunable
// glibc.malloc.hugetlb, read before main), so the report starts itself again once with it set.
#pragma once

namespace preflight::report {

// Call first in main: replaces the process with itself, the tunable added to GLIBC_TUNABLES,
// unless it is there already (the second start, or the user chose a value). Returns where it did
// not (already set, or no /proc or the exec failed: the report then runs with small pages).
void restart_with_huge_page_heap(char** argv);

}  // namespace preflight::report
