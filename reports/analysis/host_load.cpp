#include "analysis/host_load.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace preflight::report {

RunHostLoad run_host_load(const RunData& run) {
  double weight = 0, stolen = 0, foreign = 0;
  RunHostLoad load;
  for (const auto& c : run.cases) {
    if (!std::isfinite(c.host_cpu_stolen) || !std::isfinite(c.host_cpu_foreign) ||
        !(c.host_cpu_s > 0))
      continue;
    ++load.cases_measured;
    weight += c.host_cpu_s;
    stolen += c.host_cpu_stolen * c.host_cpu_s;
    foreign += c.host_cpu_foreign * c.host_cpu_s;
  }
  if (load.measured()) {
    load.stolen = stolen / weight;
    // Signed per case (tick rounding); pooled it can still be a little below zero, since the
    // kernel splits a task's time into user and system by sampling: none is none.
    load.foreign = std::max(0.0, foreign / weight);
  }
  return load;
}

std::string describe(const RunHostLoad& load) {
  if (!load.measured()) return "not measured";
  return fmt::format("{:.1f}% (hypervisor {:.1f}%, other processes {:.1f}%)",
                     load.contention() * 100, load.stolen * 100, load.foreign * 100);
}

ComparableRuns comparable_runs(const std::vector<const RunData*>& baselines, const RunData& current,
                               double max_gap) {
  ComparableRuns out;
  const auto now = run_host_load(current);
  for (const auto* b : baselines) {
    const auto load = run_host_load(*b);
    if (!now.measured() || !load.measured() ||
        std::abs(load.contention() - now.contention()) < max_gap) {
      out.baselines.push_back(b);
      continue;
    }
    out.notes.push_back(fmt::format(
        "baseline {} left out: others took {} of its hosts' CPU and {} of the current run's, "
        "{:.0f} points or more apart: not the same host state",
        b->path, describe(load), describe(now), max_gap * 100));
  }
  if (out.baselines.empty() && !baselines.empty())
    out.withheld = fmt::format(
        "others took {} of the hosts' CPU while {} ran, and no baseline's share was within "
        "{:.0f} points of that: every figure shifts with such a difference for a reason no "
        "change caused; rerun on quiet hosts, or give a baseline measured in the same state",
        describe(now), current.path, max_gap * 100);
  return out;
}

}  // namespace preflight::report
