#include "analysis/regression.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include <set>
#include "harness/stats.hpp"

#include "analysis/case_view.hpp"
#include "analysis/mann_whitney.hpp"

namespace preflight::report {
namespace {

std::string param(const CaseData& c, const char* name) {
  const auto it = c.params.find(name);
  return it == c.params.end() ? std::string() : it->second;
}

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
  for (const char* column : {"host", "cpu_model", "kernel", "mpi_library", "gpu_model",
                             "gpu_driver", "cuda_runtime", "nccl_version"}) {
    const auto ia = a.environment.find(column), ib = b.environment.find(column);
    if (ia == a.environment.end() || ib == b.environment.end()) continue;
    compare(column, joined_values(ia->second), joined_values(ib->second));
  }
  return changes;
}

// The same case without its repetition: repetitions of one case are run-to-run replicates.
std::string replicate_key(const CaseData& c) {
  return fmt::format("{} | {} | {}", c.name, param(c, "benchmark"), param(c, "variant"));
}

// Run-to-run noise, where a run repeated its cases: per case (without repetition) and point,
// the spread of the repetitions' medians, (max - min) / median.
using NoiseFloors = std::map<std::string, std::vector<double>>;
NoiseFloors repetition_spread(const RunData& run) {
  std::map<std::string, std::vector<std::vector<double>>> medians;  // key -> point -> medians
  for (const auto& c : run.cases) {
    auto& points = medians[replicate_key(c)];
    points.resize(std::max(points.size(), c.iteration_times.size()));
    for (std::size_t p = 0; p < c.iteration_times.size(); ++p)
      if (!c.iteration_times[p].empty()) {
        const CaseView v(c);
        const auto times = v.comparable_times(p, v.median_work(p));
        points[p].push_back(median(times));
      }
  }
  NoiseFloors floors;
  for (const auto& [key, points] : medians)
    for (std::size_t p = 0; p < points.size(); ++p) {
      auto& floor = floors[key];
      floor.resize(points.size(), 0);
      if (points[p].size() < 2) continue;
      const auto [lo, hi] = std::minmax_element(points[p].begin(), points[p].end());
      const double m = median(points[p]);
      if (m > 0) floor[p] = (*hi - *lo) / m;
    }
  return floors;
}

double floor_of(const NoiseFloors& floors, const std::string& key, std::size_t point) {
  const auto it = floors.find(key);
  return it == floors.end() || point >= it->second.size() ? 0 : it->second[point];
}

// The smallest p-value the test can give for these sample counts: that of samples that do not
// overlap at all.
double smallest_p(std::size_t n1, std::size_t n2) {
  std::vector<double> a(n1), b(n2);
  for (std::size_t i = 0; i < n1; ++i) a[i] = static_cast<double>(i);
  for (std::size_t i = 0; i < n2; ++i) b[i] = static_cast<double>(n1 + i);
  return mann_whitney(a, b).p_value;
}

// `base_point` and `point` are the same size (or block size) in the two runs.
PointComparison compare_point(const CaseData& base, std::size_t base_point, const CaseData& now,
                              std::size_t point, const RegressionOptions& options,
                              double noise_floor) {
  PointComparison p;
  p.case_name = CaseView(now).identity();
  // A size-banded x is a plain size; any other point reads as its label ("262144 B blocks").
  const CaseView v(now);
  const double size = v.c.meaning.bands == schema::Bands::kSizeBands ? v.size_at(point) : NAN;
  p.size = std::isnan(size) ? v.point_label(point) : fmt::format("{:.0f}", size);
  // A time-bounded read moves more or fewer bytes, not in more or less time: compare the time
  // each would take for the baseline's typical amount.
  const double reference = CaseView(base).median_work(base_point);
  const auto a = CaseView(base).comparable_times(base_point, reference);
  const auto b = CaseView(now).comparable_times(point, reference);
  p.baseline_samples = a.size();
  p.current_samples = b.size();
  p.baseline_median = median(a);
  p.current_median = median(b);
  if (a.empty() || b.empty() || !(p.baseline_median > 0)) return p;
  p.change = p.current_median / p.baseline_median - 1;
  p.p_value = mann_whitney(a, b).p_value;
  p.noise_floor = noise_floor;
  if (smallest_p(a.size(), b.size()) >= options.alpha) {
    p.verdict = Verdict::kUndecided;
    return p;
  }
  if (p.p_value < options.alpha && std::abs(p.change) >= std::max(options.min_change, noise_floor))
    p.verdict = p.change > 0 ? Verdict::kSlower : Verdict::kFaster;
  return p;
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

RegressionReport compare_runs(const RunData& baseline, const RunData& current,
                              const RegressionOptions& options) {
  RegressionReport report;
  report.environment = environment_changes(baseline, current);
  std::map<std::string, const CaseData*> base_cases;
  for (const auto& c : baseline.cases) base_cases[CaseView(c).identity()] = &c;
  std::set<std::string> matched;
  const auto base_noise = repetition_spread(baseline), current_noise = repetition_spread(current);
  for (const auto& c : current.cases) {
    const auto it = base_cases.find(CaseView(c).identity());
    if (it == base_cases.end()) {
      report.unmatched.push_back("only in " + current.path + ": " + CaseView(c).identity());
      continue;
    }
    matched.insert(it->first);
    // Points are matched by their size (or block size), never by position.
    const CaseView now(c), before(*it->second);
    const auto key = replicate_key(c);
    for (std::size_t p = 0; p < now.points() && p < c.iteration_times.size(); ++p) {
      const std::size_t q = before.find_point(now.point_key(p));
      if (q == SIZE_MAX || q >= it->second->iteration_times.size()) {
        report.unmatched.push_back(fmt::format("only in {}: {}, {}", current.path,
                                               CaseView(c).identity(), now.point_label(p)));
        continue;
      }
      const double noise = std::max(floor_of(base_noise, key, q), floor_of(current_noise, key, p));
      report.points.push_back(compare_point(*it->second, q, c, p, options, noise));
    }
    for (std::size_t q = 0; q < before.points(); ++q)
      if (now.find_point(before.point_key(q)) == SIZE_MAX)
        report.unmatched.push_back(fmt::format("only in {}: {}, {}", baseline.path,
                                               CaseView(c).identity(), before.point_label(q)));
  }
  for (const auto& [key, c] : base_cases)
    if (!matched.count(key)) report.unmatched.push_back("only in " + baseline.path + ": " + key);
  return report;
}

}  // namespace preflight::report
