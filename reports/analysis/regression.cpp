#include "analysis/regression.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "preflight/common/stats.hpp"

#include "analysis/case_view.hpp"
#include "analysis/replicate_index.hpp"

namespace preflight::report {
namespace {

std::string joined_values(const std::vector<std::string>& values) {
  std::set<std::string> unique(values.begin(), values.end());
  std::string out;
  for (const auto& v : unique)
    out += (out.empty() ? "" : ", ") + (v.empty() ? std::string("(none)") : v);
  return out;
}

std::vector<EnvironmentChange> environment_changes(const RunData& a, const RunData& b) {
  std::vector<EnvironmentChange> changes;
  auto compare = [&](const std::string& what, const std::string& x, const std::string& y) {
    if (x != y) changes.push_back({what, x, y});
  };
  compare("preflight revision", a.git_revision, b.git_revision);
  compare("ranks", std::to_string(a.world_size), std::to_string(b.world_size));
  compare("nodes", std::to_string(a.node_count), std::to_string(b.node_count));
  compare("config", a.config, b.config);
  for (const char* column :
       {"host", "cpu_model", "kernel", "mpi_library", "gpu_model", "gpu_driver", "cuda_runtime",
        "nccl_version", "nccl_built_version", "nccl_env", "gpu_memory_bytes", "gpu_nvlinks"}) {
    const auto ia = a.environment.find(column), ib = b.environment.find(column);
    if (ia == a.environment.end() || ib == b.environment.end()) continue;
    compare(column, joined_values(ia->second), joined_values(ib->second));
  }
  return changes;
}

// The hosts' load of the runs, when a baseline was left out for it: the usual cause of a shift
// of every figure.
void add_host_load(RegressionReport& report, const std::vector<const RunData*>& baselines,
                   const ComparableRuns& comparable, const RunData& current) {
  if (comparable.baselines.size() == baselines.size()) return;
  for (const auto* b : baselines)
    report.environment.push_back({fmt::format("host CPU others took ({})", b->path),
                                  describe(run_host_load(*b)), describe(run_host_load(current))});
}

// The reference amount of work per point, from the first baseline run's first repetition: a
// time-bounded read moves more or fewer bytes, not in more or less time, so every repetition's
// time is scaled to the time that amount would take.
using References = std::map<std::string, std::map<double, double>>;
References reference_work(const RunData& run) {
  References refs;
  for (const auto& c : run.cases) {
    const CaseView v(c);
    auto& points = refs[v.replicate_identity()];
    for (std::size_t p = 0; p < v.points(); ++p) points.emplace(v.point_key(p), v.median_work(p));
  }
  return refs;
}

// Each repetition's value at a point: the median of its comparable per-iteration times.
ReplicateIndex time_replicates(const RunData& run, const References& refs) {
  return index_replicates(run, [&](const CaseView& v, std::size_t p) {
    if (p >= v.c.iteration_times.size() || v.c.iteration_times[p].empty())
      return std::numeric_limits<double>::quiet_NaN();
    double reference = std::numeric_limits<double>::quiet_NaN();
    if (const auto it = refs.find(v.replicate_identity()); it != refs.end())
      if (const auto q = it->second.find(v.point_key(p)); q != it->second.end())
        reference = q->second;
    const auto times = v.comparable_times(p, reference);
    return times.empty() ? std::numeric_limits<double>::quiet_NaN() : median(times);
  });
}

std::string size_text(const ReplicatePoint& point) {
  return std::isnan(point.size) ? point.label : fmt::format("{:.0f}", point.size);
}

}  // namespace

const char* name_of(Verdict v) {
  switch (v) {
    case Verdict::kSlower:
      return "slower";
    case Verdict::kFaster:
      return "faster";
    case Verdict::kUndecided:
      return "undecided";
    default:
      return "same";
  }
}

std::size_t RegressionReport::count(Verdict v) const {
  return static_cast<std::size_t>(std::count_if(
      points.begin(), points.end(), [v](const PointComparison& p) { return p.verdict == v; }));
}

RegressionReport compare_runs(const std::vector<const RunData*>& baselines, const RunData& current,
                              const RegressionOptions& options) {
  RegressionReport report;
  if (baselines.empty()) return report;
  const auto comparable = comparable_runs(baselines, current, options.max_host_contention_gap);
  report.withheld = comparable.withheld;
  report.notes = comparable.notes;
  // Judged against the baselines in the current run's host state; with none, against them all,
  // only to show the figures.
  const auto& judged = comparable.baselines.empty() ? baselines : comparable.baselines;
  report.environment = environment_changes(*judged.front(), current);
  add_host_load(report, baselines, comparable, current);
  const auto refs = reference_work(*judged.front());
  std::vector<ReplicateIndex> history;
  for (const auto* b : judged) history.push_back(time_replicates(*b, refs));
  const auto now = time_replicates(current, refs);
  std::vector<ReplicatePair> pairs;
  for (const auto& [key, c] : now) {
    for (const auto& [point_key, point] : c.points) {
      auto before = replicates_at(history, key, point_key);
      if (before.empty()) {
        report.unmatched.push_back(
            fmt::format("only in {}: {}, {}", current.path, key, point.label));
        continue;
      }
      PointComparison p;
      p.case_name = key;
      p.size = size_text(point);
      report.points.push_back(p);
      pairs.push_back({std::move(before), {point.values}});
    }
  }
  // All sizes together: with several baselines their run-level noise is moderated over them.
  const auto tests = compare_replicates(pairs, options.alpha);
  for (std::size_t i = 0; i < tests.size(); ++i) report.points[i].test = tests[i];
  std::vector<double> p_values;
  for (const auto& p : report.points)
    p_values.push_back(p.test.testable ? p.test.p_value : std::numeric_limits<double>::quiet_NaN());
  const auto discoveries = two_stage_benjamini_hochberg(p_values, options.alpha);
  const auto testable = static_cast<std::size_t>(
      std::count_if(p_values.begin(), p_values.end(), [](double p) { return !std::isnan(p); }));
  for (std::size_t i = 0; i < report.points.size(); ++i) {
    auto& p = report.points[i];
    p.discovery = discoveries[i];
    if (!report.withheld.empty()) {
      p.verdict = Verdict::kUndecided;
      p.withheld = true;
      continue;
    }
    switch (judge_shift(p.test, p.discovery, options.min_change)) {
      case Shift::kHigher:
        p.verdict = Verdict::kSlower;
        break;
      case Shift::kLower:
        p.verdict = Verdict::kFaster;
        break;
      case Shift::kNone:
        p.verdict = Verdict::kSame;
        break;
      case Shift::kUndecided:
        p.verdict = Verdict::kUndecided;
        p.needed = replicates_to_decide(p.test, options.min_change, options.alpha, testable);
        break;
    }
  }
  for (std::size_t b = 0; b < history.size(); ++b)
    for (const auto& [key, c] : history[b])
      for (const auto& [point_key, point] : c.points) {
        const auto it = now.find(key);
        if (it == now.end() || !it->second.points.count(point_key))
          report.unmatched.push_back(
              fmt::format("only in {}: {}, {}", judged[b]->path, key, point.label));
      }
  std::sort(report.unmatched.begin(), report.unmatched.end());
  report.unmatched.erase(std::unique(report.unmatched.begin(), report.unmatched.end()),
                         report.unmatched.end());
  return report;
}

}  // namespace preflight::report
