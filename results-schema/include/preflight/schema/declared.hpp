// Every name the schema declares, across families: what a user's file that names figures (a
// reference envelope, docs/references.md) may name, so that a misspelt metric, unit, case
// attribute or environment column is refused with the nearest declared one. One list here, so
// that the report's generic code names no family.
#pragma once

#include <array>
#include <string_view>
#include <vector>

#include "preflight/schema/checkpoint.hpp"
#include "preflight/schema/comm.hpp"
#include "preflight/schema/correctness.hpp"
#include "preflight/schema/dataloader.hpp"
#include "preflight/schema/fabric.hpp"
#include "preflight/schema/family_schema.hpp"
#include "preflight/schema/layout.hpp"
#include "preflight/schema/matmul.hpp"
#include "preflight/schema/memory.hpp"
#include "preflight/schema/step.hpp"
#include "preflight/schema/storage.hpp"

namespace preflight::schema {

// Every family's declaration: the one line a family adds here (as it adds one to the family
// table of each executable that runs it, bench/families.cpp), so that the report knows its names
// without naming the family. A checkpoint restore reads under the storage family's columns with
// the checkpoint's attributes: its own declaration.
// One line a family:
// clang-format off
inline constexpr std::array kFamilySchemas = {
    &comm::kDeclaration,
    &storage::kDeclaration,
    &checkpoint::kDeclaration,
    &checkpoint::kRestoreDeclaration,
    &dataloader::kDeclaration,
    &matmul::kDeclaration,
    &memory::kDeclaration,
    &step::kDeclaration,
    &fabric::kDeclaration,
    &correctness::kGemmDeclaration,
    &correctness::kCollectiveDeclaration,
};
// clang-format on

// Every stats column of every family, and the columns every family writes; a name may appear
// more than once (two families declaring the same column).
inline std::vector<Column> declared_stats_columns() {
  std::vector<Column> out(kStatsColumns.begin(), kStatsColumns.end());
  for (const FamilySchema* family : kFamilySchemas)
    out.insert(out.end(), family->stats_columns.begin(), family->stats_columns.end());
  out.push_back(kReleaseSpreadColumn);
  return out;
}

// Every case attribute a family or the harness writes; a name may appear more than once.
inline std::vector<std::string_view> declared_case_attributes() {
  std::vector<std::string_view> out;
  const auto add = [&](const auto& items) {
    for (const auto& item : items) out.push_back(item.name);
  };
  add(kCaseAttributes);
  add(kTimeoutCaseAttributes);
  add(kCaseHostLoadAttributes);
  add(kSpanCaseAttributes);
  add(kCaseTimeAttributes);
  add(kCaseSamplesAttributes);
  for (const FamilySchema* family : kFamilySchemas) add(family->case_attributes);
  return out;
}

// Every environment column (one value per rank).
inline std::vector<std::string_view> declared_environment_columns() {
  std::vector<std::string_view> out;
  for (const auto& item : kEnvironmentColumns) out.push_back(item.name);
  for (const auto& item : kGpuEnvironmentColumns) out.push_back(item.name);
  for (const auto& item : kNetworkEnvironmentColumns) out.push_back(item.name);
  return out;
}

}  // namespace preflight::schema
