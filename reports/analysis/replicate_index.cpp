#include "analysis/replicate_index.hpp"

#include "preflight/schema/layout.hpp"

namespace preflight::report {

ReplicateIndex index_replicates(const RunData& run, const ReplicateValue& value) {
  ReplicateIndex index;
  for (const auto& c : run.cases) {
    if (c.status != schema::case_status::kOk) continue;
    const CaseView v(c);
    auto& entry = index[v.replicate_identity()];
    if (entry.first == nullptr) entry.first = &c;
    for (std::size_t p = 0; p < v.points(); ++p) {
      auto& point = entry.points[v.point_key(p)];
      if (point.label.empty()) {
        point.label = v.point_label(p);
        point.size = v.size_at(p);
      }
      point.values.push_back(value(v, p));
    }
  }
  return index;
}

RunReplicates replicates_at(const std::vector<ReplicateIndex>& history, const std::string& key,
                            double point_key) {
  RunReplicates out;
  for (const auto& run : history)
    if (const auto c = run.find(key); c != run.end())
      if (const auto p = c->second.points.find(point_key); p != c->second.points.end())
        out.push_back(p->second.values);
  return out;
}

}  // namespace preflight::report
