// A node's theoretical memory bandwidth, where it can be read: given by the user, else unknown
// with what dmidecode says (its DIMMs and speed do not tell the channel count, so no peak is
// made up from them).
#pragma once

#include <string>

namespace preflight::memory {

struct MemoryPeak {
  double gbs = 0;  // NaN: unknown
  std::string source;
};

MemoryPeak memory_peak(double given_gbs);

}  // namespace preflight::memory
