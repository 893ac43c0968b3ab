// A declared case attribute: its name, unit, meaning and the C++ type of its value, in one
// constant that the writer writes from and the reader reads through (issue 36). A family's
// schema header declares each of its attributes once as an Attr; its attribute table (what
// SPEC.md and declared.hpp list) is built from those constants.
//
// Where the constants live, so that a name can be found without looking it up:
//   - a family's, in a namespace named after the family: schema::comm, schema::storage,
//     schema::checkpoint, schema::matmul, schema::memory, schema::fabric, schema::dataloader,
//     schema::step, schema::telemetry;
//   - what the harness writes on every case (index, status, timeout_s, the meaning attributes,
//     host load, clock_error_s), in schema::harness (layout.hpp).
// Within a namespace the constant's name is the file's name in CamelCase after a k: the case
// attribute bytes_per_rank is storage::kBytesPerRank. A stats column, counter or series (a
// Column) has the suffix Column, Counter or Series after that, so that it never shares a name
// with an attribute: storage::kAggBwColumn, storage::kBytesCounter, storage::kIntervalBwSeries.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "preflight/schema/item.hpp"

namespace preflight::schema {

// The file's element type of a C++ value type: std::int64_t, std::uint64_t, double or
// std::string.
template <typename T>
inline constexpr Type type_of_v = std::is_same_v<T, std::int64_t>    ? Type::kInt64
                                  : std::is_same_v<T, std::uint64_t> ? Type::kUInt64
                                  : std::is_same_v<T, double>        ? Type::kFloat64
                                                                     : Type::kString;

template <typename T>
struct Attr {
  // std::uint64_t only for the harness's counts of wrong elements, which files have always held
  // unsigned.
  static_assert(std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::uint64_t> ||
                    std::is_same_v<T, double> || std::is_same_v<T, std::string>,
                "a case attribute holds std::int64_t, std::uint64_t, double or std::string");
  using value_type = T;
  std::string_view name;
  std::string_view unit;  // "" when it has none
  std::string_view description;
  static constexpr Type type = type_of_v<T>;
  // The untyped table entry (SPEC.md's tables, declared.hpp's lists).
  constexpr Item item() const { return {name, type, unit, description}; }
};

}  // namespace preflight::schema
