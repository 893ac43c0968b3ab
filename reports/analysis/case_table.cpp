#include "analysis/case_table.hpp"

#include "analysis/case_view.hpp"

namespace preflight::report {
namespace {

CaseTable case_table(const CaseData& c) {
  CaseTable t;
  t.group_name = c.group_name;
  t.name = c.name;
  t.status = c.status;
  if (c.status == schema::case_status::kTimeout)
    t.timeout_message = c.get(schema::harness::kTimeoutMessage).value_or("");
  t.has_points = c.rows() != 0;
  if (!t.has_points) return t;
  const CaseView v(c);
  t.x_column = c.stats.count(c.meaning.x_axis) ? c.meaning.x_axis : "point";
  t.x_unit = v.x_unit();
  for (const auto& m : v.metrics()) t.metrics.push_back({m, c.stats.at(m).unit});
  const auto& group = c.stats.at("group").numbers;
  for (std::size_t r = 0; r < c.rows(); ++r) {
    if (group[r] != -1) continue;
    const auto col = [&](const std::string& name) { return c.stats.at(name).numbers[r]; };
    CaseTable::Row row{col(t.x_column),
                       col("iterations"),
                       col("time_median"),
                       col("time_p95"),
                       col("time_cv"),
                       col("wrong"),
                       {}};
    for (const auto& m : t.metrics) row.metrics.push_back(c.stats.at(m.name).numbers[r]);
    t.rows.push_back(std::move(row));
  }
  return t;
}

}  // namespace

std::vector<CaseTable> case_tables(const RunData& run) {
  std::vector<CaseTable> out;
  out.reserve(run.cases.size());
  for (const auto& c : run.cases) out.push_back(case_table(c));
  return out;
}

CaseOutcomes case_outcomes(const RunData& run) {
  CaseOutcomes n;
  for (const auto& c : run.cases) {
    n.failed += c.status == schema::case_status::kFailed;
    n.timed_out += c.status == schema::case_status::kTimeout;
  }
  return n;
}

}  // namespace preflight::report
