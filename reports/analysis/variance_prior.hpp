// Empirical-Bayes moderation of many variances estimated with few degrees of freedom each (Smyth
// 2004, "Linear models and empirical Bayes methods for assessing differential expression", the
// moderated t of limma): every point of one comparison has its own run-to-run variance s^2 on d
// degrees of freedom (d = 2 with three baseline runs and one current run), far too few to judge a
// change alone (Student's t at 99% and df 2 is 9.9). The points' variances are taken as drawn
// from a scaled inverse chi-square prior, with d0 degrees of freedom and scale s0^2, fitted to
// them all by the method of moments on log s^2 (whose sampling mean and variance are digamma and
// trigamma of d/2); each point's variance is then the posterior mean (d0 s0^2 + d s^2) / (d0 + d)
// on d0 + d degrees of freedom, and t = change / se(moderated) follows Student's t with d0 + d
// df when the prior holds. When the points' variances agree more than chance allows, d0 is
// infinite and every point takes s0^2; when they disagree widely, d0 is small and each keeps
// mostly its own. limma's fitFDist and trigammaInverse, without its covariate trend and robust
// options. Generic: it knows variances, not figures.
#pragma once

#include <cstddef>
#include <vector>

namespace preflight::report {

// The polygamma functions for x > 0 (NaN otherwise): psi = d/dx ln Gamma, and its first and
// second derivatives. Recurrence up to x >= 20, then the asymptotic series (error below
// 1e-14). The standard library has none of them and the project's Debian dependencies none
// either (Boost.Math and GSL are not among them): 30 lines, checked against tabulated values.
double digamma(double x);
double trigamma(double x);
double tetragamma(double x);
// y > 0 with trigamma(y) = x, for x > 0 (NaN otherwise): Newton's method on 1 / trigamma, which is
// nearly linear, from y = 0.5 + 1 / x, as limma's trigammaInverse.
double trigamma_inverse(double x);

struct VariancePrior {
  double df = 0;           // d0: 0 when not fitted (then nothing is moderated); may be infinite
  double scale = 0;        // s0^2
  std::size_t points = 0;  // the variances it was fitted to
  bool fitted() const { return df > 0; }
};

// Fits the prior to variances with their degrees of freedom; non-finite values, negative ones and
// those with df <= 0 are left out. Not fitted (df 0) with fewer than two left, or when more than
// half of them are exactly zero (the scale would be meaningless). Zeros among fewer are raised to
// 1e-5 of the median for the fit only, as limma does.
// One scale for every point, as limma without its trend. Tried instead on the simulated
// comparisons of tests/unit/regression_power_test.cpp (2026-12-04, not kept): a scale following
// each size's repetition noise, as a line in log fitted to the points, raised the false alarms
// where the sizes' noise is alike (a line through 12 noisy points misplaces each point's scale);
// with its slope fixed at 1 (moderating the ratio of run-level to repetition variance) it held
// the false alarms better where launch and repetition noise grow together across sizes, worse
// where only the launches' does, and had less power.
VariancePrior fit_variance_prior(const std::vector<double>& variances,
                                 const std::vector<double>& df);

struct ModeratedVariance {
  double variance = 0;
  double df = 0;
};

// The posterior variance of one point with its own `variance` on `df`, and its degrees of
// freedom d0 + df, capped at `total_df` (the sum of every fitted point's df: a comparison cannot
// know its noise better than all its points together, limma's df.total). Unfitted prior: its
// own.
ModeratedVariance moderate(const VariancePrior& prior, double variance, double df, double total_df);

}  // namespace preflight::report
