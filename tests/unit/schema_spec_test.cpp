// SPEC.md and layout.hpp must describe the same file: every item defined in C++ appears in
// the spec's table for it, with the same type and unit.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "preflight/schema/layout.hpp"

namespace preflight::schema {
namespace {

struct Row {
  std::string type, units;
};

// Rows of table number `table` (0-based) under the heading that starts with `heading`, by name.
std::map<std::string, Row> spec_table(const std::string& heading, int table = 0) {
  std::ifstream in(PREFLIGHT_SPEC_PATH);
  std::string line;
  bool in_section = false;
  int row = 0, tables_seen = 0;
  std::map<std::string, Row> rows;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) {
      if (in_section) break;
      in_section = line.rfind("## " + heading, 0) == 0;
      continue;
    }
    if (!in_section) continue;
    if (line.rfind("|", 0) != 0) {
      if (row > 0) {
        if (tables_seen++ == table) break;
        row = 0;
      }
      continue;
    }
    if (row++ < 2 || tables_seen != table) continue;  // header and separator; other tables
    std::vector<std::string> cells;
    std::stringstream ss(line.substr(1));
    std::string cell;
    while (std::getline(ss, cell, '|')) {
      const auto first = cell.find_first_not_of(' ');
      const auto last = cell.find_last_not_of(' ');
      cells.push_back(first == std::string::npos ? "" : cell.substr(first, last - first + 1));
    }
    if (cells.size() >= 3) rows[cells[0]] = {cells[1], cells[2]};
  }
  return rows;
}

std::string type_name(Type t) {
  switch (t) {
    case Type::kInt64:
      return "int64";
    case Type::kUInt64:
      return "uint64";
    case Type::kFloat64:
      return "float64";
    case Type::kString:
      return "string";
  }
  return "?";
}

template <std::size_t N>
void expect_documented(const std::array<Item, N>& items, const std::string& heading,
                       int table = 0) {
  const auto rows = spec_table(heading, table);
  ASSERT_FALSE(rows.empty()) << "SPEC.md has no table under '## " << heading << "'";
  EXPECT_EQ(rows.size(), N) << "SPEC.md and layout.hpp list different numbers of items under "
                            << heading;
  for (const auto& item : items) {
    const auto it = rows.find(std::string(item.name));
    ASSERT_NE(it, rows.end()) << item.name << " is not in SPEC.md under " << heading;
    EXPECT_EQ(it->second.type, type_name(item.type)) << item.name;
    EXPECT_EQ(it->second.units, item.unit) << item.name;
  }
}

TEST(SchemaSpec, RunAttributes) {
  expect_documented(kRunAttributes, "Run attributes");
}
TEST(SchemaSpec, EnvironmentColumns) {
  expect_documented(kEnvironmentColumns, "Environment columns");
}
TEST(SchemaSpec, CaseAttributes) {
  expect_documented(kCaseAttributes, "Case attributes");
}
TEST(SchemaSpec, StatsColumns) {
  expect_documented(kStatsColumns, "Stats columns");
}

TEST(SchemaSpec, StorageCaseAttributes) {
  expect_documented(kStorageCaseAttributes, "The storage family", 0);
}
TEST(SchemaSpec, StorageStatsColumns) {
  expect_documented(kStorageStatsColumns, "The storage family", 1);
}
TEST(SchemaSpec, StorageCounters) {
  expect_documented(kStorageCounters, "The storage family", 2);
}

TEST(SchemaSpec, VersionIsStated) {
  std::ifstream in(PREFLIGHT_SPEC_PATH);
  std::string first;
  std::getline(in, first);
  EXPECT_NE(first.find("schema version " + std::to_string(kVersion)), std::string::npos) << first;
}

}  // namespace
}  // namespace preflight::schema
