#include "reader/results_reader.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <future>

#include "preflight/common/stats.hpp"
#include "preflight/schema/h5.hpp"
#include "preflight/schema/layout.hpp"
#include "preflight/schema/meaning.hpp"
#include "reader/v1_adapter.hpp"
#include "reader/watched_series.hpp"

namespace preflight::report {
namespace {

namespace s = schema;

// A schema version this reader does not know must not be written without it learning it.
static_assert(s::kVersion == kSchemaV1 || s::kVersion == kSchemaV2,
              "results schema version changed: teach the reader (and the v1 adapter) about it");

std::string missing(const std::string& path, const std::string& what) {
  return fmt::format("{}: not a complete preflight results file: {} is missing", path, what);
}

template <std::size_t N>
void require_attributes(hid_t object, const std::array<s::Item, N>& items, const std::string& path,
                        const std::string& where) {
  for (const auto& item : items)
    if (!h5::has_attribute(object, item.name))
      throw ReadError(missing(path, fmt::format("attribute '{}' of {}", item.name, where)));
}

// An object's attributes, read in one pass (h5::read_attributes).
using Attributes = std::map<std::string, h5::AttributeValue, std::less<>>;

// Attribute as text, whatever its type.
std::string attribute_text(const h5::AttributeValue& a) {
  if (a.is_string) return a.text;
  const double v = a.number;
  return v == static_cast<double>(static_cast<std::int64_t>(v))
             ? fmt::format("{}", static_cast<std::int64_t>(v))
             : fmt::format("{:g}", v);
}

const h5::AttributeValue& present(const Attributes& attributes, std::string_view name,
                                  const std::string& where) {
  const auto it = attributes.find(name);
  if (it == attributes.end())
    throw ReadError(fmt::format("{}: attribute '{}' is missing", where, name));
  return it->second;
}

std::string string_declaration(const Attributes& attributes, std::string_view name,
                               const std::string& where) {
  const auto& a = present(attributes, name, where);
  if (!a.is_string)
    throw ReadError(fmt::format("{}: attribute '{}' is a number, not text", where, name));
  return a.text;
}

std::int64_t int_declaration(const Attributes& attributes, std::string_view name,
                             const std::string& where) {
  const auto& a = present(attributes, name, where);
  if (a.is_string)
    throw ReadError(fmt::format("{}: attribute '{}' is text, not a number", where, name));
  return a.is_integer ? a.integer : static_cast<std::int64_t>(a.number);
}

// A declared enum attribute, parsed through meaning.hpp's table: missing or unknown is an error.
template <typename E, std::size_t N>
E enum_attribute(const Attributes& attributes, std::string_view name,
                 const std::array<std::pair<E, std::string_view>, N>& table,
                 const std::string& where) {
  const std::string attribute(name);
  const auto text = string_declaration(attributes, name, where);
  const auto value = schema::parse(text, table);
  if (!value) {
    std::string known;
    for (const auto& [e, n] : table) known += fmt::format("{}{}", known.empty() ? "" : ", ", n);
    throw ReadError(
        fmt::format("{}: attribute '{}' is '{}', not one of {}", where, attribute, text, known));
  }
  return *value;
}

// How a dataset declares its meaning: v2 stats columns carry declarations (read strictly),
// v1 stats columns a `better` attribute (the v1 adapter reads it), other datasets neither.
enum class DeclaredSince { kNone, kV1, kV2 };

// `where` names file and case for a v2 declaration that is missing or unknown.
Column read_column(hid_t group, const std::string& name, DeclaredSince declared,
                   const std::string& where) {
  Column c;
  auto read = h5::read_declared_column(group, name);
  c.numbers = std::move(read.numbers);
  c.strings = std::move(read.strings);
  {
    const auto& attributes = read.attributes;
    const auto at = where + " column '" + name + "'";
    if (attributes.contains(s::kUnitAttribute))
      c.unit = string_declaration(attributes, s::kUnitAttribute, at);
    if (declared == DeclaredSince::kV2) {
      c.direction = enum_attribute(attributes, s::kDirectionAttribute, s::kDirectionNames, at);
      c.kind = enum_attribute(attributes, s::kKindAttribute, s::kKindNames, at);
      c.headline = int_declaration(attributes, s::kHeadlineAttribute, at) != 0;
      c.per_iteration =
          enum_attribute(attributes, s::kPerIterationAttribute, s::kPerIterationNames, at);
      c.per_iteration_source = string_declaration(attributes, s::kPerIterationSourceAttribute, at);
    } else if (declared == DeclaredSince::kV1 && attributes.contains(schema::kBetterAttribute)) {
      c.better = string_declaration(attributes, schema::kBetterAttribute, at);
    }
  }
  return c;
}

// The case's declaration from its v2 attributes.
s::CaseMeaning read_meaning(const Attributes& g, const std::string& where) {
  s::CaseMeaning m;
  m.stage = enum_attribute(g, s::kStageAttribute, s::kStageNames, where);
  m.x_axis = string_declaration(g, s::kXAxisAttribute, where);
  m.bands = enum_attribute(g, s::kBandsAttribute, s::kBandsNames, where);
  m.scaling = enum_attribute(g, s::kScalingAttribute, s::kScalingNames, where);
  m.subject = string_declaration(g, s::kSubjectAttribute, where);
  m.series = string_declaration(g, s::kSeriesAttribute, where);
  m.span_nodes = int_declaration(g, s::kSpanNodesAttribute, where);
  m.peer_slow = int_declaration(g, s::kPeerSlowAttribute, where) != 0;
  m.peer_late = int_declaration(g, s::kPeerLateAttribute, where) != 0;
  m.work_counter = string_declaration(g, s::kWorkCounterAttribute, where);
  const auto quality = string_declaration(g, s::kQualityAttribute, where);
  for (std::size_t from = 0; from < quality.size();) {
    auto to = quality.find(',', from);
    if (to == std::string::npos) to = quality.size();
    auto rule = quality.substr(from, to - from);
    while (!rule.empty() && rule.front() == ' ') rule.erase(rule.begin());
    while (!rule.empty() && rule.back() == ' ') rule.pop_back();
    if (!rule.empty()) m.quality.push_back(rule);
    from = to + 1;
  }
  m.min_samples = int_declaration(g, s::kMinSamplesAttribute, where);
  return m;
}

// A counter declared a count of what should not happen (kind count, direction lower; v2
// declarations): its cells that are not 0 are kept (CaseData::fault_cells).
bool counts_faults(hid_t counters, const std::string& name) {
  h5::Handle set = h5::open_dataset(counters, name);
  for (const auto attribute : {s::kKindAttribute, s::kDirectionAttribute})
    if (!h5::has_attribute(set.get(), attribute) || !h5::is_string_attribute(set.get(), attribute))
      return false;
  const auto kind = s::parse(h5::string_attribute(set.get(), s::kKindAttribute), s::kKindNames);
  const auto direction =
      s::parse(h5::string_attribute(set.get(), s::kDirectionAttribute), s::kDirectionNames);
  return kind && direction && s::counts_faults(*kind, *direction);
}

// A counter's figures at point `index`: its per-iteration medians (iterations without an active
// rank left out) and totals, and, for a counter of faults, its cells.
void keep_counter(const std::string& name, s::CounterPerIteration per_iteration, bool faults,
                  std::vector<CounterCell> cells, CaseData& c, std::size_t index) {
  auto& medians = c.iteration_counters[name];
  auto& totals = c.iteration_totals[name];
  medians.resize(index + 1);
  totals.resize(index + 1);
  for (const double m : per_iteration.medians)
    if (!std::isnan(m)) medians[index].push_back(m);
  totals[index] = std::move(per_iteration.totals);
  if (!faults) return;
  auto& kept = c.fault_cells[name];
  kept.resize(index + 1);
  kept[index] = std::move(cells);
}

// Every counter of a point that is per iteration and rank (iterations x ranks, like samples):
// per timed iteration, the median and the sum over the active ranks. Returns the work counter's
// matrix (empty when the case declares none or the point lacks it).
std::vector<double> read_counters(hid_t point, const std::vector<std::int64_t>& groups,
                                  std::size_t rows, std::size_t cols, CaseData& c,
                                  std::size_t index, const std::string& path,
                                  const std::string& point_name) {
  std::vector<double> work;
  if (!h5::exists(point, s::kCountersGroup)) return work;
  h5::Handle counters = h5::open_group(point, s::kCountersGroup);
  for (const auto& name : h5::child_names(counters.get())) {
    auto counter = h5::read_matrix(counters.get(), name);
    if (counter.rows != rows || counter.cols != cols) {
      if (name == c.meaning.work_counter)
        throw ReadError(fmt::format("{}: case {} point {}: counters/{} is {} x {}, samples {} x {}",
                                    path, c.group_name, point_name, name, counter.rows,
                                    counter.cols, rows, cols));
      continue;  // not per iteration and rank: not ours to read
    }
    const s::MatrixView m{counter.values, rows, cols};
    const bool faults = counts_faults(counters.get(), name);
    keep_counter(name, s::counter_per_iteration(m, groups), faults,
                 faults ? s::fault_cells(m) : std::vector<CounterCell>{}, c, index);
    if (name == c.meaning.work_counter) work = std::move(counter.values);
  }
  return work;
}

// The ranks with wrong elements at a point (points/<P>/wrong_per_rank; older files may lack it).
void read_wrong_per_rank(hid_t point, CaseData& c, std::size_t index) {
  c.wrong_per_rank.resize(index + 1);
  if (!h5::exists(point, s::kWrongPerRank)) return;
  const auto wrong = h5::read_int_column(point, s::kWrongPerRank);
  for (std::size_t rank = 0; rank < wrong.size(); ++rank)
    if (wrong[rank] > 0)
      c.wrong_per_rank[index][static_cast<std::int64_t>(rank)] =
          static_cast<std::uint64_t>(wrong[rank]);
}

// The series of a point whose rows are events (interval_s 0), each rank's values to its first
// NaN. A series whose rows are time intervals (telemetry, interval bandwidth) is not read here.
void read_event_series(hid_t point, CaseData& c, std::size_t index) {
  if (!h5::exists(point, s::kSeriesGroup)) return;
  h5::Handle series = h5::open_group(point, s::kSeriesGroup);
  for (const auto& name : h5::child_names(series.get())) {
    {
      h5::Handle set = h5::open_dataset(series.get(), name);
      if (!h5::has_attribute(set.get(), s::kIntervalAttribute) ||
          h5::double_attribute(set.get(), s::kIntervalAttribute) != 0)
        continue;
    }
    const auto m = h5::read_matrix(series.get(), name);
    auto& per_point = c.event_series[name];
    per_point.resize(index + 1);
    for (std::size_t rank = 0; rank < m.cols; ++rank) {
      std::vector<double> values;
      for (std::size_t row = 0; row < m.rows && !std::isnan(m.values[row * m.cols + rank]); ++row)
        values.push_back(m.values[row * m.cols + rank]);
      if (!values.empty()) per_point[index][static_cast<std::int64_t>(rank)] = std::move(values);
    }
  }
}

// What the report keeps of a point's per-rank matrices: each timed iteration's time (the slowest
// active rank's), each rank's median time (per unit of work, where the case counts work) and its
// median back-to-back time per operation (empty where the point has no back-to-back blocks).
struct PointFigures {
  std::vector<double> slowest, medians, batched;
};

// A point's matrices as read, for point_figures(); reused from point to point.
struct PointMatrices {
  h5::Matrix samples, batched;
  std::vector<double> work;  // the work counter's matrix, or empty
  bool has_batched = false;
};

PointFigures point_figures(const PointMatrices& m, const std::vector<std::int64_t>& groups) {
  PointFigures f;
  const s::MatrixView samples{m.samples.values, m.samples.rows, m.samples.cols};
  f.slowest = s::slowest_per_iteration(samples, groups);
  f.medians = s::rank_medians(samples, m.work.empty() ? nullptr : &m.work, groups);
  if (m.has_batched)
    f.batched =
        s::rank_medians({m.batched.values, m.batched.rows, m.batched.cols}, nullptr, groups);
  return f;
}

// One row of per-rank values of a summary point (1 x world_size).
std::vector<double> per_rank_row(hid_t point, std::string_view name, std::size_t ranks,
                                 const std::string& where) {
  auto m = h5::read_matrix(point, name);
  if (m.rows != 1 || m.cols != ranks)
    throw ReadError(fmt::format("{}: {} is {} x {}, expected 1 x {} (world_size)", where, name,
                                m.rows, m.cols, ranks));
  return std::move(m.values);
}

// A summary point's counters (counter_summaries/<name>, 2 x iterations) and fault cells.
void read_counter_summaries(hid_t point, CaseData& c, std::size_t index, const std::string& where) {
  if (!h5::exists(point, s::kCounterSummariesGroup)) return;
  h5::Handle summaries = h5::open_group(point, s::kCounterSummariesGroup);
  h5::Handle faults;
  if (h5::exists(point, s::kFaultCellsGroup)) faults = h5::open_group(point, s::kFaultCellsGroup);
  for (const auto& name : h5::child_names(summaries.get())) {
    const auto m = h5::read_matrix(summaries.get(), name);
    if (m.rows != s::counter_row::kCount)
      throw ReadError(fmt::format("{}: {}/{} has {} rows, expected {} (median, total)", where,
                                  s::kCounterSummariesGroup, name, m.rows, s::counter_row::kCount));
    const auto row = [&](std::size_t k) {
      const auto at = m.values.begin() + static_cast<std::ptrdiff_t>(k * m.cols);
      return std::vector<double>(at, at + static_cast<std::ptrdiff_t>(m.cols));
    };
    const bool counts = counts_faults(summaries.get(), name);
    std::vector<CounterCell> cells;
    if (counts && faults && h5::exists(faults.get(), name)) {
      const auto f = h5::read_matrix(faults.get(), name);
      if (f.cols != s::fault_column::kCount)
        throw ReadError(fmt::format("{}: {}/{} has {} columns, expected {}", where,
                                    s::kFaultCellsGroup, name, f.cols, s::fault_column::kCount));
      for (std::size_t k = 0; k < f.rows; ++k) {
        const double* cell = f.values.data() + k * f.cols;
        cells.push_back({static_cast<std::size_t>(cell[s::fault_column::kIteration]),
                         static_cast<std::int64_t>(cell[s::fault_column::kRank]),
                         cell[s::fault_column::kValue]});
      }
    }
    keep_counter(name, {row(s::counter_row::kMedian), row(s::counter_row::kTotal)}, counts,
                 std::move(cells), c, index);
  }
}

// The points of a case written as summaries (SPEC.md "Summary points"): what the full form's
// matrices reduce to, stored; CaseData is filled as from the matrices.
void read_summary_points(hid_t case_group, const std::vector<std::int64_t>& groups, CaseData& c,
                         const std::string& path) {
  h5::Handle points = h5::open_group(case_group, s::kPointsGroup);
  const auto names = h5::child_names(points.get());
  for (std::size_t p = 0; p < names.size(); ++p) {
    const auto where = fmt::format("{}: case {} point {}", path, c.group_name, names[p]);
    h5::Handle point = h5::open_group(points.get(), names[p]);
    c.rank_medians.push_back(per_rank_row(point.get(), s::kRankTimeMedian, groups.size(), where));
    c.rank_batched_medians.push_back(
        h5::exists(point.get(), s::kRankBatchedMedian)
            ? per_rank_row(point.get(), s::kRankBatchedMedian, groups.size(), where)
            : std::vector<double>{});
    c.iteration_times.push_back(h5::read_double_column(point.get(), s::kIterationSlowest));
    read_counter_summaries(point.get(), c, p, where);
    read_wrong_per_rank(point.get(), c, p);
    read_event_series(point.get(), c, p);
  }
  c.watched = read_watched_summaries(case_group, groups.size(),
                                     fmt::format("{}: case {}", path, c.group_name));
  c.group_of_rank = groups;
}

// Whether the case's points are summaries (case attribute samples; absent: full).
bool summary_points(hid_t case_group, const std::string& path, const std::string& group_name) {
  const auto& attribute = s::harness::kSamplesForm.name;
  if (!h5::has_attribute(case_group, attribute)) return false;
  const auto form = h5::string_attribute(case_group, attribute);
  if (form != s::samples_form::kSummary && form != s::samples_form::kFull)
    throw ReadError(fmt::format("{}: case {}: attribute '{}' is '{}', not {} or {}", path,
                                group_name, attribute, form, s::samples_form::kSummary,
                                s::samples_form::kFull));
  return form == s::samples_form::kSummary;
}

void read_iteration_times(hid_t case_group, CaseData& c, const std::string& path) {
  const auto groups = h5::read_int_column(case_group, s::kGroupOfRank);
  if (summary_points(case_group, path, c.group_name))
    return read_summary_points(case_group, groups, c, path);
  h5::Handle points = h5::open_group(case_group, s::kPointsGroup);
  WatchedReadings watched;
  // Reading a point (HDF5 and its decompression, this thread) overlaps the medians of the point
  // before it (a second thread): at 65,536 ranks each took about half the report's time. Two sets
  // of matrices take turns, so at most two points are in memory.
  std::array<PointMatrices, 2> buffers;
  std::array<std::future<PointFigures>, 2> pending;
  const auto keep = [&](std::future<PointFigures>& done) {
    auto f = done.get();
    c.iteration_times.push_back(std::move(f.slowest));
    c.rank_medians.push_back(std::move(f.medians));
    c.rank_batched_medians.push_back(std::move(f.batched));
  };
  const auto names = h5::child_names(points.get());
  for (std::size_t p = 0; p < names.size(); ++p) {
    const auto& name = names[p];
    auto& slot = pending[p % 2];
    if (slot.valid()) keep(slot);  // its matrices are free again, its figures in order
    auto& m = buffers[p % 2];
    h5::Handle point = h5::open_group(points.get(), name);
    read_watched_series(point.get(), groups.size(), watched,
                        fmt::format("{}: case {} point {}", path, c.group_name, name));
    h5::read_matrix(point.get(), s::kSamples, m.samples);
    if (m.samples.cols != groups.size())
      throw ReadError(fmt::format("{}: case {} size {}: samples have {} ranks, group_of_rank {}",
                                  path, c.group_name, name, m.samples.cols, groups.size()));
    m.work = read_counters(point.get(), groups, m.samples.rows, m.samples.cols, c, p, path, name);
    read_wrong_per_rank(point.get(), c, p);
    read_event_series(point.get(), c, p);
    m.has_batched = h5::exists(point.get(), s::kBatched);
    if (m.has_batched) {
      h5::read_matrix(point.get(), s::kBatched, m.batched);
      m.has_batched = m.batched.rows > 0 && m.batched.cols == groups.size();
    }
    slot = std::async(std::launch::async, point_figures, std::cref(m), std::cref(groups));
  }
  for (std::size_t p = names.size(); p < names.size() + 2; ++p)
    if (pending[p % 2].valid()) keep(pending[p % 2]);
  c.watched = summarise(std::move(watched), groups.size());
  c.group_of_rank = groups;
}

// Each point's operations per back-to-back block, from the stats rows (one per point and group).
void read_batch_ops(CaseData& c) {
  c.batch_ops.assign(c.rank_medians.size(), 0);
  const auto point = c.stats.find("point"), ops = c.stats.find("batch_ops");
  if (point == c.stats.end() || ops == c.stats.end()) return;
  for (std::size_t r = 0; r < point->second.numbers.size() && r < ops->second.numbers.size(); ++r) {
    const auto p = static_cast<std::size_t>(point->second.numbers[r]);
    if (p < c.batch_ops.size() && !std::isnan(ops->second.numbers[r]))
      c.batch_ops[p] = std::max(c.batch_ops[p], static_cast<std::int64_t>(ops->second.numbers[r]));
  }
}

// Optional: files written before the harness measured host load lack it (not measured).
void read_host_load(const Attributes& attributes, CaseData& c) {
  const auto read = [&](std::string_view name, double& out) {
    if (const auto it = attributes.find(name); it != attributes.end() && !it->second.is_string)
      out = it->second.number;
  };
  read(s::harness::kHostCpuStolen.name, c.host_cpu_stolen);
  read(s::harness::kHostCpuForeign.name, c.host_cpu_foreign);
  read(s::harness::kHostCpuS.name, c.host_cpu_s);
}

CaseData read_case(hid_t cases, const std::string& group_name, const RunData& run) {
  const auto& path = run.path;
  h5::Handle g = h5::open_group(cases, group_name);
  const std::string where = "case " + group_name;
  CaseData c;
  c.group_name = group_name;
  const auto attributes = h5::read_attributes(g.get());
  if (!attributes.contains(s::harness::kStatus.name))
    throw ReadError(
        fmt::format("{}: case {} was cut short while being written (no status); "
                    "'preflight run ... --resume {}' runs it again",
                    path, group_name, path));
  for (const auto& item : s::kCaseAttributes)
    if (!attributes.contains(item.name))
      throw ReadError(missing(path, fmt::format("attribute '{}' of {}", item.name, where)));
  const auto declared_where = fmt::format("{}: case {}", path, group_name);
  c.index = int_declaration(attributes, s::harness::kIndex.name, declared_where);
  c.name = string_declaration(attributes, s::harness::kName.name, declared_where);
  c.family = string_declaration(attributes, s::harness::kFamily.name, declared_where);
  c.backend = string_declaration(attributes, s::harness::kBackend.name, declared_where);
  c.status = string_declaration(attributes, s::harness::kStatus.name, declared_where);
  read_host_load(attributes, c);
  for (const auto& [name, value] : attributes) c.params[name] = attribute_text(value);
  const auto declare = [&] {
    if (run.schema_version == kSchemaV2)
      c.meaning = read_meaning(attributes, declared_where);
    else
      declare_v1(c, run.node_count);
  };
  if (!h5::exists(g.get(), s::kStatsGroup)) {
    if (c.status != s::case_status::kTimeout) throw ReadError(missing(path, where + "'s stats"));
    declare();
    return c;
  }
  h5::Handle stats = h5::open_group(g.get(), s::kStatsGroup);
  for (const auto& item : s::kStatsColumns)
    if (!h5::exists(stats.get(), item.name))
      throw ReadError(missing(path, fmt::format("column '{}' of {}'s stats", item.name, where)));
  for (const auto& name : h5::child_names(stats.get()))
    c.stats[name] = read_column(
        stats.get(), name,
        run.schema_version == kSchemaV2 ? DeclaredSince::kV2 : DeclaredSince::kV1, declared_where);
  declare();
  read_iteration_times(g.get(), c, path);
  read_batch_ops(c);
  const auto point = c.stats.find("point"), group = c.stats.find("group");
  if (point != c.stats.end() && group != c.stats.end())
    for (std::size_t r = 0; r < point->second.numbers.size(); ++r)
      c.row_index.emplace(std::pair{static_cast<std::int64_t>(point->second.numbers[r]),
                                    static_cast<std::int64_t>(group->second.numbers[r])},
                          r);
  for (const auto& [name, column] : c.stats)
    if (std::max(column.numbers.size(), column.strings.size()) != c.rows())
      throw ReadError(fmt::format(
          "{}: {}'s stats column '{}' has a different length from the others", path, where, name));
  return c;
}

// Whether another process holds the file's lock for writing, as HDF5 does for as long as a run
// writes its results file: such a file is in use, not damaged.
bool locked_by_a_writer(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool locked = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  close(fd);  // releases the shared lock, if this took one
  return locked;
}

}  // namespace

std::size_t CaseData::rows() const {
  const auto it = stats.find("point");
  return it == stats.end() ? 0 : it->second.numbers.size();
}

std::optional<double> number_of_text(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == nullptr || *end != '\0') return std::nullopt;
  return v;
}

namespace {

// The optional attribute `scheduler`: a JSON object of strings.
void read_scheduler(hid_t f, const std::string& path, RunData& run) {
  const std::string name(s::kSchedulerAttribute);
  if (!h5::has_attribute(f, name)) return;
  const auto facts = nlohmann::ordered_json::parse(h5::string_attribute(f, name), nullptr, false);
  if (!facts.is_object())
    throw ReadError(fmt::format("{}: attribute 'scheduler' is not a JSON object", path));
  for (const auto& [key, value] : facts.items())
    run.scheduler.emplace_back(key, value.is_string() ? value.get<std::string>() : value.dump());
}

// The optional group env_checks: string columns of one length.
void read_env_checks(hid_t f, const std::string& path, RunData& run) {
  if (!h5::exists(f, s::kEnvChecksGroup)) return;
  h5::Handle group = h5::open_group(f, s::kEnvChecksGroup);
  std::map<std::string, std::vector<std::string>> columns;
  for (const auto& item : s::kEnvCheckColumns) {
    if (!h5::exists(group.get(), item.name))
      throw ReadError(missing(path, fmt::format("column '{}' of /env_checks", item.name)));
    columns[std::string(item.name)] =
        read_column(group.get(), std::string(item.name), DeclaredSince::kNone, path).strings;
  }
  const std::size_t n = columns["check"].size();
  for (const auto& [name, values] : columns)
    if (values.size() != n)
      throw ReadError(fmt::format("{}: /env_checks/{} has {} rows, /env_checks/check {}", path,
                                  name, values.size(), n));
  namespace st = s::env_check_status;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string& status = columns["status"][i];
    if (status != st::kPass && status != st::kWarn && status != st::kFail && status != st::kSkipped)
      throw ReadError(
          fmt::format("{}: /env_checks/status row {} is '{}', not pass, warn, fail or "
                      "skipped",
                      path, i, status));
    run.env_checks.push_back({columns["check"][i], status, columns["where"][i],
                              columns["detail"][i], columns["fix"][i]});
  }
}

}  // namespace

RunData read_run(const std::string& path, const CaseRead& on_case) {
  if (access(path.c_str(), F_OK) != 0)
    throw ReadError(fmt::format("{}: no such file (check the path)", path));
  if (access(path.c_str(), R_OK) != 0)
    throw ReadError(fmt::format("{}: cannot read the file ({})", path, std::strerror(errno)));
  if (locked_by_a_writer(path))
    throw ReadError(fmt::format(
        "{}: in use by another process (a preflight run still writing it holds its lock): read "
        "it when that run has ended",
        path));
  if (H5Fis_hdf5(path.c_str()) <= 0)
    throw ReadError(
        fmt::format("{}: not an HDF5 file (or truncated before its first block)", path));
  try {
    h5::Handle file = h5::open_file_read(path);
    const hid_t f = file.get();
    RunData run;
    run.path = path;
    if (!h5::has_attribute(f, "schema_version"))
      throw ReadError(missing(path, "the attribute schema_version"));
    run.schema_version = h5::int_attribute(f, "schema_version");
    if (run.schema_version != kSchemaV1 && run.schema_version != kSchemaV2)
      throw ReadError(fmt::format(
          "{}: results schema version {}, this preflight-report reads versions {} and {}; use "
          "the preflight-report of the release that wrote it",
          path, run.schema_version, kSchemaV1, kSchemaV2));
    require_attributes(f, s::kRunAttributes, path, "the run");
    run.status = h5::string_attribute(f, "status");
    run.git_revision = h5::string_attribute(f, "git_revision");
    run.command_line = h5::string_attribute(f, "command_line");
    run.config = h5::string_attribute(f, "config");
    run.start_time = h5::string_attribute(f, "start_time");
    run.end_time = h5::string_attribute(f, "end_time");
    run.exit_code = h5::int_attribute(f, "exit_code");
    run.world_size = h5::int_attribute(f, "world_size");
    run.node_count = h5::int_attribute(f, "node_count");
    if (h5::has_attribute(f, std::string(s::kSkippedAttribute))) {
      const auto list = nlohmann::json::parse(
          h5::string_attribute(f, std::string(s::kSkippedAttribute)), nullptr, false);
      if (!list.is_array())
        throw ReadError(fmt::format("{}: attribute 'skipped' is not a JSON list", path));
      for (const auto& line : list)
        run.skipped.push_back(line.is_string() ? line.get<std::string>() : line.dump());
    }
    if (h5::has_attribute(f, std::string(s::kSoakAttribute)))
      run.soak_s = h5::double_attribute(f, std::string(s::kSoakAttribute));
    read_scheduler(f, path, run);
    read_env_checks(f, path, run);
    if (!h5::exists(f, s::kEnvironmentGroup))
      throw ReadError(missing(path, "the group /environment"));
    h5::Handle env = h5::open_group(f, s::kEnvironmentGroup);
    std::vector<s::Item> columns(s::kEnvironmentColumns.begin(), s::kEnvironmentColumns.end());
    for (const auto& added : {std::span<const s::Item>(s::kGpuEnvironmentColumns),
                              std::span<const s::Item>(s::kNetworkEnvironmentColumns)})
      for (const auto& item : added)
        if (h5::exists(env.get(), item.name)) columns.push_back(item);  // newer files only
    for (const auto& item : columns) {
      if (!h5::exists(env.get(), item.name))
        throw ReadError(missing(path, fmt::format("column '{}' of /environment", item.name)));
      const Column c = read_column(env.get(), std::string(item.name), DeclaredSince::kNone, path);
      auto& out = run.environment[std::string(item.name)];
      if (!c.strings.empty()) out = c.strings;
      for (double v : c.numbers)
        out.push_back(v == std::floor(v) ? fmt::format("{}", static_cast<std::int64_t>(v))
                                         : fmt::format("{}", v));
      if (out.size() != static_cast<std::size_t>(run.world_size))
        throw ReadError(fmt::format("{}: /environment/{} has {} rows for {} ranks", path, item.name,
                                    out.size(), run.world_size));
    }
    if (!h5::exists(f, s::kCasesGroup)) throw ReadError(missing(path, "the group /cases"));
    h5::Handle cases = h5::open_group(f, s::kCasesGroup);
    const auto names = h5::child_names(cases.get());
    run.cases.reserve(names.size());
    for (const auto& name : names) {
      run.cases.push_back(read_case(cases.get(), name, run));
      if (on_case) on_case(run, run.cases.size() - 1);
    }
    return run;
  } catch (const h5::Error& e) {
    if (e.checksum_failed)
      throw ReadError(fmt::format(
          "{}: damaged results file: {}; its bytes changed after preflight wrote it (copy it "
          "again from where the run wrote it, or run again)",
          path, e.what()));
    throw ReadError(fmt::format("{}: damaged or truncated results file ({})", path, e.what()));
  }
}

}  // namespace preflight::report
