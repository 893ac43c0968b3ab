#include "reader/v1_adapter.hpp"

#include <array>
#include <cmath>
#include <optional>

#include "preflight/schema/comm.hpp"
#include "preflight/schema/family_names.hpp"
#include "preflight/schema/layout.hpp"
#include "preflight/schema/storage.hpp"

namespace preflight::report {
namespace {

namespace s = schema;
using s::Direction;
using s::Kind;
using s::PerIteration;

struct ColumnDeclaration {
  std::string_view name;
  Kind kind;
  Direction direction;
  PerIteration per_iteration;
  std::string_view source;
  bool headline;
};

struct FamilyDeclaration {
  std::string_view family;
  s::Stage stage;
  std::string_view x_axis;
  s::Bands bands;
  s::Scaling scaling;
  std::string_view series;  // "" = the case's topology parameter
  bool peer_slow, peer_late;
  std::string_view work_counter, quality;
  std::int64_t min_samples;
  std::array<ColumnDeclaration, 12> columns;  // unused entries have an empty name
};

constexpr ColumnDeclaration kRate{
    "", Kind::kDataRate, Direction::kHigher, PerIteration::kInverseTime, "", false};

// What the v2 writer declares for each family (CONTRACT.md); the families of version 1.
constexpr std::array kFamilies = {
    FamilyDeclaration{
        s::kCommFamily,
        s::Stage::kCommunication,
        "size_bytes",
        s::Bands::kSizeBands,
        s::Scaling::kPerRank,
        "",
        true,
        true,
        "",
        "",
        10,  // bottlenecks' former kFewSamples
        {{
            {"size_bytes", Kind::kCount, Direction::kNone, PerIteration::kNone, "", false},
            {"count", Kind::kCount, Direction::kNone, PerIteration::kNone, "", false},
            {"algbw", kRate.kind, kRate.direction, kRate.per_iteration, "", false},
            {"busbw", kRate.kind, kRate.direction, kRate.per_iteration, "", true},
            {"batched_algbw", kRate.kind, kRate.direction, kRate.per_iteration, "", false},
            {"batched_busbw", kRate.kind, kRate.direction, kRate.per_iteration, "", false},
        }},
    },
    FamilyDeclaration{
        s::kStorageFamily,
        s::Stage::kDataIn,
        "block_bytes",
        s::Bands::kEachPoint,
        s::Scaling::kAggregate,
        "ranks",
        true,
        false,
        "bytes",
        s::kQualityServedFromMemory,
        3,  // bottlenecks' former kFewReads: an iteration reads a whole data set
        {{
            {"block_bytes", Kind::kCount, Direction::kNone, PerIteration::kNone, "", false},
            {"agg_bw", Kind::kDataRate, Direction::kHigher, PerIteration::kCounterRate, "bytes",
             true},
            {"iops", Kind::kWorkRate, Direction::kHigher, PerIteration::kCounterRate, "ops", false},
            {"rank_bw_min", Kind::kDataRate, Direction::kHigher, PerIteration::kNone, "", false},
            {"rank_bw_median", Kind::kDataRate, Direction::kHigher, PerIteration::kNone, "", false},
            {"lat_p50", Kind::kTime, Direction::kLower, PerIteration::kCounterMedian, "lat_p50",
             false},
            {"lat_p99", Kind::kTime, Direction::kLower, PerIteration::kCounterMedian, "lat_p99",
             false},
            {"lat_p999", Kind::kTime, Direction::kLower, PerIteration::kCounterMedian, "lat_p999",
             false},
            {"resident_before_max", Kind::kFraction, Direction::kLower, PerIteration::kNone, "",
             false},
            {"bytes_total", Kind::kCount, Direction::kNone, PerIteration::kNone, "", false},
        }},
    },
};

// The attributes version 1 wrote that the adapter reads: comm's topology and ladder, and the
// case's layout label and node count, which both of its families (comm, storage) name alike.
constexpr auto kTopology = s::comm::kTopology;
constexpr auto kLadderNodes = s::comm::kLadderNodes;
constexpr auto kLayout = s::comm::kLayout;
constexpr auto kNodes = s::storage::kNodes;
static_assert(kLayout.name == s::storage::kLayout.name);

// Ranks of group 0 at the first point (the all-groups row where groups are not written).
double group_ranks(const CaseData& c) {
  const auto ranks = c.stats.find("group_ranks"), point = c.stats.find("point"),
             group = c.stats.find("group");
  if (ranks == c.stats.end() || point == c.stats.end() || group == c.stats.end()) return NAN;
  double all = NAN;
  for (std::size_t r = 0; r < point->second.numbers.size(); ++r) {
    if (point->second.numbers[r] != 0) continue;
    if (group->second.numbers[r] == 0) return ranks->second.numbers[r];
    if (group->second.numbers[r] == -1) all = ranks->second.numbers[r];
  }
  return all;
}

// The nodes group 0 spans, from the case's parameters (v2: the harness writes span_nodes). An
// inter or rail case without stats (timed out before a size ended) has no group_ranks to tell:
// 0, as nothing that reads span_nodes reads a case without points.
std::int64_t span_nodes(const CaseData& c, std::int64_t node_count) {
  const auto ladder = c.get(kLadderNodes).value_or(0);
  if (ladder > 0) return ladder;
  const auto nodes = c.get(kNodes).value_or(0);
  if (nodes > 0) return nodes;
  const auto topology = c.get(kTopology).value_or("");
  if (topology == "intra") return 1;
  if (topology == "inter" || topology == "rail") {
    const double ranks = group_ranks(c);
    return std::isnan(ranks) ? 0 : static_cast<std::int64_t>(ranks);
  }
  return node_count;
}

// The case's name without its layout label.
std::string subject(const CaseData& c) {
  std::string name = c.name;
  const auto layout = c.get(kLayout).value_or("");
  if (!layout.empty() && name.size() > layout.size() &&
      name.compare(name.size() - layout.size(), layout.size(), layout) == 0)
    name = name.substr(0, name.size() - layout.size() - 1);
  return name;
}

// The harness's own columns: their declaration is the one in schema::kStatsColumns, the table
// the v2 writer writes them from; nullptr for a family's column.
const s::Column* declared_core_column(const std::string& name) {
  for (const auto& item : s::kStatsColumns)
    if (item.name == name) return &item;
  return nullptr;
}

void declare_core_column(const s::Column& declared, Column& column) {
  column.direction = declared.direction;
  column.kind = declared.kind;
  column.per_iteration = declared.per_iteration;
  column.per_iteration_source = std::string(declared.per_iteration_source);
  column.headline = declared.headline;
}

// A column of a family the table does not know: from its v1 `better` and unit.
void declare_other(Column& column) {
  column.direction = column.better == "higher"  ? Direction::kHigher
                     : column.better == "lower" ? Direction::kLower
                                                : Direction::kNone;
  const auto& u = column.unit;
  const bool rate = u.size() > 2 && u.compare(u.size() - 2, 2, "/s") == 0;
  column.kind = u == "s"                                   ? Kind::kTime
                : rate && u.find('B') != std::string::npos ? Kind::kDataRate
                : rate                                     ? Kind::kWorkRate
                : column.numbers.empty()                   ? Kind::kLabel
                                                           : Kind::kCount;
  column.per_iteration = rate && column.direction == Direction::kHigher ? PerIteration::kInverseTime
                                                                        : PerIteration::kNone;
}

}  // namespace

void declare_v1(CaseData& c, std::int64_t node_count) {
  const FamilyDeclaration* family = nullptr;
  for (const auto& f : kFamilies)
    if (f.family == c.family) family = &f;
  // Every field is set below, on both branches: schema::CaseMeaning's defaults are the writer's
  // (bands kSizeBands, min_samples 1), not what version 1 meant.
  s::CaseMeaning& m = c.meaning;
  m.subject = subject(c);
  m.span_nodes = span_nodes(c, node_count);
  m.series = c.get(kTopology).value_or("");
  if (m.series.empty()) m.series = c.get(kLadderNodes).value_or(0) > 0 ? "ladder" : "ranks";
  for (auto& [name, column] : c.stats) {
    if (const auto* declared = declared_core_column(name)) {
      declare_core_column(*declared, column);
      continue;
    }
    declare_other(column);
    if (family == nullptr) continue;
    for (const auto& d : family->columns)
      if (!d.name.empty() && d.name == name) {
        column.kind = d.kind;
        column.direction = d.direction;
        column.per_iteration = d.per_iteration;
        column.per_iteration_source = std::string(d.source);
        column.headline = d.headline;
      }
  }
  if (family == nullptr) {  // a family version 1 never wrote: the report's former defaults
    m.stage = s::Stage::kStep;
    m.x_axis = c.stats.count("size_bytes") ? "size_bytes" : "";
    m.bands = m.x_axis.empty() ? s::Bands::kEachPoint : s::Bands::kSizeBands;
    m.scaling = s::Scaling::kPerRank;
    m.peer_slow = true;
    m.peer_late = false;
    m.work_counter.clear();
    m.quality.clear();
    m.min_samples = 10;
    for (auto& [name, column] : c.stats)
      if (column.direction == Direction::kHigher && name.rfind(s::kBatchedPrefix, 0) != 0) {
        column.headline = true;
        break;
      }
    return;
  }
  m.stage = family->stage;
  m.x_axis = std::string(family->x_axis);
  m.bands = family->bands;
  m.scaling = family->scaling;
  if (!family->series.empty()) m.series = std::string(family->series);
  m.peer_slow = family->peer_slow;
  m.peer_late = family->peer_late;
  m.work_counter = std::string(family->work_counter);
  m.quality.clear();
  if (!family->quality.empty()) m.quality = {std::string(family->quality)};
  m.min_samples = family->min_samples;
}

}  // namespace preflight::report
