// How long and how often each point is timed: the same rules for every family.
#pragma once

namespace preflight {

struct TimingOptions {
  int warmup = 5;            // untimed operations before timing; they also estimate the cost
  int min_iterations = 5;    // timed samples at least ...
  int max_iterations = 100;  // ... and at most, whatever the budget says
  double budget_s = 0.2;     // time for the per-iteration phase of one point
  int batch_blocks = 5;      // back-to-back blocks after the per-iteration phase
  int corrupt_rank = -1;     // test-only: this rank damages its result before the check
};

// Validates the options; throws UsageError naming the option.
void validate(const TimingOptions& options);

// The number of timed iterations for an operation estimated to take `estimate_s` (the
// slowest rank's, so every rank decides the same): the budget's worth within the bounds.
int decide_iterations(const TimingOptions& options, double estimate_s);

}  // namespace preflight
