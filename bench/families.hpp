// The benchmark families an executable offers. The table is the executable's own, one line per
// family: bench/families.cpp for preflight, tests/family/families.cpp for the test-only build.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/run/family.hpp"

namespace preflight {

struct FamilyEntry {
  std::string_view name;
  std::unique_ptr<Family> (*make)();
  // What the family needs set in the process before MPI_Init (an MPI parameter its library reads
  // only there), or nullptr: nothing.
  void (*before_mpi_init)() = nullptr;
};

// A command a family brings besides its benchmark, run without MPI (`preflight dataset make`):
// `add` declares its options under the command and returns what runs it (its exit code).
struct ToolEntry {
  std::string_view name;
  std::string_view summary;
  std::function<int()> (*add)(CLI::App& command);
};

// Defined by the executable's families.cpp.
std::span<const FamilyEntry> family_table();
std::span<const ToolEntry> tool_table();

// A fresh, unconfigured family; nullptr for an unknown name.
inline std::unique_ptr<Family> make_family(const std::string& name) {
  for (const auto& f : family_table())
    if (name == f.name) return f.make();
  return nullptr;
}

// Every family's before_mpi_init, in the table's order.
inline void prepare_mpi_init() {
  for (const auto& f : family_table())
    if (f.before_mpi_init != nullptr) f.before_mpi_init();
}

inline std::vector<std::string> family_names() {
  std::vector<std::string> names;
  for (const auto& f : family_table()) names.emplace_back(f.name);
  return names;
}

}  // namespace preflight
