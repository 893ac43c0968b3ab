#include "analysis/device_watch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "analysis/format.hpp"
#include "preflight/common/stats.hpp"
#include "preflight/schema/layout.hpp"

namespace preflight::report {
namespace {

namespace s = schema;

// A rule is judged among at least this many ranks with readings.
constexpr std::size_t kFewestPeers = 3;

std::string case_label(const CaseData& c) {
  return fmt::format("{} {}", c.group_name, c.name);
}

std::string environment_of(const RunData& run, std::string_view column, std::size_t rank) {
  const auto it = run.environment.find(std::string(column));
  return it == run.environment.end() || rank >= it->second.size() ? "" : it->second[rank];
}

// "rank 3 on node0001 (device 0000:3b:00.0)": the rank, its node and, where the environment
// has it, the device it ran on.
std::string device_name(const RunData& run, std::size_t rank) {
  const std::string node = environment_of(run, s::kEnvironmentColumns[3].name, rank);
  const std::string device = environment_of(run, s::kGpuEnvironmentColumns[0].name, rank);
  return fmt::format("rank {}{}{}", rank, node.empty() ? "" : " on " + node,
                     device.empty() ? "" : " (device " + device + ")");
}

// A reading with its unit, to 5 significant digits.
std::string reading(double v, const std::string& unit) {
  return with_unit(fmt::format("{:.5g}", v), unit);
}

// "0x8 hardware slowdown, 0x20 software thermal slowdown": the set bits, named by the labels
// the series declares ("0x4 name; 0x8 name"); a bit they do not name is shown as a number.
std::string named_bits(std::uint64_t bits, const std::string& labels) {
  std::map<std::uint64_t, std::string> names;
  for (std::size_t from = 0; from < labels.size();) {
    auto to = labels.find(';', from);
    if (to == std::string::npos) to = labels.size();
    const std::string entry = labels.substr(from, to - from);
    char* end = nullptr;
    const std::uint64_t bit = std::strtoull(entry.c_str(), &end, 16);
    std::string name = end ? std::string(end) : "";
    while (!name.empty() && name.front() == ' ') name.erase(name.begin());
    if (bit != 0) names[bit] = name;
    from = to + 1;
  }
  std::string out;
  for (std::uint64_t bit = 1; bit != 0; bit <<= 1) {
    if (!(bits & bit)) continue;
    const auto it = names.find(bit);
    out += fmt::format("{}{:#x}{}", out.empty() ? "" : ", ", bit,
                       it == names.end() || it->second.empty() ? "" : " " + it->second);
  }
  return out;
}

// A rank that broke a rule in a case: what it read, and how badly (the worst case's detail is
// shown).
struct Broken {
  std::size_t rank;
  std::string detail;
  double severity;
};

void judge_zero(const WatchedSeries& w, std::vector<Broken>& out) {
  for (std::size_t r = 0; r < w.per_rank.size(); ++r) {
    if (std::isnan(w.per_rank[r]) || w.broken[r] == 0) continue;
    const auto bits = static_cast<std::uint64_t>(w.per_rank[r]);
    out.push_back({r,
                   fmt::format("{} in {} of {} readings", named_bits(bits, w.labels), w.broken[r],
                               w.readings[r]),
                   static_cast<double>(w.broken[r]) / static_cast<double>(w.readings[r])});
  }
}

// A count that rose during the case (its last reading above its first).
void judge_grows(const WatchedSeries& w, std::vector<Broken>& out) {
  for (std::size_t r = 0; r < w.per_rank.size(); ++r) {
    if (!(w.per_rank[r] > 0)) continue;
    out.push_back(
        {r,
         fmt::format("rose by {} during the case ({} of {} readings above the one before)",
                     reading(w.per_rank[r], w.unit), w.broken[r], w.readings[r]),
         w.per_rank[r]});
  }
}

// A reading that came within the margin (w.tolerance, in the series' unit) of the limit its
// device reports; a rank without the limit is not judged.
void judge_margin(const WatchedSeries& w, std::vector<Broken>& out) {
  for (std::size_t r = 0; r < w.per_rank.size() && r < w.reference_per_rank.size(); ++r) {
    const double hottest = w.per_rank[r], limit = w.reference_per_rank[r];
    // Within the margin, its edge included: a reading must stay more than it below the limit.
    if (std::isnan(hottest) || std::isnan(limit) || hottest < limit - w.tolerance) continue;
    const double headroom = limit - hottest;
    out.push_back(
        {r,
         fmt::format("highest reading {}, {} {} {} {} (margin {})", reading(hottest, w.unit),
                     reading(std::fabs(headroom), w.unit), headroom < 0 ? "past" : "short of",
                     w.reference, reading(limit, w.unit), reading(w.tolerance, w.unit)),
         -headroom});
  }
}

// Returns false when too few ranks had readings to judge.
bool judge_peers(const WatchedSeries& w, std::vector<Broken>& out) {
  std::vector<double> present;
  for (double v : w.per_rank)
    if (!std::isnan(v)) present.push_back(v);
  if (present.size() < kFewestPeers) return false;
  const double centre = median(present);
  if (!(centre > 0)) return true;
  for (std::size_t r = 0; r < w.per_rank.size(); ++r) {
    const double v = w.per_rank[r];
    if (std::isnan(v)) continue;
    const double off = v / centre - 1;
    if (std::fabs(off) <= w.tolerance) continue;
    out.push_back(
        {r,
         fmt::format("median {}, {:.0f}% {} its peers' median {} (tolerance {:.0f}%)",
                     reading(v, w.unit), std::fabs(off) * 100, off < 0 ? "below" : "above",
                     reading(centre, w.unit), w.tolerance * 100),
         std::fabs(off)});
  }
  return true;
}

}  // namespace

void WatchJudgement::record(const RunData& run, const std::string& series, const WatchedSeries& w,
                            std::size_t rank, const std::string& case_label, std::string detail,
                            double severity) {
  auto [it, fresh] = found_.try_emplace({series, rank});
  Found& e = it->second;
  if (fresh) {
    e.finding = {w.finding, series,  static_cast<int>(rank), device_name(run, rank), "",
                 {},        w.remedy};
    order_.push_back(it->first);
  }
  e.finding.cases.push_back(case_label);
  if (fresh || severity > e.severity) {
    e.finding.detail = std::move(detail);
    e.severity = severity;
  }
}

// Over the run: each rank's best reading in every case that watches the series against the
// best of its reference there (a link that trained narrow stays narrow; one that idles drops
// its generation for a while, so the best reading is the one judged). Per series (few) a slot
// per rank: a map keyed by series and rank made every reading a string comparison.
void WatchJudgement::tally_reference(const std::string& series, const WatchedSeries& w,
                                     const std::string& case_label) {
  auto& of = reference_[series];
  of.finding = w.finding;
  of.unit = w.unit;
  of.remedy = w.remedy;
  if (of.of_rank.size() < w.per_rank.size()) of.of_rank.resize(w.per_rank.size());
  std::vector<bool> read(w.per_rank.size());
  for (std::size_t r = 0; r < w.per_rank.size(); ++r) {
    if (std::isnan(w.per_rank[r])) continue;
    read[r] = true;
    Best& b = of.of_rank[r];
    if (b.cases++ == 0) reference_order_.emplace_back(series, r);
    b.reading = std::max(b.reading, w.per_rank[r]);
    if (r < w.reference_per_rank.size() && !std::isnan(w.reference_per_rank[r]))
      b.reference = std::max(b.reference, w.reference_per_rank[r]);
  }
  of.cases.emplace_back(case_label, std::move(read));
}

void WatchJudgement::add(const RunData& run, const CaseData& c) {
  const auto label = case_label(c);
  std::vector<Broken> broken;
  for (const auto& [series, w] : c.watched) {
    broken.clear();
    if (w.rule == s::Watch::kZero) judge_zero(w, broken);
    if (w.rule == s::Watch::kGrows) judge_grows(w, broken);
    if (w.rule == s::Watch::kMargin) judge_margin(w, broken);
    if (w.rule == s::Watch::kReference) tally_reference(series, w, label);
    if (w.rule == s::Watch::kPeers && !judge_peers(w, broken)) {
      auto& [finding, cases] = unjudged_[series];
      finding = w.finding;
      ++cases;
    }
    for (auto& b : broken) record(run, series, w, b.rank, label, std::move(b.detail), b.severity);
  }
}

void WatchJudgement::join(WatchJudgement&& later) {
  for (const auto& key : later.order_) {
    Found& l = later.found_[key];
    auto [it, fresh] = found_.try_emplace(key);
    if (fresh) {
      it->second = std::move(l);
      order_.push_back(key);
      continue;
    }
    Found& e = it->second;
    e.finding.cases.insert(e.finding.cases.end(), std::make_move_iterator(l.finding.cases.begin()),
                           std::make_move_iterator(l.finding.cases.end()));
    if (l.severity > e.severity) {
      e.finding.detail = std::move(l.finding.detail);
      e.severity = l.severity;
    }
  }
  for (const auto& key : later.reference_order_) {
    const auto it = reference_.find(key.first);
    if (it == reference_.end() || key.second >= it->second.of_rank.size() ||
        it->second.of_rank[key.second].cases == 0)
      reference_order_.push_back(key);
  }
  for (auto& [series, l] : later.reference_) {
    auto& e = reference_[series];
    e.finding = std::move(l.finding);
    e.unit = std::move(l.unit);
    e.remedy = l.remedy;
    if (e.of_rank.size() < l.of_rank.size()) e.of_rank.resize(l.of_rank.size());
    for (std::size_t r = 0; r < l.of_rank.size(); ++r) {
      Best& b = e.of_rank[r];
      b.reading = std::max(b.reading, l.of_rank[r].reading);
      b.reference = std::max(b.reference, l.of_rank[r].reference);
      b.cases += l.of_rank[r].cases;
    }
    std::move(l.cases.begin(), l.cases.end(), std::back_inserter(e.cases));
  }
  for (auto& [series, l] : later.unjudged_) {
    auto& [finding, cases] = unjudged_[series];
    finding = std::move(l.first);
    cases += l.second;
  }
}

std::vector<WatchFinding> WatchJudgement::findings(const RunData& run) const {
  std::vector<WatchFinding> out;
  for (const auto& key : order_) out.push_back(found_.at(key).finding);
  for (const auto& [series, rank] : reference_order_) {
    const ReferenceSeries& of = reference_.at(series);
    const Best& b = of.of_rank[rank];
    if (!std::isfinite(b.reference) || b.reading >= b.reference) continue;
    WatchFinding f{of.finding,
                   series,
                   static_cast<int>(rank),
                   device_name(run, rank),
                   fmt::format("highest reading {}, its maximum {}, over {} case{}",
                               reading(b.reading, of.unit), reading(b.reference, of.unit), b.cases,
                               b.cases == 1 ? "" : "s"),
                   {},
                   of.remedy};
    // The cases it was read in: only for the ranks that fail.
    for (const auto& [label, read] : of.cases)
      if (rank < read.size() && read[rank]) f.cases.push_back(label);
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<std::string> WatchJudgement::not_judged() const {
  std::vector<std::string> out;
  for (const auto& [series, u] : unjudged_)
    out.push_back(
        fmt::format("{} ({}): not compared in {} case{}: fewer than {} ranks had readings", series,
                    u.first, u.second, u.second == 1 ? "" : "s", kFewestPeers));
  return out;
}

WatchJudgement watch_judgement(const RunData& run) {
  WatchJudgement j;
  for (const auto& c : run.cases) j.add(run, c);
  return j;
}

std::vector<WatchFinding> find_watch_findings(const RunData& run) {
  return watch_judgement(run).findings(run);
}

std::vector<std::string> watch_not_judged(const RunData& run) {
  return watch_judgement(run).not_judged();
}

}  // namespace preflight::report
