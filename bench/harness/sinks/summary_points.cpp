#include "harness/sinks/summary_points.hpp"

#include <fmt/format.h>

#include <map>
#include <string>
#include <vector>

#include "harness/sinks/declare.hpp"
#include "preflight/schema/h5.hpp"
#include "preflight/schema/layout.hpp"
#include "preflight/schema/point_summary.hpp"

namespace preflight {
namespace {

namespace s = schema;

// The description a summary dataset carries: its declaration's (kSummaryDatasets).
h5::ColumnInfo info_of(std::string_view name) {
  for (const auto& item : s::kSummaryDatasets)
    if (item.name == name) return {item.unit, item.description};
  throw std::logic_error(fmt::format("results schema declares no summary dataset '{}'", name));
}

// A watched series' readings over the case's points, and its reference's.
struct Watched {
  const s::Column* column = nullptr;
  const s::SeriesWatch* watch = nullptr;
  std::vector<std::vector<double>> readings, reference;
};

// The counter matrix of `name` that is per iteration and rank, or nullptr.
const std::vector<double>* counter_named(const PointResult& p, std::string_view name,
                                         std::size_t cells) {
  for (std::size_t i = 0; i < p.counter_specs.size(); ++i)
    if (p.counter_specs[i].column != nullptr && p.counter_specs[i].column->name == name &&
        p.counters[i].size() == cells)
      return &p.counters[i];
  return nullptr;
}

void write_counters(hid_t point, const PointResult& p, std::span<const std::int64_t> groups) {
  const std::size_t ranks = groups.size(), rows = static_cast<std::size_t>(p.iterations);
  if (p.counter_specs.empty()) return;
  h5::Handle summaries = h5::create_group(point, s::kCounterSummariesGroup);
  h5::Handle faults;
  for (std::size_t i = 0; i < p.counter_specs.size(); ++i) {
    const s::Column& spec = declare::declared(p.counter_specs[i].column, "counter", "?");
    if (p.counters[i].size() != rows * ranks) continue;  // not per iteration and rank: not read
    const s::MatrixView m{p.counters[i], rows, ranks};
    const auto per_iteration = s::counter_per_iteration(m, groups);
    std::vector<double> both = per_iteration.medians;
    both.insert(both.end(), per_iteration.totals.begin(), per_iteration.totals.end());
    h5::write_matrix(summaries.get(), spec.name, s::counter_row::kCount, rows, both,
                     {spec.unit, spec.description});
    declare::declare_counter(summaries.get(), spec.name, spec);
    if (!s::counts_faults(spec.kind, spec.direction)) continue;
    const auto cells = s::fault_cells(m);
    if (cells.empty()) continue;
    std::vector<double> flat;
    for (const auto& c : cells)
      flat.insert(flat.end(),
                  {static_cast<double>(c.iteration), static_cast<double>(c.rank), c.value});
    if (!faults) faults = h5::create_group(point, s::kFaultCellsGroup);
    h5::write_matrix(faults.get(), spec.name, cells.size(), s::fault_column::kCount, flat,
                     info_of(s::kFaultCellsGroup));
  }
}

// Event series (interval_s 0) are kept whole; watched series are gathered for the case's
// summary; any other interval series is left out (the report reads none).
void write_series(hid_t point, const PointResult& p, std::size_t ranks,
                  std::map<std::string, Watched>& watched) {
  h5::Handle series;
  for (std::size_t i = 0; i < p.series_specs.size(); ++i) {
    const auto& spec = p.series_specs[i];
    const s::Column& column = declare::declared(spec.column, "series", "?");
    const s::MatrixView m{p.series[i], p.series_rows[i], ranks};
    if (spec.watch != nullptr && spec.watch->rule != s::Watch::kNone) {
      auto& w = watched[std::string(column.name)];
      w.column = &column;
      w.watch = spec.watch;
      s::append_readings(m, w.readings);
      for (std::size_t k = 0; k < p.series_specs.size(); ++k)
        if (p.series_specs[k].column != nullptr &&
            p.series_specs[k].column->name == spec.watch->reference)
          s::append_readings({p.series[k], p.series_rows[k], ranks}, w.reference);
    }
    if (spec.interval_s != 0) continue;
    if (!series) series = h5::create_group(point, s::kSeriesGroup);
    h5::write_matrix(series.get(), column.name, m.rows, ranks, p.series[i],
                     {column.unit, column.description});
    declare::declare_counter(series.get(), column.name, column);
    const h5::Handle set = h5::open_dataset(series.get(), column.name);
    h5::set_attribute(set.get(), s::kIntervalAttribute, spec.interval_s);
  }
}

void write_watched(hid_t case_group, std::map<std::string, Watched>& watched, std::size_t ranks) {
  if (watched.empty()) return;
  h5::Handle group = h5::create_group(case_group, s::kWatchedGroup);
  for (auto& [name, w] : watched) {
    const auto summary =
        s::summarise_watched(w.watch->rule, std::move(w.readings), std::move(w.reference), ranks);
    std::vector<double> rows(s::watched_row::kCount * ranks, std::nan(""));
    for (std::size_t r = 0; r < ranks; ++r) {
      rows[s::watched_row::kPerRank * ranks + r] = summary.per_rank[r];
      if (!summary.reference_per_rank.empty())
        rows[s::watched_row::kReference * ranks + r] = summary.reference_per_rank[r];
      rows[s::watched_row::kReadings * ranks + r] = static_cast<double>(summary.readings[r]);
      rows[s::watched_row::kBroken * ranks + r] = static_cast<double>(summary.broken[r]);
    }
    h5::write_matrix(group.get(), name, s::watched_row::kCount, ranks, rows,
                     {w.column->unit, w.column->description});
    declare::declare_counter(group.get(), name, *w.column);
    const h5::Handle set = h5::open_dataset(group.get(), name);
    declare::set_attributes(set.get(), s::kSeriesWatchAttributes, s::values_of(*w.watch));
  }
}

}  // namespace

void write_summary_points(hid_t case_group, const CaseRecord& r) {
  h5::Handle points = h5::create_group(case_group, s::kPointsGroup);
  const std::vector<std::int64_t> groups(r.group_of_rank.begin(), r.group_of_rank.end());
  const std::size_t ranks = groups.size();
  std::map<std::string, Watched> watched;
  for (const auto& p : r.points) {
    h5::Handle g = h5::create_group(points.get(), fmt::format("{:04d}", p.index));
    const std::size_t rows = static_cast<std::size_t>(p.iterations);
    const s::MatrixView samples{p.samples, rows, ranks};
    const auto* work = r.meaning.work_counter.empty()
                           ? nullptr
                           : counter_named(p, r.meaning.work_counter, rows * ranks);
    const auto medians = s::rank_medians(samples, work, groups);
    h5::write_matrix(g.get(), s::kRankTimeMedian, 1, ranks, medians, info_of(s::kRankTimeMedian));
    if (p.batch_blocks > 0) {
      const s::MatrixView batched{p.batched, static_cast<std::size_t>(p.batch_blocks), ranks};
      h5::write_matrix(g.get(), s::kRankBatchedMedian, 1, ranks,
                       s::rank_medians(batched, nullptr, groups), info_of(s::kRankBatchedMedian));
    }
    const auto slowest = s::slowest_per_iteration(samples, groups);
    h5::write_column(g.get(), s::kIterationSlowest, std::span<const double>(slowest),
                     info_of(s::kIterationSlowest));
    h5::write_column(g.get(), s::kWrongPerRank, std::span<const std::uint64_t>(p.wrong_per_rank),
                     {"elements", "wrong result elements per rank"});
    write_counters(g.get(), p, groups);
    write_series(g.get(), p, ranks, watched);
  }
  write_watched(case_group, watched, ranks);
}

}  // namespace preflight
