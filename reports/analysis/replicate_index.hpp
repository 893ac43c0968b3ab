// Each case's repetitions side by side: per case (without its repetition) and point, one value
// per repetition, for the run-to-run comparisons (regression, baseline rules, instance types).
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "analysis/case_view.hpp"
#include "analysis/replicates.hpp"
#include "reader/results_reader.hpp"

namespace preflight::report {

struct ReplicatePoint {
  std::vector<double> values;  // one per repetition that has this point, NaN where unmeasured
  std::string label;           // "1048576 B", as the case's point_label
  double size = 0;             // the declared x, NaN when none
};

struct ReplicateCase {
  const CaseData* first = nullptr;          // its first repetition, for names and meaning
  std::map<double, ReplicatePoint> points;  // by point key
};

// Replicate identity -> the case's repetitions. Cases whose status is not ok are left out.
using ReplicateIndex = std::map<std::string, ReplicateCase>;

// What one repetition contributes at a point: a time's median, a metric's value.
using ReplicateValue = std::function<double(const CaseView&, std::size_t point)>;

ReplicateIndex index_replicates(const RunData& run, const ReplicateValue& value);

// The baseline runs' values of one case (replicate identity) at one point: one entry per run
// that has it, oldest first; empty when none has.
RunReplicates replicates_at(const std::vector<ReplicateIndex>& history, const std::string& key,
                            double point_key);

}  // namespace preflight::report
