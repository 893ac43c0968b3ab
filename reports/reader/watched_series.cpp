#include "reader/watched_series.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "preflight/common/stats.hpp"
#include "preflight/schema/h5.hpp"
#include "preflight/schema/layout.hpp"

namespace preflight::report {
namespace {

namespace s = schema;

std::string optional_text(hid_t set, std::string_view name) {
  return h5::has_attribute(set, name) ? h5::string_attribute(set, name) : "";
}

// The remedy a watched series declares; files written before watch_remedy get the one SPEC.md
// gives for their rule (a clock unlike its peers': reboot; a forced slowdown: isolate; a link
// below its maximum: reset).
s::Remedy remedy_of(hid_t set, s::Watch rule, const std::string& at) {
  const auto text = optional_text(set, s::kWatchRemedyAttribute);
  if (text.empty())
    return rule == s::Watch::kPeers  ? s::Remedy::kReboot
           : rule == s::Watch::kZero ? s::Remedy::kIsolate
                                     : s::Remedy::kReset;
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
  if (w.rule == s::Watch::kReference && w.reference.empty())
    throw ReadError(
        fmt::format("{}: rule reference names no series in '{}'", at, s::kWatchReferenceAttribute));
  return w;
}

// Each rank's readings of one series dataset (rows x ranks), NaN rows left out.
void append(hid_t series, const std::string& name, std::size_t ranks, const std::string& at,
            std::vector<std::vector<double>>& into) {
  const auto m = h5::read_matrix(series, name);
  if (m.cols != ranks)
    throw ReadError(
        fmt::format("{} series '{}': {} columns for {} ranks", at, name, m.cols, ranks));
  into.resize(ranks);
  for (std::size_t i = 0; i < m.rows; ++i)
    for (std::size_t r = 0; r < ranks; ++r)
      if (const double v = m.values[i * ranks + r]; !std::isnan(v)) into[r].push_back(v);
}

double highest(const std::vector<double>& v) {
  return v.empty() ? std::nan("") : *std::max_element(v.begin(), v.end());
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
    if (w.rule == s::Watch::kReference) {
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
  for (auto& [name, w] : out) {
    auto& rows = readings.rows[name];
    rows.resize(ranks);
    w.per_rank.assign(ranks, std::nan(""));
    w.readings.assign(ranks, 0);
    w.broken.assign(ranks, 0);
    for (std::size_t r = 0; r < ranks; ++r) {
      const auto& v = rows[r];
      w.readings[r] = v.size();
      if (v.empty()) continue;
      if (w.rule == s::Watch::kZero) {
        std::uint64_t bits = 0;
        for (double x : v)
          if (x != 0) {
            ++w.broken[r];
            bits |= static_cast<std::uint64_t>(std::fabs(x));
          }
        w.per_rank[r] = static_cast<double>(bits);
      } else if (w.rule == s::Watch::kPeers) {
        w.per_rank[r] = median(v);
      } else {
        w.per_rank[r] = highest(v);
      }
    }
    if (w.rule == s::Watch::kReference) {
      auto& reference = readings.reference_rows[name];
      reference.resize(ranks);
      w.reference_per_rank.assign(ranks, std::nan(""));
      for (std::size_t r = 0; r < ranks; ++r) w.reference_per_rank[r] = highest(reference[r]);
    }
  }
  return out;
}

}  // namespace preflight::report
