// Regression comparison of a run against one baseline run or a history of them: per case and
// size, did the time change beyond the run-to-run noise? The replicate is the repetition (one
// baseline run: the campaign's interleaved repetitions) or the run with its repetitions
// (several baselines: the run-to-run noise moderated over the comparison's sizes), never the
// iteration (analysis/replicates.hpp); the many sizes of one comparison are tested together
// with the false discovery rate held at alpha (two-stage Benjamini-Hochberg), and a change is
// flagged only when it is also at least min_change. What changed in the environment comes
// first, since that is usually the cause.
#pragma once

#include <string>
#include <vector>

#include "analysis/host_load.hpp"
#include "analysis/replicates.hpp"
#include "reader/results_reader.hpp"

namespace preflight::report {

struct RegressionOptions {
  double alpha = 0.01;       // false discovery rate over a comparison's sizes; interval level
  double min_change = 0.05;  // smaller changes are never flagged, however certain
  // Runs whose hosts gave shares of their CPU to others this far apart are not compared
  // (host_load.hpp).
  double max_host_contention_gap = kMaxHostContentionGap;
};

// kSame: the change's interval lies within +-min_change (or it is certain and smaller).
// kUndecided: neither flagged nor bounded within +-min_change: more replicates would tell.
enum class Verdict { kSame, kSlower, kFaster, kUndecided };
const char* name_of(Verdict v);

struct PointComparison {
  std::string case_name;  // name | benchmark | variant: its repetitions are the replicates
  std::string size;       // size_bytes, or the point's label
  // The replicates' comparison: geometric means (s), change and its interval, the run-to-run
  // noise it was judged against (the SD of a replicate's logarithm) at its level and how it was
  // estimated (test.runs), the replicates per side and the p-value before the multiple-test
  // control.
  ReplicateTest test;
  bool discovery = false;  // after the two-stage Benjamini-Hochberg over the comparison's sizes
  bool withheld = false;   // undecided: no baseline was measured in the current run's state
  std::size_t needed = 0;  // undecided: replicates per side that would bound min_change
  Verdict verdict = Verdict::kSame;
};

struct EnvironmentChange {
  std::string what, baseline, current;
};

struct RegressionReport {
  std::vector<EnvironmentChange> environment;  // against the first baseline judged
  // Why every verdict is withheld (no baseline's hosts were as loaded as the current run's);
  // empty: judged.
  std::string withheld;
  std::vector<std::string> notes;  // baselines left out, and why
  std::vector<PointComparison> points;
  std::vector<std::string> unmatched;  // cases and sizes in only one of the runs
  std::size_t count(Verdict v) const;
};

// `baselines`: one or more earlier runs of the same campaign, oldest first.
RegressionReport compare_runs(const std::vector<const RunData*>& baselines, const RunData& current,
                              const RegressionOptions& options);

}  // namespace preflight::report
