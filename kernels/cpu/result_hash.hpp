// A 64-bit hash of a result's bytes, for the correctness family's GEMM determinism check: every
// rank hashes its C after every run and the ranks compare hashes instead of results. One
// definition for the host (the OpenBLAS backend, the tests) and the device (the cuBLASLt
// backend's kernel, kernels/cuda/result_hash.cu), so C never leaves the GPU on the hot path.
//
// hash = finish(sum over 8-byte words w_i of mix(w_i, i), bytes), the sum modulo 2^64. mix is a
// bijection of w for each i (xor, xorshift and odd multiplies, splitmix64's finaliser), so a
// change in any one word always changes the hash; the sum is exact in any order, so the GPU's
// block partials combine to the same value however the blocks ran. The last partial word is
// zero-padded; the length enters in finish(). About 2 multiplies per 8 bytes: several GB/s per
// core (Debian's libxxhash0 is installed here but its header is not, so it is not used).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#ifdef __CUDACC__
#define PREFLIGHT_HASH_HD __host__ __device__
#else
#define PREFLIGHT_HASH_HD
#endif

namespace preflight::kernels {

PREFLIGHT_HASH_HD constexpr std::uint64_t hash_word(std::uint64_t w, std::uint64_t i) {
  std::uint64_t z = w ^ (i * 0x9E3779B97F4A7C15ULL + 0xD1B54A32D192ED03ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

PREFLIGHT_HASH_HD constexpr std::uint64_t hash_finish(std::uint64_t sum, std::uint64_t bytes) {
  return hash_word(sum, bytes ^ 0xA0761D6478BD642FULL);
}

// The zero-padded word of the last bytes % 8 bytes (little-endian, as a word load reads them).
PREFLIGHT_HASH_HD inline std::uint64_t tail_word(const unsigned char* p, std::size_t n) {
  std::uint64_t w = 0;
  for (std::size_t b = 0; b < n; ++b) w |= static_cast<std::uint64_t>(p[b]) << (8 * b);
  return w;
}

// The sum of mix(w_i, i) over the words of `bytes` bytes at `data` (any alignment).
inline std::uint64_t hash_sum(const void* data, std::size_t bytes) {
  const auto* p = static_cast<const unsigned char*>(data);
  const std::size_t words = bytes / 8;
  std::uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  std::size_t i = 0;
  for (; i + 4 <= words; i += 4) {
    std::uint64_t w[4];
    std::memcpy(w, p + 8 * i, sizeof(w));
    s0 += hash_word(w[0], i);
    s1 += hash_word(w[1], i + 1);
    s2 += hash_word(w[2], i + 2);
    s3 += hash_word(w[3], i + 3);
  }
  for (; i < words; ++i) {
    std::uint64_t w = 0;
    std::memcpy(&w, p + 8 * i, sizeof(w));
    s0 += hash_word(w, i);
  }
  if (bytes % 8 != 0) s0 += hash_word(tail_word(p + 8 * words, bytes % 8), words);
  return s0 + s1 + s2 + s3;
}

inline std::uint64_t hash_bytes(const void* data, std::size_t bytes) {
  return hash_finish(hash_sum(data, bytes), bytes);
}

}  // namespace preflight::kernels
