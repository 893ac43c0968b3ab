// The untyped entries of the schema's tables: an attribute or column dataset (Item), and a stats
// column, counter or series with what its figure means (Column). Split from layout.hpp so that
// attr.hpp's typed constants can build layout.hpp's own tables.
#pragma once

#include <array>
#include <cstddef>
#include <stdexcept>
#include <string_view>

#include "preflight/schema/meaning.hpp"

namespace preflight::schema {

enum class Type { kInt64, kUInt64, kFloat64, kString };

// One attribute or one column dataset: its name, element type, unit ("" for none) and meaning.
struct Item {
  std::string_view name;
  Type type;
  std::string_view unit;
  std::string_view description;
};

// A stats column, counter or series: an Item and what its figure means. The family tables
// (comm.hpp, storage.hpp) and kStatsColumns are the declaration the writer writes.
struct Column {
  std::string_view name;
  Type type;
  std::string_view unit;
  std::string_view description;
  Direction direction = Direction::kNone;
  Kind kind = Kind::kLabel;
  // Stats columns only:
  PerIteration per_iteration = PerIteration::kNone;
  std::string_view per_iteration_source = "";  // a counter, for counter_rate and counter_median
  bool headline = false;                       // the case's one headline figure
};

// Where a declared entry (a Column, or an Attr) sits in a table (an operation's counter values,
// a series row, a watch), found by its name, so that no index has to be kept in step with the
// table. An entry not in the table is a compile-time error where the index is a constant.
template <typename Entry, std::size_t N, typename Declared>
constexpr std::size_t index_in(const std::array<Entry, N>& table, const Declared& declared) {
  for (std::size_t i = 0; i < N; ++i)
    if (table[i].name == declared.name) return i;
  throw std::invalid_argument("index_in: the entry is not in the table");
}

}  // namespace preflight::schema
