#include "analysis/headline_figures.hpp"

#include <cmath>
#include <set>

#include "analysis/case_view.hpp"
#include "preflight/schema/layout.hpp"

namespace preflight::report {

std::vector<HeadlineFigure> headline_figures(const RunData& run) {
  std::vector<HeadlineFigure> out;
  for (const auto& c : run.cases) {
    const CaseView view(c);
    const std::string metric = view.primary_metric();
    if (metric.empty() || c.status != schema::case_status::kOk) continue;
    const auto column = c.stats.find(metric);
    const std::string unit = column == c.stats.end() ? "" : column->second.unit;
    for (std::size_t p = 0; p < view.points(); ++p) {
      const double value = view.metric_at(metric, p);
      if (std::isnan(value)) continue;
      out.push_back({c.group_name + " " + c.name, view.point_label(p), metric, unit, value});
    }
  }
  return out;
}

std::map<std::string, std::string> host_of_node(const RunData& run) {
  std::map<std::string, std::string> out;
  const auto names = run.environment.find(std::string(schema::env::kNodeName.name));
  const auto hosts = run.environment.find(std::string(schema::env::kHost.name));
  if (names == run.environment.end() || hosts == run.environment.end()) return out;
  for (std::size_t i = 0; i < names->second.size() && i < hosts->second.size(); ++i)
    out.emplace(names->second[i], hosts->second[i]);
  return out;
}

std::string rank0_host(const RunData& run) {
  const auto hosts = run.environment.find(std::string(schema::env::kHost.name));
  return hosts == run.environment.end() || hosts->second.empty() ? std::string()
                                                                 : hosts->second.front();
}

std::vector<std::string> distinct_hosts(const RunData& run) {
  std::vector<std::string> names;
  const auto hosts = run.environment.find(std::string(schema::env::kHost.name));
  if (hosts == run.environment.end()) return names;
  std::set<std::string> seen;
  for (const auto& h : hosts->second)
    if (seen.insert(h).second) names.push_back(h);
  return names;
}

}  // namespace preflight::report
