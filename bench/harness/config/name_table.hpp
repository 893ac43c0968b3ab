// One table of names for an enum (or any value type): the names users write in configs and on
// the command line, and the names recorded in the results. Families and their options read and
// print every enum through one of these, so a name is written in exactly one place.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace preflight {

template <class E>
struct NameTable {
  std::span<const std::pair<E, std::string_view>> entries;

  std::optional<E> parse(std::string_view name) const {
    for (const auto& [v, n] : entries)
      if (n == name) return v;
    return std::nullopt;
  }
  // "?" for a value that has no name.
  std::string_view name(const E& value) const {
    for (const auto& [v, n] : entries)
      if (v == value) return n;
    return "?";
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& [v, n] : entries) out.emplace_back(n);
    return out;
  }
  std::vector<E> values() const {
    std::vector<E> out;
    for (const auto& [v, n] : entries) out.push_back(v);
    return out;
  }
  // "a, b, c": for help and messages.
  std::string list() const {
    std::string out;
    for (const auto& [v, n] : entries) out += (out.empty() ? "" : ", ") + std::string(n);
    return out;
  }
};

}  // namespace preflight
