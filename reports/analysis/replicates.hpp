// Run-to-run comparison of one figure between a baseline and a current run, with the repetition
// or the run as the unit of replication, never the iteration: iterations of one run share the
// machine's state (another job, a frequency step, the page cache, placement), so pooling them
// makes any shift between runs look certain. Each replicate is one repetition's (or one run's)
// typical value; the comparison is on their logarithms, so a change reads as a ratio.
//   - One run per side: the replicates are the runs' repetitions (interleaved in the campaign),
//     and the noise is their spread within each run.
//   - Several baseline runs (a history of known-good runs): the replicates are the runs, each
//     the mean of its repetitions, and the noise is the spread between runs, which includes
//     whatever differs from one launch to the next; the current run is judged against it.
// Generic: it knows values, not families or metrics.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace preflight::report {

// One side of a comparison: per run, its repetitions' values (each > 0; NaNs are dropped).
using RunReplicates = std::vector<std::vector<double>>;

enum class ReplicateLevel { kRepetitions, kRuns };
const char* name_of(ReplicateLevel level);

struct ReplicateTest {
  ReplicateLevel level = ReplicateLevel::kRepetitions;
  std::size_t baseline_n = 0, current_n = 0;  // replicates per side at that level
  double baseline = 0, current = 0;           // geometric means of the replicates
  double change = 0;                          // current / baseline - 1
  double ci_low = 0, ci_high = 0;             // the change's (1 - alpha) interval
  double noise = 0;       // spread of one replicate: the SD of its logarithm (about its CV)
  double df = 0;          // degrees of freedom of that estimate
  double p_value = 1;     // two-sided t test on the logarithms, before any multiple-test control
  bool testable = false;  // enough replicates to estimate the noise (df >= 1)
};

// alpha sets the interval's level.
ReplicateTest compare_replicates(const RunReplicates& baseline, const RunReplicates& current,
                                 double alpha);

// Replicates per side (at the test's level) with which a change of `change` would be told from
// no change at `alpha`, the noise being what it was; 0 when the noise is unknown.
std::size_t replicates_to_decide(const ReplicateTest& t, double change, double alpha);

// What a comparison concludes about one figure, once its test and the multiple-test decision
// (`discovery`) are known; shared by the regression, the baseline rules and the instance
// comparison. kHigher / kLower: a discovery and a change of at least min_change. kNone: the
// change's interval lies within +-min_change, or the change is a discovery smaller than that.
// kUndecided: neither; more replicates would tell (replicates_to_decide).
enum class Shift { kNone, kHigher, kLower, kUndecided };
Shift judge_shift(const ReplicateTest& t, bool discovery, double min_change);

// Benjamini-Hochberg: which of these p-values are discoveries with the false discovery rate
// held at `q`. When no effect is real it also holds the chance of any false alarm at q, so 80
// sizes compared at once do not give one false alarm per run.
std::vector<bool> benjamini_hochberg(const std::vector<double>& p_values, double q);

// Student's t: two-sided p of |T| >= t with df degrees of freedom, and the quantile.
double student_t_two_sided_p(double t, double df);
double student_t_quantile(double p, double df);  // P(T <= x) = p

}  // namespace preflight::report
