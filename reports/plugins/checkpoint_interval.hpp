// The checkpoint interval a save time allows (first-order model of Young, 1974, and Daly,
// 2006): with a job mean time between failures M, a blocking save of delta seconds, a restore
// of R seconds after each failure and a save every tau seconds of work, the run loses
//   delta / tau      to saving,
//   tau / (2 M)      to recomputing, after each failure, half an interval's work on average,
//   R / M            to restoring, once per failure,
// of its time; tau* = sqrt(2 delta M) minimises the sum, where the first two terms are equal,
// sqrt(delta / (2 M)) each.
#pragma once

namespace preflight::report::plugins {

// The job's MTBF: failures of its nodes are independent, so node MTBF / nodes. Infinite for an
// infinite node MTBF; NaN for no nodes.
double job_mtbf_s(double node_mtbf_s, double nodes);

// sqrt(2 x save x job MTBF): 0 when the save takes no time, infinite when failures never come.
double young_daly_interval_s(double save_s, double job_mtbf_s);

struct LostFraction {
  double saving = 0;     // delta / tau
  double recompute = 0;  // tau / (2 M)
  double restore = 0;    // R / M
  double total() const { return saving + recompute + restore; }
};

// At interval tau; at tau = infinity nothing is saved and a failure loses unbounded work.
LostFraction lost_fraction(double interval_s, double save_s, double restore_s, double job_mtbf_s);
// At tau*, in closed form (so that the limits hold: save -> 0 leaves R / M; M -> infinity, 0).
LostFraction lost_fraction_at_optimum(double save_s, double restore_s, double job_mtbf_s);

}  // namespace preflight::report::plugins
