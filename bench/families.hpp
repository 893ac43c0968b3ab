// The benchmark families an executable offers. The table is the executable's own, one line per
// family: bench/families.cpp for preflight, tests/family/families.cpp for the test-only build.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/family.hpp"

namespace preflight {

struct FamilyEntry {
  std::string_view name;
  std::unique_ptr<Family> (*make)();
};

// Defined by the executable's families.cpp.
std::span<const FamilyEntry> family_table();

// A fresh, unconfigured family; nullptr for an unknown name.
inline std::unique_ptr<Family> make_family(const std::string& name) {
  for (const auto& f : family_table())
    if (name == f.name) return f.make();
  return nullptr;
}

inline std::vector<std::string> family_names() {
  std::vector<std::string> names;
  for (const auto& f : family_table()) names.emplace_back(f.name);
  return names;
}

}  // namespace preflight
