// The GEMM determinism check's judgement (docs/correctness.md), pure so that it is unit-tested
// (tests/unit/correctness_gemm_test.cpp): after each run every rank holds every rank's hash of C,
// and every rank computes the same verdicts from them, so the ranks agree without a second
// exchange on who fetches whose result.
//
// Ranks are compared within their class (same device model and library). In a class of two or
// more, the hash held by a strict majority is right, and a dissenter is compared with the lowest
// rank of that majority. A class of one rank is compared with its own first confirmed result of
// the point (repetition; confirmed_reference). With no strict majority (a tie), each member whose
// hash changed since its own first result is wrong against that first result; if the members that
// did not change still disagree, nobody can tell which is right: each of them is wrong with source
// -1 and compared, for a count of elements, with the lowest of them that holds another hash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace preflight::correctness {

struct Verdict {
  bool wrong = false;
  // Whose result this rank's is compared with element by element: another rank, or the rank
  // itself (its own first result of the point); -1 when right.
  int reference = -1;
  // The rank recorded as right (wrong_source): the majority's, the rank itself, or -1 (none).
  int source = -1;
};

// class_of[r]: rank r's class; hash[r]: its hash now; first[r]: its confirmed reference hash
// of the point (confirmed_reference over its first runs). One verdict per rank.
std::vector<Verdict> judge(const std::vector<int>& class_of, const std::vector<std::uint64_t>& hash,
                           const std::vector<std::uint64_t>& first);

// The reference of one rank's later results from its first results' hashes, in order (2 or 3):
// the index (0 or 1) of the first that a later one repeats; -1 where none is confirmed (2 that
// differ: run a third; 3 that all differ: none ever). A fault in run 1 then leaves run 2 (or 3)
// the reference, rather than every later right result counted wrong against it.
int confirmed_reference(const std::vector<std::uint64_t>& runs);

// Where two results of `elements` elements of `element_bytes` bytes each differ bit for bit.
struct Difference {
  std::uint64_t count = 0;  // elements that differ
  std::uint64_t first = 0;  // the first one's index (count > 0)
};
Difference compare_results(const unsigned char* mine, const unsigned char* reference,
                           std::size_t elements, std::size_t element_bytes);

// The class of each rank from its key (device model and library): the index of the key's first
// appearance among the distinct keys, in rank order.
std::vector<int> classes_of(const std::vector<std::string>& keys);
// "key: 0-3; other key: 4,6" (ranks as runs).
std::string describe_classes(const std::vector<std::string>& keys,
                             const std::vector<int>& class_of);

}  // namespace preflight::correctness
