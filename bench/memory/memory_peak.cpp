#include "memory/memory_peak.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <string>

namespace preflight::memory {
namespace {

// "N DIMMs at S MT/s" from `dmidecode -t memory`, or why not.
std::string dmidecode_summary() {
  FILE* p = popen("dmidecode -t memory 2>/dev/null", "r");
  if (p == nullptr) return "dmidecode did not run";
  char line[512];
  int dimms = 0;
  std::string speed;
  while (std::fgets(line, sizeof(line), p) != nullptr) {
    const std::string l(line);
    if (l.find("\tSize: ") == 0 && l.find("No Module") == std::string::npos) ++dimms;
    if (speed.empty() && l.find("\tConfigured Memory Speed: ") == 0 &&
        l.find("Unknown") == std::string::npos)
      speed = l.substr(l.find(':') + 2, l.find('\n') - l.find(':') - 2);
  }
  const int rc = pclose(p);
  if (rc != 0 || dimms == 0) return "dmidecode not available (not installed, not root, or a VM)";
  return fmt::format("dmidecode: {} DIMMs at {}; the channel count is not known from them", dimms,
                     speed.empty() ? "an unknown speed" : speed);
}

}  // namespace

MemoryPeak memory_peak(double given_gbs) {
  if (given_gbs > 0) return {given_gbs, "memory_peak as given"};
  return {std::nan(""), fmt::format("unknown: {}; give memory_peak (GB/s per node: channels x "
                                    "MT/s x 8 B)",
                                    dmidecode_summary())};
}

}  // namespace preflight::memory
