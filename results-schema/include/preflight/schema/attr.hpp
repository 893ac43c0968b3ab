// A declared case attribute: its name, unit, meaning and the C++ type of its value, in one
// constant that the writer writes from and the reader reads through (issue 36). A family's
// schema header declares each of its attributes once as an Attr; its attribute table (what
// SPEC.md and declared.hpp list) is built from those constants.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "preflight/schema/layout.hpp"

namespace preflight::schema {

// The file's element type of a C++ value type: std::int64_t, double or std::string.
template <typename T>
inline constexpr Type type_of_v = std::is_same_v<T, std::int64_t> ? Type::kInt64
                                  : std::is_same_v<T, double>     ? Type::kFloat64
                                                                  : Type::kString;

template <typename T>
struct Attr {
  static_assert(std::is_same_v<T, std::int64_t> || std::is_same_v<T, double> ||
                    std::is_same_v<T, std::string>,
                "a case attribute holds std::int64_t, double or std::string");
  using value_type = T;
  std::string_view name;
  std::string_view unit;  // "" when it has none
  std::string_view description;
  static constexpr Type type = type_of_v<T>;
  // The untyped table entry (SPEC.md's tables, declared.hpp's lists).
  constexpr Item item() const { return {name, type, unit, description}; }
};

}  // namespace preflight::schema
