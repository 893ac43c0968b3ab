// SPEC.md and the schema headers must describe the same file: every item defined in C++
// appears in the spec's table for it, with the same type and unit, and every declared column
// with the same meaning (kind, direction, per-iteration source, headline).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "preflight/schema/checkpoint.hpp"
#include "preflight/schema/comm.hpp"
#include "preflight/schema/correctness.hpp"
#include "preflight/schema/dataloader.hpp"
#include "preflight/schema/fabric.hpp"
#include "preflight/schema/layout.hpp"
#include "preflight/schema/matmul.hpp"
#include "preflight/schema/memory.hpp"
#include "preflight/schema/step.hpp"
#include "preflight/schema/storage.hpp"
#include "preflight/schema/telemetry.hpp"

namespace preflight::schema {
namespace {

using Row = std::map<std::string, std::string>;  // header -> cell

// Rows of table number `table` (0-based) under the heading that starts with `heading`, by the
// first cell (name or attribute).
std::map<std::string, Row> spec_table(const std::string& heading, int table = 0) {
  std::ifstream in(PREFLIGHT_SPEC_PATH);
  std::string line;
  bool in_section = false;
  int row = 0, tables_seen = 0;
  std::vector<std::string> header;
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
    std::vector<std::string> cells;
    std::stringstream ss(line.substr(1));
    std::string cell;
    while (std::getline(ss, cell, '|')) {
      const auto first = cell.find_first_not_of(' ');
      const auto last = cell.find_last_not_of(' ');
      cells.push_back(first == std::string::npos ? "" : cell.substr(first, last - first + 1));
    }
    if (row++ == 0) header = cells;
    if (row <= 2 || tables_seen != table) continue;  // header and separator; other tables
    Row r;
    for (std::size_t i = 0; i < cells.size() && i < header.size(); ++i) r[header[i]] = cells[i];
    if (!cells.empty()) rows[cells[0]] = r;
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

template <typename T, std::size_t N>
void expect_documented(const std::array<T, N>& items, const std::string& heading, int table = 0) {
  const auto rows = spec_table(heading, table);
  ASSERT_FALSE(rows.empty()) << "SPEC.md has no table under '## " << heading << "'";
  EXPECT_EQ(rows.size(), N) << "SPEC.md and the schema headers list different numbers of items "
                               "under "
                            << heading;
  for (const auto& item : items) {
    const auto it = rows.find(std::string(item.name));
    ASSERT_NE(it, rows.end()) << item.name << " is not in SPEC.md under " << heading;
    const Row& r = it->second;
    EXPECT_EQ(r.at("type"), type_name(item.type)) << item.name;
    EXPECT_EQ(r.at("units"), item.unit) << item.name;
    if constexpr (std::is_same_v<T, Column>) {
      EXPECT_EQ(r.at("kind"), name_of(item.kind)) << item.name;
      EXPECT_EQ(r.at("direction"), name_of(item.direction)) << item.name;
      if (r.count("per_iteration")) {  // stats columns; counters and series have no more
        EXPECT_EQ(r.at("per_iteration"), name_of(item.per_iteration)) << item.name;
        EXPECT_EQ(r.at("source"), item.per_iteration_source) << item.name;
        EXPECT_EQ(r.at("headline"), item.headline ? "1" : "0") << item.name;
      } else {
        EXPECT_EQ(item.per_iteration, PerIteration::kNone) << item.name;
        EXPECT_FALSE(item.headline) << item.name;
      }
    }
  }
}

TEST(SchemaSpec, RunAttributes) {
  expect_documented(kRunAttributes, "Run attributes");
}
TEST(SchemaSpec, EnvironmentColumns) {
  expect_documented(kEnvironmentColumns, "Environment columns");
}
TEST(SchemaSpec, EnvCheckColumns) {
  expect_documented(kEnvCheckColumns, "Environment checks");
}
TEST(SchemaSpec, GpuEnvironmentColumns) {
  expect_documented(kGpuEnvironmentColumns, "GPU environment columns");
}
TEST(SchemaSpec, CaseAttributes) {
  expect_documented(kCaseAttributes, "Case attributes");
}
TEST(SchemaSpec, CaseHostLoadAttributes) {
  expect_documented(kCaseHostLoadAttributes, "Host load");
}
TEST(SchemaSpec, CaseMeaningAttributes) {
  expect_documented(kCaseMeaningAttributes, "Case meaning");
}
TEST(SchemaSpec, ColumnMeaningAttributes) {
  expect_documented(kStatsColumnAttributes, "Column meaning");
}
TEST(SchemaSpec, StatsColumns) {
  expect_documented(kStatsColumns, "Stats columns");
}
TEST(SchemaSpec, CaseTimeAttributes) {
  expect_documented(kCaseTimeAttributes, "When a case ran");
}
TEST(SchemaSpec, SoakRunAttributes) {
  expect_documented(kSoakRunAttributes, "Soak");
}
TEST(SchemaSpec, SummaryPoints) {
  expect_documented(kCaseSamplesAttributes, "Soak", 1);
  expect_documented(kSummaryDatasets, "Soak", 2);
}
TEST(SchemaSpec, SpanCaseAttributes) {
  expect_documented(kSpanCaseAttributes, "Spans across ranks");
}

TEST(SchemaSpec, CommCaseAttributes) {
  expect_documented(kCommCaseAttributes, "The comm family", 0);
}
TEST(SchemaSpec, CommGpuCaseAttributes) {
  expect_documented(kCommGpuCaseAttributes, "The comm family on GPUs", 0);
}
TEST(SchemaSpec, CommStatsColumns) {
  expect_documented(kCommStatsColumns, "The comm family", 1);
}
TEST(SchemaSpec, FabricCaseAttributes) {
  expect_documented(kFabricCaseAttributes, "The fabric family", 0);
}
TEST(SchemaSpec, FabricStatsColumns) {
  expect_documented(kFabricLatencyColumns, "The fabric family", 1);
  expect_documented(kFabricBandwidthColumns, "The fabric family", 2);
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
TEST(SchemaSpec, StorageSeries) {
  expect_documented(kStorageSeries, "The storage family", 3);
}

// A family's Meaning table: the constant attributes of "Case meaning" every case declares.
void expect_meaning(const std::string& heading, int table,
                    const std::map<std::string, std::string>& declared) {
  const auto rows = spec_table(heading, table);
  ASSERT_FALSE(rows.empty()) << "SPEC.md has no Meaning table under '## " << heading << "'";
  for (const auto& item : kCaseMeaningAttributes) {
    if (item.name == kSpanNodesAttribute) continue;  // the harness's
    const auto it = rows.find(std::string(item.name));
    ASSERT_NE(it, rows.end()) << item.name << " is not in the Meaning table of " << heading;
    const auto d = declared.find(std::string(item.name));
    if (d != declared.end()) {
      EXPECT_EQ(it->second.at("value"), d->second) << heading << " " << item.name;
    }
  }
}

std::string flag(bool b) {
  return b ? "1" : "0";
}

// SPEC.md's Meaning table of a family says what the family's declaration says; a series each case
// names itself (comm's: its topology) is the case's, not the table's.
void expect_meaning(const std::string& heading, int table, const FamilySchema& family,
                    bool series_of_case = false) {
  std::map<std::string, std::string> declared = {
      {"stage", std::string(name_of(family.stage))},
      {"x_axis", std::string(family.x_axis)},
      {"bands", std::string(name_of(family.bands))},
      {"scaling", std::string(name_of(family.scaling))},
      {"peer_slow", flag(family.peer_slow)},
      {"peer_late", flag(family.peer_late)},
      {"work_counter", std::string(family.work_counter)},
      {"quality", fmt::format("{}", fmt::join(family.quality, ","))},
      {"min_samples", std::to_string(family.min_samples)}};
  if (!series_of_case) declared["series"] = std::string(family.series);
  expect_meaning(heading, table, declared);
}

TEST(SchemaSpec, CommMeaning) {
  expect_meaning("The comm family", 2, comm::kDeclaration, /*series_of_case=*/true);
}
TEST(SchemaSpec, MatmulTables) {
  expect_documented(kMatmulCaseAttributes, "The matmul family", 0);
  expect_documented(kMatmulStatsColumns, "The matmul family", 1);
  expect_documented(kMatmulSeries, "The matmul family", 2);
}
TEST(SchemaSpec, MatmulMeaning) {
  expect_meaning("The matmul family", 3, matmul::kDeclaration);
}
TEST(SchemaSpec, MemoryTables) {
  expect_documented(kMemoryCaseAttributes, "The memory family", 0);
  expect_documented(kMemoryStatsColumns, "The memory family", 1);
  expect_documented(kMemorySeries, "The memory family", 2);
}
TEST(SchemaSpec, MemoryMeaning) {
  expect_meaning("The memory family", 3, memory::kDeclaration);
}
TEST(SchemaSpec, TelemetrySeries) {
  expect_documented(kTelemetrySeries, "Telemetry", 0);
}
TEST(SchemaSpec, TelemetryWatches) {
  expect_documented(kSeriesWatchAttributes, "Telemetry", 1);
  const auto rows = spec_table("Telemetry", 2);
  std::size_t watched = 0;
  for (std::size_t i = 0; i < kTelemetryWatches.size(); ++i) {
    const auto& w = kTelemetryWatches[i];
    const std::string name(kTelemetrySeries[i].name);
    if (w.rule == Watch::kNone) {
      EXPECT_EQ(rows.count(name), 0U) << name << " is not watched";
      continue;
    }
    ++watched;
    ASSERT_EQ(rows.count(name), 1U) << name << " is watched but not in SPEC.md's table";
    const Row& r = rows.at(name);
    EXPECT_EQ(r.at("watch"), name_of(w.rule)) << name;
    EXPECT_EQ(r.at("watch_finding"), w.finding) << name;
    EXPECT_DOUBLE_EQ(std::stod(r.at("watch_tolerance")), w.tolerance) << name;
    EXPECT_EQ(r.at("watch_reference"), w.reference) << name;
    EXPECT_EQ(r.at("watch_remedy"), name_of(w.remedy)) << name;
    EXPECT_NE(w.remedy, Remedy::kNone) << name << " is watched: declare what an operator does";
  }
  EXPECT_EQ(rows.size(), watched);
}

TEST(SchemaSpec, FabricMeaning) {
  expect_meaning("The fabric family", 3, fabric::kDeclaration);
}
TEST(SchemaSpec, StorageMeaning) {
  expect_meaning("The storage family", 4, storage::kDeclaration);
}

TEST(SchemaSpec, CheckpointTables) {
  expect_documented(kCheckpointCaseAttributes, "The checkpoint family", 0);
  expect_documented(kCheckpointSaveAttributes, "The checkpoint family", 1);
  expect_documented(kCheckpointStatsColumns, "The checkpoint family", 2);
  expect_documented(kCheckpointCounters, "The checkpoint family", 3);
}
TEST(SchemaSpec, CheckpointMeaning) {
  expect_meaning("The checkpoint family", 4, checkpoint::kDeclaration);
}

TEST(SchemaSpec, DataloaderTables) {
  expect_documented(kDataloaderCaseAttributes, "The dataloader family", 0);
  expect_documented(kDataloaderStatsColumns, "The dataloader family", 1);
  expect_documented(kDataloaderCounters, "The dataloader family", 2);
}
TEST(SchemaSpec, DataloaderMeaning) {
  expect_meaning("The dataloader family", 3, dataloader::kDeclaration);
}
TEST(SchemaSpec, StepTables) {
  expect_documented(kStepCaseAttributes, "The step family", 0);
  expect_documented(kStepStatsColumns, "The step family", 1);
  expect_documented(kStepCounters, "The step family", 2);
}
TEST(SchemaSpec, StepMeaning) {
  expect_meaning("The step family", 3, step::kDeclaration);
}

TEST(SchemaSpec, CorrectnessTables) {
  expect_documented(kCorrectnessGemmCaseAttributes, "The correctness family", 0);
  expect_documented(kCorrectnessCollectiveCaseAttributes, "The correctness family", 1);
  expect_documented(kCorrectnessGemmStatsColumns, "The correctness family", 2);
  expect_documented(kCorrectnessCollectiveStatsColumns, "The correctness family", 3);
  expect_documented(kCorrectnessCounters, "The correctness family", 4);
  expect_documented(kCorrectnessSeries, "The correctness family", 5);
}
TEST(SchemaSpec, CorrectnessMeaning) {
  expect_meaning("The correctness family", 6, correctness::kGemmDeclaration);
  expect_meaning("The correctness family", 7, correctness::kCollectiveDeclaration);
}

// values_of gives each attribute a value of the type its table entry says.
template <std::size_t N>
void expect_types(const std::array<Item, N>& table, const std::array<Value, N>& values) {
  for (std::size_t i = 0; i < N; ++i) {
    const std::size_t wanted = table[i].type == Type::kInt64     ? 0
                               : table[i].type == Type::kFloat64 ? 1
                                                                 : 2;
    EXPECT_EQ(values[i].index(), wanted) << table[i].name;
  }
}
TEST(SchemaSpec, DeclarationValuesHaveTheirTypes) {
  CaseMeaning m;
  m.quality = {"a", "b"};
  expect_types(kCaseMeaningAttributes, values_of(m));
  EXPECT_EQ(std::get<std::string>(values_of(m)[10]), "a,b");
  expect_types(kStatsColumnAttributes, values_of(comm::kBusbwColumn));
  expect_types(kCounterAttributes, counter_values_of(storage::kBytesCounter));
}

// Each family table declares exactly one headline, and per-iteration sources name counters.
template <std::size_t N>
int headlines(const std::array<Column, N>& table) {
  int n = 0;
  for (const auto& c : table) n += c.headline ? 1 : 0;
  return n;
}
TEST(SchemaSpec, OneHeadlinePerFamily) {
  EXPECT_EQ(headlines(kStatsColumns), 0);
  EXPECT_EQ(headlines(kCommStatsColumns), 1);
  EXPECT_EQ(headlines(kStorageStatsColumns), 1);
  EXPECT_EQ(headlines(kMatmulStatsColumns), 1);
  EXPECT_EQ(headlines(kMemoryStatsColumns), 1);
  EXPECT_EQ(headlines(kDataloaderStatsColumns), 1);
  EXPECT_EQ(headlines(kStepStatsColumns), 1);
  EXPECT_EQ(headlines(kCorrectnessGemmStatsColumns), 1);
  EXPECT_EQ(headlines(kCorrectnessCollectiveStatsColumns), 1);
  for (const auto& c : kStorageStatsColumns) {
    const bool from_counter = c.per_iteration == PerIteration::kCounterRate ||
                              c.per_iteration == PerIteration::kCounterMedian;
    EXPECT_EQ(from_counter, !c.per_iteration_source.empty()) << c.name;
    if (from_counter) {
      bool found = false;
      for (const auto& k : kStorageCounters) found = found || k.name == c.per_iteration_source;
      EXPECT_TRUE(found) << c.name << " reads the counter " << c.per_iteration_source;
    }
  }
}

// SPEC.md's stats table lists the stop_reason values ("why timing stopped: a, b or c"), the
// ones the writer writes (schema::stop_reason) and the results checker accepts.
TEST(SchemaSpec, StopReasonsAreTheSpecsList) {
  const auto rows = spec_table("Stats columns");
  ASSERT_EQ(rows.count("stop_reason"), 1u);
  const std::string meaning = rows.at("stop_reason").at("meaning");
  const auto colon = meaning.find(':');
  ASSERT_NE(colon, std::string::npos) << meaning;
  std::vector<std::string> listed;
  std::string word;
  for (const char ch : meaning.substr(colon + 1) + " ") {
    if ((ch >= 'a' && ch <= 'z') || ch == '_') {
      word += ch;
    } else if (!word.empty()) {
      if (word != "or") listed.push_back(word);
      word.clear();
    }
  }
  const std::vector<std::string> defined(stop_reason::kAll.begin(), stop_reason::kAll.end());
  EXPECT_EQ(listed, defined) << meaning;
}

TEST(SchemaSpec, VersionIsStated) {
  std::ifstream in(PREFLIGHT_SPEC_PATH);
  std::string first;
  std::getline(in, first);
  EXPECT_NE(first.find("schema version " + std::to_string(kVersion)), std::string::npos) << first;
}

}  // namespace
}  // namespace preflight::schema
