#include "analysis/device_watch.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <utility>

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

// One finding per series and rank, the cases where it was seen gathered into it.
class Findings {
 public:
  explicit Findings(const RunData& run) : run_(run) {}
  // `severity` orders the details: the case where the rule was broken worst gives the detail.
  void add(const std::string& series, const WatchedSeries& w, std::size_t rank, const CaseData& c,
           std::string detail, double severity) {
    auto [it, fresh] = found_.try_emplace({series, rank});
    Entry& e = it->second;
    if (fresh) {
      e.finding = {w.finding, series,  static_cast<int>(rank), device_name(run_, rank), "",
                   {},        w.remedy};
      order_.push_back(it->first);
    }
    e.finding.cases.push_back(case_label(c));
    if (fresh || severity > e.severity) {
      e.finding.detail = std::move(detail);
      e.severity = severity;
    }
  }
  std::vector<WatchFinding> take() {
    std::vector<WatchFinding> out;
    for (const auto& key : order_) out.push_back(std::move(found_[key].finding));
    return out;
  }

 private:
  struct Entry {
    WatchFinding finding;
    double severity = 0;
  };
  const RunData& run_;
  std::map<std::pair<std::string, std::size_t>, Entry> found_;
  std::vector<std::pair<std::string, std::size_t>> order_;
};

void judge_zero(const CaseData& c, const std::string& series, const WatchedSeries& w,
                Findings& out) {
  for (std::size_t r = 0; r < w.per_rank.size(); ++r) {
    if (std::isnan(w.per_rank[r]) || w.broken[r] == 0) continue;
    const auto bits = static_cast<std::uint64_t>(w.per_rank[r]);
    out.add(series, w, r, c,
            fmt::format("{} in {} of {} readings", named_bits(bits, w.labels), w.broken[r],
                        w.readings[r]),
            static_cast<double>(w.broken[r]) / static_cast<double>(w.readings[r]));
  }
}

// A count that rose during the case (its last reading above its first).
void judge_grows(const CaseData& c, const std::string& series, const WatchedSeries& w,
                 Findings& out) {
  for (std::size_t r = 0; r < w.per_rank.size(); ++r) {
    if (!(w.per_rank[r] > 0)) continue;
    out.add(series, w, r, c,
            fmt::format("rose by {} during the case ({} of {} readings above the one before)",
                        reading(w.per_rank[r], w.unit), w.broken[r], w.readings[r]),
            w.per_rank[r]);
  }
}

// A reading that came within the margin (w.tolerance, in the series' unit) of the limit its
// device reports; a rank without the limit is not judged.
void judge_margin(const CaseData& c, const std::string& series, const WatchedSeries& w,
                  Findings& out) {
  for (std::size_t r = 0; r < w.per_rank.size() && r < w.reference_per_rank.size(); ++r) {
    const double hottest = w.per_rank[r], limit = w.reference_per_rank[r];
    // Within the margin, its edge included: a reading must stay more than it below the limit.
    if (std::isnan(hottest) || std::isnan(limit) || hottest < limit - w.tolerance) continue;
    const double headroom = limit - hottest;
    out.add(series, w, r, c,
            fmt::format("highest reading {}, {} {} {} {} (margin {})", reading(hottest, w.unit),
                        reading(std::fabs(headroom), w.unit), headroom < 0 ? "past" : "short of",
                        w.reference, reading(limit, w.unit), reading(w.tolerance, w.unit)),
            -headroom);
  }
}

// Returns false when too few ranks had readings to judge.
bool judge_peers(const CaseData& c, const std::string& series, const WatchedSeries& w,
                 Findings& out) {
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
    out.add(series, w, r, c,
            fmt::format("median {}, {:.0f}% {} its peers' median {} (tolerance {:.0f}%)",
                        reading(v, w.unit), std::fabs(off) * 100, off < 0 ? "below" : "above",
                        reading(centre, w.unit), w.tolerance * 100),
            std::fabs(off));
  }
  return true;
}

// Over the run: each rank's best reading in every case that watches the series against the
// best of its reference there (a link that trained narrow stays narrow; one that idles drops
// its generation for a while, so the best reading is the one judged).
void judge_reference(const RunData& run, Findings& out) {
  struct Best {
    double reading = -INFINITY, reference = -INFINITY;
    const WatchedSeries* w = nullptr;
    std::size_t cases = 0;
  };
  // Per series (few) a slot per rank: a map keyed by series and rank made every reading a
  // string comparison, and a list of cases per rank held the whole of a day's soak.
  std::map<std::string, std::vector<Best>> best;
  std::vector<std::pair<const std::string*, std::size_t>> order;  // first seen first
  for (const auto& c : run.cases)
    for (const auto& [series, w] : c.watched) {
      if (w.rule != s::Watch::kReference) continue;
      auto& of_rank = best[series];
      if (of_rank.size() < w.per_rank.size()) of_rank.resize(w.per_rank.size());
      const std::string* key = &best.find(series)->first;
      for (std::size_t r = 0; r < w.per_rank.size(); ++r) {
        if (std::isnan(w.per_rank[r])) continue;
        Best& b = of_rank[r];
        if (b.cases++ == 0) order.emplace_back(key, r);
        b.reading = std::max(b.reading, w.per_rank[r]);
        if (!std::isnan(w.reference_per_rank[r]))
          b.reference = std::max(b.reference, w.reference_per_rank[r]);
        b.w = &w;
      }
    }
  for (const auto& [series, rank] : order) {
    const Best& b = best[*series][rank];
    if (!std::isfinite(b.reference) || b.reading >= b.reference) continue;
    const auto detail = fmt::format("highest reading {}, its maximum {}, over {} case{}",
                                    reading(b.reading, b.w->unit), reading(b.reference, b.w->unit),
                                    b.cases, b.cases == 1 ? "" : "s");
    // The cases it was read in, again: only for the ranks that fail.
    for (const auto& c : run.cases) {
      const auto it = c.watched.find(*series);
      if (it == c.watched.end() || it->second.rule != s::Watch::kReference ||
          rank >= it->second.per_rank.size() || std::isnan(it->second.per_rank[rank]))
        continue;
      out.add(*series, *b.w, rank, c, detail, 0);
    }
  }
}

}  // namespace

std::vector<WatchFinding> find_watch_findings(const RunData& run) {
  Findings out(run);
  for (const auto& c : run.cases)
    for (const auto& [series, w] : c.watched) {
      if (w.rule == s::Watch::kZero) judge_zero(c, series, w, out);
      if (w.rule == s::Watch::kGrows) judge_grows(c, series, w, out);
      if (w.rule == s::Watch::kPeers) judge_peers(c, series, w, out);
      if (w.rule == s::Watch::kMargin) judge_margin(c, series, w, out);
    }
  judge_reference(run, out);
  return out.take();
}

std::vector<std::string> watch_not_judged(const RunData& run) {
  std::map<std::string, std::pair<std::string, std::size_t>> unjudged;  // series -> finding, cases
  for (const auto& c : run.cases)
    for (const auto& [series, w] : c.watched) {
      if (w.rule != s::Watch::kPeers) continue;
      Findings ignored(run);
      if (judge_peers(c, series, w, ignored)) continue;
      auto& [finding, cases] = unjudged[series];
      finding = w.finding;
      ++cases;
    }
  std::vector<std::string> out;
  for (const auto& [series, u] : unjudged)
    out.push_back(
        fmt::format("{} ({}): not compared in {} case{}: fewer than {} ranks had readings", series,
                    u.first, u.second, u.second == 1 ? "" : "s", kFewestPeers));
  return out;
}

}  // namespace preflight::report
