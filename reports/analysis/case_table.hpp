// Each case of a run as a table of its points (all groups together): the figures a renderer
// lists case by case, read here so that no renderer reads a results file's columns.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "reader/results_reader.hpp"

namespace preflight::report {

struct CaseTable {
  std::string group_name, name, status;
  std::optional<std::string> timeout_message;  // a timed-out case's message, when it has one
  bool has_points = false;  // false: a case that ended before its first point (no table)
  std::string x_column;     // the declared x-axis, else "point" (the point's index)
  std::string x_unit;       // the x-axis column's unit
  struct Metric {
    std::string name, unit;
  };
  std::vector<Metric> metrics;  // the family's metrics (CaseView::metrics)
  struct Row {
    double x = 0, iterations = 0, time_median = 0, time_p95 = 0, time_cv = 0, wrong = 0;
    std::vector<double> metrics;  // one per CaseTable::metrics
  };
  std::vector<Row> rows;  // all groups together; per-group rows are in the file
};

std::vector<CaseTable> case_tables(const RunData& run);

// How many of the run's cases failed and how many timed out.
struct CaseOutcomes {
  std::size_t failed = 0, timed_out = 0;
};
CaseOutcomes case_outcomes(const RunData& run);

}  // namespace preflight::report
