// How long and how often each point is timed: the same rules for every family.
#pragma once

#include <string_view>

#include "harness/config/config_node.hpp"
#include "preflight/common/stats.hpp"

namespace preflight {

struct TimingOptions {
  int warmup = 5;            // untimed operations before timing; they also estimate the cost
  int min_iterations = 5;    // timed samples at least ...
  int max_iterations = 100;  // ... and at most
  double budget_s = 0.2;     // time for the per-iteration phase of one point
  double precision = 0;      // stop once the median's 95% CI is within +-this (0.01 = 1%); 0: off
  int batch_blocks = 5;      // back-to-back blocks after the per-iteration phase
  double timeout_s = 300;    // the watchdog's limit on a case making no progress
  double case_budget_s = 0;  // the longest one case may run while progressing; 0: no limit
};

// The keys of a `timing:` map.
inline const std::vector<std::string> kTimingKeys = {"warmup",  "min_iters",  "max_iters",
                                                     "budget",  "precision",  "batch_blocks",
                                                     "timeout", "case_budget"};

// Reads a `timing:` map over `defaults`; throws UsageError at the key's position.
TimingOptions read_timing(const ConfigNode& node, const TimingOptions& defaults);

// The number of timed iterations for an operation estimated to take `estimate_s` (the
// slowest rank's, so every rank decides the same): the budget's worth within the bounds.
int decide_iterations(const TimingOptions& options, double estimate_s);

// How the per-iteration phase of a point ended.
enum class StopReason { kMaxIterations, kBudget, kPrecision };
// The name the results file gives it (schema::stop_reason).
std::string_view name_of(StopReason reason);

}  // namespace preflight
