#include "reader/watched_series.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "preflight/common/stats.hpp"
#include "preflight/schema/h5.hpp"
#include "preflight/schema/layout.hpp"
#include "preflight/schema/point_summary.hpp"

namespace preflight::report {
namespace {

namespace s = schema;

std::string optional_text(hid_t set, std::string_view name) {
  return h5::has_attribute(set, name) ? h5::string_attribute(set, name) : "";
}

// The remedy a watched series declares; files written before watch_remedy get the one SPEC.md
// gives for their rule (a clock unlike its peers': reboot; a forced slowdown: isolate; a link
// below its maximum: reset; too close to a limit: isolate, as SPEC.md gives for temperature).
s::Remedy remedy_of(hid_t set, s::Watch rule, const std::string& at) {
  const auto text = optional_text(set, s::kWatchRemedyAttribute);
  if (text.empty())
    return rule == s::Watch::kPeers       ? s::Remedy::kReboot
           : rule == s::Watch::kReference ? s::Remedy::kReset
                                          : s::Remedy::kIsolate;
  const auto remedy = s::parse(text, s::kRemedyNames);
  if (!remedy)
    throw ReadError(
        fmt::format("{}: attribute '{}' is '{}', not one of isolate, reboot, reset, "
                    "monitor, none",
                    at, s::kWatchRemedyAttribute, text));
  return *remedy;
}

// The declaration on a series dataset that has the attribute `watch`: strict, as every other
// declaration (an unknown rule, or one without what it needs, is a read error).
WatchedSeries declaration(hid_t set, const std::string& name, const std::string& where) {
  WatchedSeries w;
  const auto at = fmt::format("{} series '{}'", where, name);
  const auto text = h5::string_attribute(set, s::kWatchAttribute);
  const auto rule = s::parse(text, s::kWatchNames);
  if (!rule) {
    std::string known;
    for (const auto& [e, n] : s::kWatchNames)
      known += fmt::format("{}{}", known.empty() ? "" : ", ", n);
    throw ReadError(fmt::format("{}: attribute '{}' is '{}', not one of {}", at, s::kWatchAttribute,
                                text, known));
  }
  w.rule = *rule;
  w.finding = optional_text(set, s::kWatchFindingAttribute);
  if (w.finding.empty()) w.finding = name;
  w.unit = optional_text(set, s::kUnitAttribute);
  if (h5::has_attribute(set, s::kWatchToleranceAttribute))
    w.tolerance = h5::double_attribute(set, s::kWatchToleranceAttribute);
  w.reference = optional_text(set, s::kWatchReferenceAttribute);
  w.labels = optional_text(set, s::kWatchLabelsAttribute);
  w.remedy = remedy_of(set, w.rule, at);
  if (w.rule == s::Watch::kPeers && !(w.tolerance > 0))
    throw ReadError(fmt::format("{}: rule peers needs a '{}' above 0, found {}", at,
                                s::kWatchToleranceAttribute, w.tolerance));
  if ((w.rule == s::Watch::kReference || w.rule == s::Watch::kMargin) && w.reference.empty())
    throw ReadError(
        fmt::format("{}: rule {} names no series in '{}'", at, text, s::kWatchReferenceAttribute));
  if (w.rule == s::Watch::kMargin && !(w.tolerance >= 0))
    throw ReadError(fmt::format("{}: rule margin needs a '{}' of 0 or more, found {}", at,
                                s::kWatchToleranceAttribute, w.tolerance));
  return w;
}

// Each rank's readings of one series dataset (rows x ranks), NaN rows left out.
void append(hid_t series, const std::string& name, std::size_t ranks, const std::string& at,
            std::vector<std::vector<double>>& into) {
  const auto m = h5::read_matrix(series, name);
  if (m.cols != ranks)
    throw ReadError(
        fmt::format("{} series '{}': {} columns for {} ranks", at, name, m.cols, ranks));
  s::append_readings({m.values, m.rows, m.cols}, into);
}

// Whether a rule's judgement counts readings (zero: those not 0; grows: those above the one
// before); peers and reference judge the per-rank figure alone.
bool counts_readings(s::Watch rule) {
  return rule == s::Watch::kZero || rule == s::Watch::kGrows;
}

bool uses_reference(s::Watch rule) {
  return rule == s::Watch::kReference || rule == s::Watch::kMargin;
}

// A summary's per-rank figures as the reader keeps them (WatchedSeries): the counts only for a
// rule that judges them (a day's soak at 1,000 nodes held 1.5 GB of counts nothing read).
void keep(s::WatchedSummary&& summary, WatchedSeries& w) {
  w.per_rank = std::move(summary.per_rank);
  w.reference_per_rank = std::move(summary.reference_per_rank);
  if (!counts_readings(w.rule)) return;
  w.readings = std::move(summary.readings);
  w.broken = std::move(summary.broken);
}

}  // namespace

void read_watched_series(hid_t point, std::size_t ranks, WatchedReadings& readings,
                         const std::string& where) {
  if (!h5::exists(point, s::kSeriesGroup)) return;
  h5::Handle series = h5::open_group(point, s::kSeriesGroup);
  for (const auto& name : h5::child_names(series.get())) {
    WatchedSeries w;
    {
      const h5::Handle set = h5::open_dataset(series.get(), name);
      if (!h5::has_attribute(set.get(), s::kWatchAttribute)) continue;
      w = declaration(set.get(), name, where);
    }
    if (w.rule == s::Watch::kNone) continue;
    append(series.get(), name, ranks, where, readings.rows[name]);
    // A limit the device did not give leaves a margin unjudged (NaN); a maximum to reach is
    // part of what a reference rule declares.
    if (w.rule == s::Watch::kMargin && !h5::exists(series.get(), w.reference)) {
      readings.declared.emplace(name, std::move(w));
      continue;
    }
    if (uses_reference(w.rule)) {
      if (!h5::exists(series.get(), w.reference))
        throw ReadError(fmt::format("{} series '{}': watched against '{}', which is missing", where,
                                    name, w.reference));
      append(series.get(), w.reference, ranks, where, readings.reference_rows[name]);
    }
    readings.declared.emplace(name, std::move(w));
  }
}

std::map<std::string, WatchedSeries> summarise(WatchedReadings&& readings, std::size_t ranks) {
  auto out = std::move(readings.declared);
  for (auto& [name, w] : out)
    keep(s::summarise_watched(w.rule, std::move(readings.rows[name]),
                              std::move(readings.reference_rows[name]), ranks),
         w);
  return out;
}

std::map<std::string, WatchedSeries> read_watched_summaries(hid_t case_group, std::size_t ranks,
                                                            const std::string& where) {
  std::map<std::string, WatchedSeries> out;
  if (!h5::exists(case_group, s::kWatchedGroup)) return out;
  h5::Handle watched = h5::open_group(case_group, s::kWatchedGroup);
  for (const auto& name : h5::child_names(watched.get())) {
    WatchedSeries w;
    {
      const h5::Handle set = h5::open_dataset(watched.get(), name);
      if (!h5::has_attribute(set.get(), s::kWatchAttribute))
        throw ReadError(fmt::format("{} {}/{}: attribute '{}' is missing", where, s::kWatchedGroup,
                                    name, s::kWatchAttribute));
      w = declaration(set.get(), name, where);
    }
    const auto m = h5::read_matrix(watched.get(), name);
    if (m.rows != s::watched_row::kCount || m.cols != ranks)
      throw ReadError(fmt::format("{} {}/{}: {} x {}, expected {} x {} (world_size)", where,
                                  s::kWatchedGroup, name, m.rows, m.cols, s::watched_row::kCount,
                                  ranks));
    const auto row = [&](std::size_t k) {
      const auto at = m.values.begin() + static_cast<std::ptrdiff_t>(k * ranks);
      return std::vector<double>(at, at + static_cast<std::ptrdiff_t>(ranks));
    };
    const auto count = [&](std::size_t k) {
      const auto at = m.values.begin() + static_cast<std::ptrdiff_t>(k * ranks);
      std::vector<s::ReadingCount> v(ranks);
      std::transform(at, at + static_cast<std::ptrdiff_t>(ranks), v.begin(),
                     [](double x) { return static_cast<s::ReadingCount>(x); });
      return v;
    };
    s::WatchedSummary summary{row(s::watched_row::kPerRank), {}, {}, {}};
    if (counts_readings(w.rule)) {
      summary.readings = count(s::watched_row::kReadings);
      summary.broken = count(s::watched_row::kBroken);
    }
    if (uses_reference(w.rule)) summary.reference_per_rank = row(s::watched_row::kReference);
    keep(std::move(summary), w);
    out.emplace(name, std::move(w));
  }
  return out;
}

}  // namespace preflight::report
