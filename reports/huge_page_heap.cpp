#include "huge_page_heap.hpp"

#include <unistd.h>

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

}  // namespace preflight::report
