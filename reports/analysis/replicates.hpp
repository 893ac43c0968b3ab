// Run-to-run comparison of one figure between a baseline and a current run, with the repetition
// or the run as the unit of replication, never the iteration: iterations of one run share the
// machine's state (another job, a frequency step, the page cache, placement), so pooling them
// makes any shift between runs look certain. Each replicate is one repetition's (or one run's)
// typical value; the comparison is on their logarithms, so a change reads as a ratio.
//   - One run per side: the replicates are the runs' repetitions (interleaved in the campaign),
//     and the noise is their spread within each run. The p-value is the exact rank-sum
//     (Mann-Whitney) test's: it depends only on how the two runs' repetitions interleave, so it
//     can never be smaller than 2 / C(m + n, m), complete separation. Repetitions of one launch
//     share what that launch got (placement, memory layout, a neighbour's load), and two launches
//     can differ at one size by more than their repetitions spread; a t test would call such a
//     shift certain the tighter the repetitions are, the rank test only as certain as the
//     number of repetitions allows (5 v 5: 0.0079, 7 v 7: 0.00058). It is a bound, not a model
//     of the launch-to-launch spread: with Benjamini-Hochberg over m sizes a lone size can be
//     flagged once 2 / C(2n, n) <= alpha / m (7 a side: m <= 17), and one launch's shift can
//     then be a false alarm; several baseline runs measure that spread (below). The change's
//     interval is the t interval on the logarithms, so it can hold 0 where the rank test finds
//     a discovery, and the reverse.
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
  double noise = 0;  // spread of one replicate: the SD of its logarithm (about its CV)
  double df = 0;     // degrees of freedom of that estimate
  // Two-sided, before any multiple-test control: the exact rank-sum test of the repetitions
  // (one run per side), or the t test on the runs' logarithms (several baseline runs).
  double p_value = 1;
  bool testable = false;  // enough replicates to estimate the noise (df >= 1)
};

// alpha sets the interval's level.
ReplicateTest compare_replicates(const RunReplicates& baseline, const RunReplicates& current,
                                 double alpha);

// Replicates per side (at the test's level) with which a change of `change` would be told from
// no change at `alpha`, the noise being what it was, when it is one of `tests` tested together:
// at the level of repetitions also enough for the rank test to reach alpha / tests at all.
// 0 when the noise is unknown.
std::size_t replicates_to_decide(const ReplicateTest& t, double change, double alpha,
                                 std::size_t tests = 1);

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

// The exact two-sided p of the rank-sum (Mann-Whitney) test of two samples: how unusual the
// count of pairs in which b's value exceeds a's (ties count half) is when every interleaving of
// the two is equally likely, counted while a.size() * b.size() <= 2500 (e.g. 50 x 50); past
// that a normal approximation (with the ties' correction). With ties the count is that of
// untied samples at the half-counted U: conservative rather than exact.
double rank_sum_two_sided_p(const std::vector<double>& a, const std::vector<double>& b);
// Its smallest value with m and n values: 2 / C(m + n, m), at most 1.
double smallest_rank_sum_p(std::size_t m, std::size_t n);

// Student's t: two-sided p of |T| >= t with df degrees of freedom, and the quantile.
double student_t_two_sided_p(double t, double df);
double student_t_quantile(double p, double df);  // P(T <= x) = p

}  // namespace preflight::report
