// splitmix64: a small seedable generator whose stream is the same on every platform, for the
// dataloader's shuffles, augmentations and synthetic images (reproducible from a seed).
#pragma once

#include <cstdint>

namespace preflight::kernels {

// One step of splitmix64's output function: a well-mixed 64-bit hash of x.
constexpr std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

struct SplitMix {
  std::uint64_t state;
  std::uint64_t next() {
    const std::uint64_t out = splitmix(state);
    state += 0x9E3779B97F4A7C15ull;
    return out;
  }
  // Uniform in [0, 1) and [lo, hi).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
};

}  // namespace preflight::kernels
