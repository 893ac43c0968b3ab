// The entry of a table whose `name` is `name`, or nullptr: the one lookup of the preset tables.
#pragma once

#include <span>
#include <string_view>

namespace preflight {

template <class T>
const T* find_named(std::span<const T> table, std::string_view name) {
  for (const auto& entry : table)
    if (entry.name == name) return &entry;
  return nullptr;
}

}  // namespace preflight
