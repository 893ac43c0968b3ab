#include "huge_page_heap.hpp"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>

namespace preflight::report {

void restart_with_huge_page_heap(char** argv) {
  constexpr const char* kTunable = "glibc.malloc.hugetlb";
  const char* given = std::getenv("GLIBC_TUNABLES");
  std::string tunables = given != nullptr ? given : "";
  if (tunables.find(kTunable) != std::string::npos) return;
  // 1: madvise the heap for transparent huge pages, which the kernel's default (madvise) honours.
  tunables += std::string(tunables.empty() ? "" : ":") + kTunable + "=1";
  // By its own path, not /proc/self/exe: the process keeps its name (ps, top, perf).
  std::string self(4096, '\0');
  const ssize_t length = readlink("/proc/self/exe", self.data(), self.size() - 1);
  if (length <= 0) return;
  self.resize(static_cast<std::size_t>(length));
  // Run through an explicit dynamic loader (scripts/device-check.sh does, on a machine whose C
  // library is older), the process is the loader, and its own arguments are gone: stay.
  const auto name = self.substr(self.rfind('/') + 1);
  if (name.rfind("ld-", 0) == 0 || name.rfind("ld.so", 0) == 0) return;
  if (setenv("GLIBC_TUNABLES", tunables.c_str(), 1) != 0) return;
  execv(self.c_str(), argv);
  // Still here: the exec failed; the tunable stays set so that nothing tries again.
}

namespace {

constexpr std::size_t kStep = std::size_t{256} << 20;
// Faulted in a slice at a time, so that stopping waits for one slice at most.
constexpr std::size_t kSlice = std::size_t{16} << 20;
constexpr std::uintptr_t kPage = 4096;

// The main arena's end (its program break): what glibc has taken from the kernel so far.
char* heap_end() {
  return static_cast<char*>(sbrk(0));
}

}  // namespace

HeapPrefault::HeapPrefault(std::uint64_t input_bytes) {
  if (input_bytes < kStep) return;
  mallopt(M_TOP_PAD, static_cast<int>(kStep));
  thread_ = std::thread([this] {
    auto* done =
        reinterpret_cast<char*>(reinterpret_cast<std::uintptr_t>(heap_end()) & ~(kPage - 1));
    while (!stop_) {
      char* end = heap_end();
      if (end <= done) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        continue;
      }
      const auto slice = std::min<std::size_t>(kSlice, static_cast<std::size_t>(end - done));
      // Pages the reader has written already are left as they are; the kernel makes the rest.
      if (madvise(done, slice, MADV_POPULATE_WRITE) != 0) return;  // an older kernel: nothing
      done += slice;
    }
  });
}

HeapPrefault::~HeapPrefault() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

}  // namespace preflight::report
