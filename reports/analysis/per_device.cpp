#include "analysis/per_device.hpp"

#include <cmath>

#include "analysis/case_view.hpp"
#include "preflight/common/stats.hpp"

namespace preflight::report {
namespace {

// The point of the most work: where a device's own rate shows best over the harness's costs.
std::size_t heaviest_point(const CaseView& v) {
  std::size_t best = 0;
  for (std::size_t p = 1; p < v.points(); ++p)
    if (!(v.size_at(p) <= v.size_at(best))) best = p;
  return best;
}

}  // namespace

std::vector<PerDeviceRates> per_device_rates(const RunData& run) {
  std::vector<PerDeviceRates> out;
  for (const auto& c : run.cases) {
    const CaseView v(c);
    const std::string metric = v.primary_metric();
    // Only where each rank works on its own (peer_late 0): in a collective a rank's own time is
    // its role in the algorithm and when the others arrive, no measure of its device.
    if (!c.meaning.peer_slow || c.meaning.peer_late || metric.empty() ||
        !c.meaning.work_counter.empty() || c.rank_medians.empty())
      continue;
    const auto& column = c.stats.at(metric);
    if (column.per_iteration != schema::PerIteration::kInverseTime) continue;
    PerDeviceRates d;
    d.c = &c;
    d.point = heaviest_point(v);
    d.metric = metric;
    d.unit = column.unit;
    // value x time is the point's work: each rank's rate is that work over its own median time.
    const double work = v.metric_at(metric, d.point) * v.group_time(d.point);
    if (!(work > 0) || d.point >= c.rank_medians.size()) continue;
    const auto& medians = c.rank_medians[d.point];
    for (std::size_t r = 0; r < medians.size(); ++r)
      if (medians[r] > 0) {
        d.ranks.push_back(static_cast<int>(r));
        d.rates.push_back(work / medians[r]);
      }
    if (d.rates.size() < 2) continue;
    d.peers_median = median(d.rates);
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace preflight::report
