#include "analysis/replicate_index.hpp"

namespace preflight::report {

ReplicateIndex index_replicates(const RunData& run, const ReplicateValue& value) {
  ReplicateIndex index;
  for (const auto& c : run.cases) {
    if (c.status != "ok") continue;
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

}  // namespace preflight::report
