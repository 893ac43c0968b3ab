// Regression comparison of a run against a baseline: per case and size, is the per-iteration
// time different beyond the noise (Mann-Whitney U on the per-iteration samples) and by more
// than a practical threshold and than the run-to-run noise the runs' repetitions show? Time is
// lower-is-better. What changed in the environment comes
// first, since that is usually the cause.
#pragma once

#include <string>
#include <vector>

#include "reader/results_reader.hpp"

namespace preflight::report {

struct RegressionOptions {
  double alpha = 0.01;       // significance level of the two-sided test
  double min_change = 0.05;  // smaller changes are not flagged, however significant
};

// kUndecided: too few samples for the test ever to reach alpha (e.g. 5 against 5 at 0.01).
enum class Verdict { kSame, kSlower, kFaster, kUndecided };
const char* name_of(Verdict v);

struct PointComparison {
  std::string case_name;  // with benchmark, variant and repetition when they distinguish
  std::string size;       // size_bytes, or the point index
  double baseline_median = 0, current_median = 0;
  double change = 0;  // current / baseline - 1
  double p_value = 1;
  std::size_t baseline_samples = 0, current_samples = 0;
  // Run-to-run noise where the runs repeated the case (campaign repetitions): the larger spread
  // of the repetitions' medians, (max - min) / median, of the two runs; 0 without repetitions.
  // A change must exceed it (and min_change) to be flagged.
  double noise_floor = 0;
  Verdict verdict = Verdict::kSame;
};

struct EnvironmentChange {
  std::string what, baseline, current;
};

struct RegressionReport {
  std::vector<EnvironmentChange> environment;
  std::vector<PointComparison> points;
  std::vector<std::string> unmatched;  // cases in only one of the runs
  std::size_t count(Verdict v) const;
};

RegressionReport compare_runs(const RunData& baseline, const RunData& current,
                              const RegressionOptions& options);

}  // namespace preflight::report
