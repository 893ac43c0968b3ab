// The test family pace's schema header: what a family declares once, here for a family that is
// test-only (a real family's is results-schema/include/preflight/schema/<family>.hpp, its names
// in schema::<family>). The writer writes from these constants and the HDF5 sink refuses a case
// attribute they do not declare; the report reads only what they put in the file.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "preflight/schema/attr.hpp"
#include "preflight/schema/family_schema.hpp"
#include "preflight/schema/meaning.hpp"

namespace preflight::test::pace {

// Its name: the case attribute `family`, the campaign's `family:` key, its family table line.
inline constexpr std::string_view kFamily = "pace";

// Its case attributes, each once, typed.
inline constexpr schema::Attr<std::int64_t> kSlowRank{"slow_rank", "",
                                                      "the rank that does 1.5x the work; -1: none"};
inline constexpr schema::Attr<std::int64_t> kNodes{"nodes", "nodes", "nodes with active ranks"};
inline constexpr schema::Attr<std::int64_t> kRanks{"ranks", "ranks", "active ranks"};
inline constexpr schema::Attr<std::string> kLayout{"layout", "", "the node count's label"};
inline constexpr std::array kCaseAttributes = {kSlowRank.item(), kNodes.item(), kRanks.item(),
                                               kLayout.item()};

// Its stats columns: the point column (the x-axis), the headline metric and its back-to-back
// twin.
inline constexpr schema::Column kWorkUnitsColumn{
    .name = "work_units",
    .type = schema::Type::kInt64,
    .unit = "units",
    .description = "work units each rank does per operation",
    .kind = schema::Kind::kCount};
inline constexpr schema::Column kUnitsPerSColumn{
    .name = "units_per_s",
    .type = schema::Type::kFloat64,
    .unit = "units/s",
    .description = "work units per second",
    .direction = schema::Direction::kHigher,
    .kind = schema::Kind::kWorkRate,
    .per_iteration = schema::PerIteration::kInverseTime,
    .headline = true};
inline constexpr schema::Column kBatchedUnitsPerSColumn{
    .name = "batched_units_per_s",
    .type = schema::Type::kFloat64,
    .unit = "units/s",
    .description = "work units per second from the back-to-back time",
    .direction = schema::Direction::kHigher,
    .kind = schema::Kind::kWorkRate,
    .per_iteration = schema::PerIteration::kInverseTime};
inline constexpr std::array kStatsColumns = {kWorkUnitsColumn, kUnitsPerSColumn,
                                             kBatchedUnitsPerSColumn};

// Its meaning, once: what every case of the family shares (a case adds its subject). Its
// scaling is the one --scaling asks for, so there are two declarations.
constexpr schema::FamilySchema declaration_of(schema::Scaling scaling) {
  return {.name = kFamily,
          .stage = schema::Stage::kCompute,
          .x_axis = kWorkUnitsColumn.name,
          .bands = schema::Bands::kEachPoint,
          .scaling = scaling,
          .series = "nodes",
          .peer_slow = true,
          .peer_late = false,  // ranks do not wait for each other inside the operation
          .min_samples = 5,
          .case_attributes = kCaseAttributes,
          .stats_columns = kStatsColumns};
}
inline constexpr schema::FamilySchema kPerRankDeclaration =
    declaration_of(schema::Scaling::kPerRank);
inline constexpr schema::FamilySchema kAggregateDeclaration =
    declaration_of(schema::Scaling::kAggregate);

}  // namespace preflight::test::pace
