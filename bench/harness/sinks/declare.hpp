// Writing a schema declaration onto an HDF5 object: the results sink's and the summary points'
// (hdf5_sink.cpp, summary_points.cpp) one way of doing it.
#pragma once

#include <fmt/format.h>

#include <array>
#include <stdexcept>
#include <string_view>
#include <variant>

#include "preflight/schema/h5.hpp"
#include "preflight/schema/layout.hpp"

namespace preflight::declare {

// An attribute has no attributes of its own, so one with a unit gets a companion X.units.
inline void set_unit_of(hid_t object, const schema::Item& attribute) {
  if (!attribute.unit.empty())
    h5::set_attribute(object, schema::unit_attribute_name(attribute.name), attribute.unit);
}

// Sets each attribute of `table` on `object` to the value at the same place in `values`.
template <std::size_t N>
void set_attributes(hid_t object, const std::array<schema::Item, N>& table,
                    const std::array<schema::Value, N>& values) {
  for (std::size_t i = 0; i < N; ++i) {
    std::visit([&](const auto& v) { h5::set_attribute(object, table[i].name, v); }, values[i]);
    set_unit_of(object, table[i]);
  }
}

// A counter's or series' declaration, on its dataset.
inline void declare_counter(hid_t group, std::string_view name, const schema::Column& column) {
  const h5::Handle set = h5::open_dataset(group, name);
  set_attributes(set.get(), schema::kCounterAttributes, schema::counter_values_of(column));
}

inline const schema::Column& declared(const schema::Column* column, std::string_view what,
                                      std::string_view name) {
  if (column == nullptr)
    throw std::logic_error(fmt::format("{} '{}' has no schema declaration", what, name));
  return *column;
}

}  // namespace preflight::declare
