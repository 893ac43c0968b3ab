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
//     of the launch-to-launch spread: with the two-stage Benjamini-Hochberg over m sizes a lone
//     size can be flagged once 2 / C(2n, n) <= alpha / (1 + alpha) / m (7 a side: m <= 16),
//     and one launch's shift can then be a false alarm; several baseline runs measure that spread
//     (below). The change's interval is the t interval on the logarithms, so it can hold 0 where
//     the rank test finds a discovery, and the reverse.
//   - Several baseline runs (a history of known-good runs): both levels of replication count, the
//     runs and the repetitions inside each (a two-level model on the logarithms): repetition j of
//     run i is mu_side + b_i + e_ij, with the launch effect b_i of variance sigma_b^2 and the
//     repetition's own e_ij of variance sigma_w^2, so a run's mean has variance
//     V_i = sigma_b^2 + sigma_w^2 / r_i. Per point, sigma_w^2 is the repetitions' spread about
//     their run's mean pooled over every run of both sides, the current one's too (many degrees
//     of freedom: 16 with 4 runs of 5), and the run-level variance is the spread of the run means
//     about their side's mean (df = runs - 2 over both sides: 2 with 3 baselines and 1 current
//     run). With balanced runs that alone is the t test on run means, whose 99% quantile at df 2
//     is 9.9: a 24% change among run means 1.3% apart stayed undecided. Two things give the power
//     back, neither by pretending to know more than was measured:
//       (a) the run-level variance is moderated over every point of the comparison
//           (empirical Bayes, analysis/variance_prior.hpp: limma's moderated t): a point's few
//           degrees of freedom borrow the strength of the others', as much as the points'
//           variances agree (d0 + 2 degrees of freedom, at most the sum over all points);
//       (b) the launch component is what the moderated run-level variance holds beyond the
//           repetitions' share, sigma_b^2 = max(0, V - sigma_w^2 h) (h: the mean 1 / r over the
//           runs whose spread measured V), never below zero: a run's mean is never more precise
//           than its own repetitions allow, however closely the few run means happened to agree.
//     The change d (current run means' mean minus the baselines') then has variance
//     sigma_b^2 (1/k + 1/m) + sigma_w^2 (sum 1/r_i / k^2 + sum 1/r_j / m^2) over k baseline and m
//     current runs, so the current run's repetitions count in its mean's precision, and
//     t = d / se follows Student's t with the moderated degrees of freedom (the floor in (b)
//     only raises se: conservative). Pooling the repetitions' df into the run level whenever
//     sigma_b^2 looks like zero would give more power still, but that pre-test inflates the
//     false alarms (Bancroft's "sometimes pool"); the floor does not.
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

// How the run-to-run noise of a point judged at the level of runs was estimated, so that a reader
// can follow its verdict.
struct RunLevelNoise {
  double own = 0, own_df = 0;  // the SD of this point's run means about their sides' means
  // The moderation over the comparison's points: prior_df 0 when not moderated (one point, or
  // most variances zero), infinite when the points' variances agreed more than chance allows.
  double prior_df = 0;
  std::size_t prior_points = 0;
  double repetition = 0, repetition_df = 0;  // SD of one repetition about its run's mean, pooled
  double repetitions_per_run = 0;            // the runs' mean count (for replicates_to_decide)
  bool floored = false;  // the repetitions' spread set the noise: the runs' alone was smaller
};

struct ReplicateTest {
  ReplicateLevel level = ReplicateLevel::kRepetitions;
  std::size_t baseline_n = 0, current_n = 0;  // replicates per side at that level
  double baseline = 0, current = 0;           // geometric means of the replicates
  double change = 0;                          // current / baseline - 1
  double ci_low = 0, ci_high = 0;             // the change's (1 - alpha) interval
  // Spread of one replicate: the SD of its logarithm (about its CV). At the level of runs, that
  // of one run's mean as the model estimates it (moderated, never below the repetitions' share).
  double noise = 0;
  double df = 0;  // degrees of freedom of that estimate (moderated: d0 + own, capped)
  // Two-sided, before any multiple-test control: the exact rank-sum test of the repetitions
  // (one run per side), or the moderated t test of the runs (several baseline runs).
  double p_value = 1;
  bool testable = false;  // enough replicates to estimate the noise (df >= 1)
  RunLevelNoise runs;     // at the level of runs only
};

// One point (case and size) of a comparison: its baseline runs and its current run(s).
struct ReplicatePair {
  RunReplicates baseline, current;
};

// Every point of one comparison at once: where several baseline runs exist, the run-level noise
// is moderated over all the points judged at the level of runs (above). alpha sets the
// interval's level.
std::vector<ReplicateTest> compare_replicates(const std::vector<ReplicatePair>& points,
                                              double alpha);
// One point alone (nothing to moderate with).
ReplicateTest compare_replicates(const RunReplicates& baseline, const RunReplicates& current,
                                 double alpha);

// The noise a test was judged against, for the evidence: "noise 2.1%" at the level of
// repetitions; at the level of runs, "run-to-run noise 1.3% (df 7.4: ...)" with the point's
// own spread, the moderation and the repetitions' share.
std::string describe_noise(const ReplicateTest& t);

// Replicates per side (at the test's level) with which a change of `change` would be told from
// no change at `alpha`, the noise being what it was, when it is one of `tests` tested together:
// at the level of repetitions also enough for the rank test to reach alpha / (1 + alpha) / tests
// (a lone discovery among them, two_stage_benjamini_hochberg) at all; at
// the level of runs, runs of as many repetitions as these had, on both sides, the noise's
// degrees of freedom being the prior's and the runs' own (d0 + 2n - 2). 0 when the noise is
// unknown.
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

// Its adaptive two-stage form (Benjamini, Krieger & Yekutieli 2006, Biometrika 93: 491): BH at
// q' = q / (1 + q) first; with R of the m p-values discoveries (0 < R < m), BH again at
// q' m / (m - R), the number of unchanged points estimated as m - R. It holds the false
// discovery rate at q as BH does (for independent tests; in their simulations also under
// positive dependence), and when nothing changed the chance of any false alarm at q / (1 + q),
// below plain BH's q; but where a change shows at most points, as a driver or network change
// does, BH's threshold is too strict by the share of changed points (m / m0), and the second
// stage takes that back: 12 sizes 20% slower against three baselines at 3% run-to-run noise
// are all flagged in 0.93 of 2000 simulated comparisons, with BH alone in 0.66
// (tests/unit/regression_power_test.cpp, RegressionModel.PowerAgainstThreeBaselines).
std::vector<bool> two_stage_benjamini_hochberg(const std::vector<double>& p_values, double q);

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
