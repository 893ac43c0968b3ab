// A family's declaration, once: its name, what every case of it means (meaning.hpp) and the
// tables of what it writes. Each family's schema header declares one (comm::kDeclaration, ...);
// the harness makes a case's CaseMeaning from it and the little a case says for itself
// (OwnMeaning), so that no family writes its meaning out again.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "preflight/schema/item.hpp"
#include "preflight/schema/layout.hpp"
#include "preflight/schema/meaning.hpp"

namespace preflight::schema {

struct FamilySchema {
  std::string_view name = {};  // family_names.hpp: the case attribute `family`
  // CaseMeaning's fields that every case of the family shares.
  Stage stage = Stage::kStep;
  std::string_view x_axis = {};  // a stats column; "" = the point index
  Bands bands = Bands::kSizeBands;
  Scaling scaling = Scaling::kNone;
  std::string_view series = {};  // the scaling curve, unless a case names its own (OwnMeaning)
  bool peer_slow = false;
  bool peer_late = false;
  std::string_view work_counter = {};              // a counter, or ""
  std::span<const std::string_view> quality = {};  // rule names
  std::int64_t min_samples = 1;
  // What its cases write: every case attribute one of them may carry (besides the harness's),
  // the stats columns, the counters and the series datasets.
  std::span<const Item> case_attributes = {};
  std::span<const Column> stats_columns = {};
  std::span<const Column> counters = {};
  std::span<const Column> series_datasets = {};
};

// One table of two, in that order: every case attribute of a family whose cases carry more than
// one table's.
template <typename T, std::size_t N, std::size_t M>
constexpr std::array<T, N + M> concat(const std::array<T, N>& first,
                                      const std::array<T, M>& second) {
  std::array<T, N + M> out{};
  for (std::size_t i = 0; i < N; ++i) out[i] = first[i];
  for (std::size_t i = 0; i < M; ++i) out[N + i] = second[i];
  return out;
}

// What a case's meaning takes from the case rather than from its family's declaration.
struct OwnMeaning {
  std::string subject;                               // what stays the same along its scaling series
  std::optional<std::string> series = std::nullopt;  // its scaling curve; none: the family's
};

// A case's meaning: its family's declaration with the case's own part; span_nodes stays the
// harness's to fill.
inline CaseMeaning meaning_of(const FamilySchema& family, OwnMeaning own) {
  CaseMeaning m;
  m.stage = family.stage;
  m.x_axis = family.x_axis;
  m.bands = family.bands;
  m.scaling = family.scaling;
  m.subject = std::move(own.subject);
  m.series = own.series ? std::move(*own.series) : std::string(family.series);
  m.peer_slow = family.peer_slow;
  m.peer_late = family.peer_late;
  m.work_counter = family.work_counter;
  m.quality.assign(family.quality.begin(), family.quality.end());
  m.min_samples = family.min_samples;
  return m;
}

}  // namespace preflight::schema
