// "Did you mean" for misspelt names: in a config's keys (harness) and in a rule's metric and
// attributes (report), one definition for both.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace preflight {

// Levenshtein distance: insertions, deletions and substitutions of one character each.
std::size_t edit_distance(const std::string& a, const std::string& b);

// The key in `allowed` closest to `key`, for "did you mean" hints; empty when none is close.
std::string closest_key(const std::string& key, const std::vector<std::string>& allowed);

}  // namespace preflight
