#include "correctness/gemm_verdict.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>

namespace preflight::correctness {

std::vector<Verdict> judge(const std::vector<int>& class_of, const std::vector<std::uint64_t>& hash,
                           const std::vector<std::uint64_t>& first) {
  const std::size_t n = class_of.size();
  std::vector<Verdict> out(n);
  std::map<int, std::vector<int>> members;
  for (std::size_t r = 0; r < n; ++r) members[class_of[r]].push_back(static_cast<int>(r));
  const auto at = [](const auto& v, int r) { return v[static_cast<std::size_t>(r)]; };
  for (const auto& [cls, ranks] : members) {
    (void)cls;
    const auto self_check = [&](int r) {
      if (at(hash, r) != at(first, r)) out[static_cast<std::size_t>(r)] = {true, r, r};
    };
    if (ranks.size() == 1) {
      self_check(ranks.front());
      continue;
    }
    // The strict majority's hash, if there is one (Boyer-Moore vote, then a count).
    std::uint64_t candidate = 0;
    std::size_t votes = 0;
    for (int r : ranks) {
      if (votes == 0) candidate = at(hash, r);
      votes += at(hash, r) == candidate ? 1 : std::size_t{0} - 1;
    }
    std::size_t holders = 0;
    int lowest = -1;
    for (int r : ranks)
      if (at(hash, r) == candidate) {
        ++holders;
        if (lowest < 0) lowest = r;
      }
    if (2 * holders > ranks.size()) {
      for (int r : ranks)
        if (at(hash, r) != candidate) out[static_cast<std::size_t>(r)] = {true, lowest, lowest};
      continue;
    }
    // No majority: repetition first, then the members that did not change.
    std::vector<int> steady;
    for (int r : ranks) {
      self_check(r);
      if (!out[static_cast<std::size_t>(r)].wrong) steady.push_back(r);
    }
    bool agree = true;
    for (int r : steady) agree = agree && at(hash, r) == at(hash, steady.front());
    if (agree) continue;
    for (int r : steady) {
      int other = -1;
      for (int q : steady)
        if (at(hash, q) != at(hash, r)) {
          other = q;
          break;
        }
      out[static_cast<std::size_t>(r)] = {true, other, -1};
    }
  }
  return out;
}

int confirmed_reference(const std::vector<std::uint64_t>& runs) {
  if (runs.size() >= 2 && runs[1] == runs[0]) return 0;
  if (runs.size() >= 3) {
    if (runs[2] == runs[0]) return 0;
    if (runs[2] == runs[1]) return 1;
  }
  return -1;
}

Difference compare_results(const unsigned char* mine, const unsigned char* reference,
                           std::size_t elements, std::size_t element_bytes) {
  Difference d;
  for (std::size_t e = 0; e < elements; ++e)
    if (std::memcmp(mine + e * element_bytes, reference + e * element_bytes, element_bytes) != 0) {
      if (d.count == 0) d.first = e;
      ++d.count;
    }
  return d;
}

std::vector<int> classes_of(const std::vector<std::string>& keys) {
  std::vector<int> out;
  std::vector<std::string> seen;
  for (const auto& k : keys) {
    std::size_t i = 0;
    while (i < seen.size() && seen[i] != k) ++i;
    if (i == seen.size()) seen.push_back(k);
    out.push_back(static_cast<int>(i));
  }
  return out;
}

std::string describe_classes(const std::vector<std::string>& keys,
                             const std::vector<int>& class_of) {
  std::string out;
  int classes = 0;
  for (int c : class_of) classes = std::max(classes, c + 1);
  for (int c = 0; c < classes; ++c) {
    std::string ranks;
    for (std::size_t r = 0; r < class_of.size(); ++r) {
      if (class_of[r] != c) continue;
      std::size_t end = r;
      while (end + 1 < class_of.size() && class_of[end + 1] == c) ++end;
      if (!ranks.empty()) ranks += ",";
      ranks += end > r ? fmt::format("{}-{}", r, end) : fmt::format("{}", r);
      r = end;
    }
    std::size_t first = 0;
    while (class_of[first] != c) ++first;
    if (!out.empty()) out += "; ";
    out += fmt::format("{}: {}", keys[first], ranks);
  }
  return out;
}

}  // namespace preflight::correctness
