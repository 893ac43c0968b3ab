#include "analysis/replicates.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "analysis/variance_prior.hpp"
#include "preflight/common/stats.hpp"

namespace preflight::report {
namespace {

// The continued fraction of the regularised incomplete beta function, evaluated with the
// modified Lentz method; converges fast for x < (a + 1) / (a + b + 2).
double beta_fraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  auto guard = [](double v) { return std::abs(v) < kTiny ? kTiny : v; };
  double c = 1;
  double d = 1 / guard(1 - (a + b) * x / (a + 1));
  double h = d;
  for (int m = 1; m <= 500; ++m) {
    const double even = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
    d = 1 / guard(1 + even * d);
    c = guard(1 + even / c);
    h *= d * c;
    const double odd = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
    d = 1 / guard(1 + odd * d);
    c = guard(1 + odd / c);
    const double factor = d * c;
    h *= factor;
    if (std::abs(factor - 1) < 1e-15) break;
  }
  return h;
}

// I_x(a, b), the regularised incomplete beta function.
double incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                                a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * beta_fraction(a, b, x) / a;
  return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

double mean(const std::vector<double>& v) {
  return v.empty() ? kNaN
                   : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double squared_deviations(const std::vector<double>& v) {
  const double m = mean(v);
  double sum = 0;
  for (double x : v) sum += (x - m) * (x - m);
  return sum;
}

// Each run's values as logarithms, without NaNs, zeros and runs left empty.
std::vector<std::vector<double>> log_runs(const RunReplicates& runs) {
  std::vector<std::vector<double>> out;
  for (const auto& run : runs) {
    std::vector<double> logs;
    for (double v : run)
      if (std::isfinite(v) && v > 0) logs.push_back(std::log(v));
    if (!logs.empty()) out.push_back(std::move(logs));
  }
  return out;
}

// The replicates of one side at a level: the repetitions of all its runs, or each run's mean.
std::vector<double> replicates(const std::vector<std::vector<double>>& runs, ReplicateLevel level) {
  std::vector<double> out;
  for (const auto& run : runs) {
    if (level == ReplicateLevel::kRuns)
      out.push_back(mean(run));
    else
      out.insert(out.end(), run.begin(), run.end());
  }
  return out;
}

// How many of the C(m + n, m) interleavings of two samples give each value of the rank-sum
// statistic U (0 .. m n): the coefficients of the Gaussian binomial [m + n choose m] in q, built
// as the product over i = 1 .. m of (1 - q^(n + i)) / (1 - q^i), a polynomial after every step.
std::vector<double> rank_sum_counts(std::size_t m, std::size_t n) {
  std::vector<double> c{1.0};
  c.resize(m * n + m + 1, 0.0);
  std::size_t degree = 0;
  for (std::size_t i = 1; i <= m; ++i) {
    const std::size_t shift = n + i, top = degree + shift;
    for (std::size_t k = top; k >= shift; --k) c[k] -= c[k - shift];  // times (1 - q^(n + i))
    for (std::size_t k = i; k <= top; ++k) c[k] += c[k - i];          // over (1 - q^i)
    degree += n;
  }
  c.resize(m * n + 1);
  return c;
}

// The normal approximation of the rank-sum test, with the ties' correction of the variance and
// a continuity correction, for samples too large to count.
double rank_sum_normal_p(const std::vector<double>& a, const std::vector<double>& b, double u) {
  const double m = static_cast<double>(a.size()), n = static_cast<double>(b.size()), total = m + n;
  std::vector<double> all(a);
  all.insert(all.end(), b.begin(), b.end());
  std::sort(all.begin(), all.end());
  double ties = 0;
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i;
    while (j < all.size() && all[j] == all[i]) ++j;
    const double t = static_cast<double>(j - i);
    ties += t * t * t - t;
    i = j;
  }
  const double variance = m * n / 12 * ((total + 1) - ties / (total * (total - 1)));
  if (!(variance > 0)) return 1;
  const double z = std::max(0.0, std::abs(u - m * n / 2) - 0.5) / std::sqrt(variance);
  return std::min(1.0, std::erfc(z / std::sqrt(2.0)));
}

}  // namespace

double rank_sum_two_sided_p(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.empty() || b.empty()) return kNaN;
  double u = 0;
  for (double x : a)
    for (double y : b) u += y > x ? 1 : y == x ? 0.5 : 0;
  if (a.size() * b.size() > 2500) return rank_sum_normal_p(a, b, u);
  const auto counts = rank_sum_counts(a.size(), b.size());
  const double total = std::accumulate(counts.begin(), counts.end(), 0.0);
  // Both tails from the low end (the counts are symmetric, U <-> m n - U), where the counts are
  // small and accurate.
  const auto cumulative = [&](std::size_t upto) {
    return std::accumulate(counts.begin(), counts.begin() + upto + 1, 0.0);
  };
  const std::size_t top = counts.size() - 1;
  const auto low = static_cast<std::size_t>(std::floor(u)),
             high = static_cast<std::size_t>(std::ceil(u));
  return std::min(1.0, 2 * std::min(cumulative(low), cumulative(top - high)) / total);
}

double smallest_rank_sum_p(std::size_t m, std::size_t n) {
  if (m == 0 || n == 0) return 1;
  const double x = static_cast<double>(m), y = static_cast<double>(n);
  return std::min(1.0,
                  2 * std::exp(std::lgamma(x + 1) + std::lgamma(y + 1) - std::lgamma(x + y + 1)));
}

const char* name_of(ReplicateLevel level) {
  return level == ReplicateLevel::kRuns ? "runs" : "repetitions";
}

double student_t_two_sided_p(double t, double df) {
  if (std::isnan(t) || !(df > 0)) return kNaN;
  if (std::isinf(t)) return 0;
  if (std::isinf(df)) return std::erfc(std::abs(t) / std::sqrt(2.0));  // the normal's
  return incomplete_beta(df / 2, 0.5, df / (df + t * t));
}

double student_t_quantile(double p, double df) {
  if (!(p > 0 && p < 1) || !(df > 0)) return kNaN;
  if (p == 0.5) return 0;
  // P(T <= x) for x >= 0 is 1 - p2/2, where p2 is the two-sided p of x; bisect on that.
  const double upper_tail = p > 0.5 ? 1 - p : p;
  double lo = 0, hi = 1;
  while (student_t_two_sided_p(hi, df) / 2 > upper_tail && hi < 1e12) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (student_t_two_sided_p(mid, df) / 2 > upper_tail ? lo : hi) = mid;
  }
  const double x = 0.5 * (lo + hi);
  return p > 0.5 ? x : -x;
}

namespace {

// One point's figures at the level of runs before the moderation (replicates.hpp): the
// run-level variance and the repetitions' pooled variance, with what each weighs in the
// variance of the change.
struct RunLevelFit {
  double difference = 0;                // the current run means' mean minus the baselines'
  double between = 0, between_df = 0;   // run means about their side's mean
  double within = 0, within_df = 0;     // repetitions about their run's mean, every run
  double within_share = 0;              // h: the between variance is sigma_b^2 + sigma_w^2 h
  double launch_weight = 0;             // 1/k + 1/m: sigma_b^2's weight in var(difference)
  double repetition_weight = 0;         // sum 1/r_i / k^2 + sum 1/r_j / m^2: sigma_w^2's
  double mean_inverse_repetitions = 0;  // over every run: a typical run's sigma_w^2 weight
};

using LogRuns = std::vector<std::vector<double>>;

RunLevelFit fit_runs(const LogRuns& base, const LogRuns& now) {
  RunLevelFit f;
  double between_ss = 0, within_ss = 0, share = 0, inverse_all = 0, runs = 0;
  for (const auto* side : {&base, &now}) {
    const auto means = replicates(*side, ReplicateLevel::kRuns);
    const double n = static_cast<double>(side->size());
    between_ss += squared_deviations(means);
    double inverse = 0;
    for (const auto& run : *side) {
      inverse += 1.0 / static_cast<double>(run.size());
      within_ss += squared_deviations(run);
      f.within_df += static_cast<double>(run.size()) - 1;
    }
    // E[squared deviations of a side's run means] = (n - 1) mean(V_i) over its runs.
    share += (n - 1) * inverse / n;
    f.launch_weight += 1 / n;
    f.repetition_weight += inverse / (n * n);
    inverse_all += inverse;
    runs += n;
  }
  f.difference =
      mean(replicates(now, ReplicateLevel::kRuns)) - mean(replicates(base, ReplicateLevel::kRuns));
  f.between_df = runs - 2;
  f.between = between_ss / f.between_df;
  f.within_share = share / f.between_df;
  f.within = f.within_df > 0 ? within_ss / f.within_df : 0;
  f.mean_inverse_repetitions = inverse_all / runs;
  return f;
}

// The change and its interval from the difference of log means, its standard error and df.
void set_change(ReplicateTest& t, double d, double se, double alpha) {
  if (se == 0) {
    t.p_value = d == 0 ? 1 : 0;
    t.ci_low = t.ci_high = t.change;
    return;
  }
  t.p_value = student_t_two_sided_p(d / se, t.df);
  const double half = student_t_quantile(1 - alpha / 2, t.df) * se;
  t.ci_low = std::exp(d - half) - 1;
  t.ci_high = std::exp(d + half) - 1;
}

// Judges a point at the level of runs against its run-level variance moderated by the prior.
void judge_runs(ReplicateTest& t, const RunLevelFit& f, const VariancePrior& prior, double total_df,
                double alpha) {
  const auto moderated = moderate(prior, f.between, f.between_df, total_df);
  const double repetitions_share = f.within * f.within_share;
  const double launch = std::max(0.0, moderated.variance - repetitions_share);
  t.runs.own = std::sqrt(f.between);
  t.runs.own_df = f.between_df;
  t.runs.prior_df = prior.fitted() ? prior.df : 0;
  t.runs.prior_points = prior.fitted() ? prior.points : 0;
  t.runs.repetition = std::sqrt(f.within);
  t.runs.repetition_df = f.within_df;
  t.runs.repetitions_per_run = 1 / f.mean_inverse_repetitions;
  t.runs.floored = moderated.variance < repetitions_share;
  t.noise = std::sqrt(launch + f.within * f.mean_inverse_repetitions);
  t.df = moderated.df;
  t.testable = t.df >= 1;
  if (!t.testable) {
    t.ci_low = t.ci_high = t.p_value = kNaN;
    return;
  }
  set_change(t, f.difference, std::sqrt(launch * f.launch_weight + f.within * f.repetition_weight),
             alpha);
}

// One baseline run: the two runs' repetitions, pooled spread, the rank test's p.
void judge_repetitions(ReplicateTest& t, const std::vector<double>& a, const std::vector<double>& b,
                       double alpha) {
  // One spread for both sides (the same configuration on the same kind of machine), pooled
  // from every side that has more than one replicate.
  t.df = static_cast<double>(a.size() + b.size()) - 2;
  t.testable = t.df >= 1;
  if (!t.testable) {
    t.ci_low = t.ci_high = t.p_value = kNaN;
    return;
  }
  t.noise = std::sqrt((squared_deviations(a) + squared_deviations(b)) / t.df);
  const double se = t.noise * std::sqrt(1.0 / static_cast<double>(a.size()) +
                                        1.0 / static_cast<double>(b.size()));
  set_change(t, mean(b) - mean(a), se, alpha);
  // Repetitions of one launch each side: evidence no stronger than their order allows (above).
  t.p_value = rank_sum_two_sided_p(a, b);
}

}  // namespace

std::vector<ReplicateTest> compare_replicates(const std::vector<ReplicatePair>& points,
                                              double alpha) {
  std::vector<ReplicateTest> tests(points.size());
  std::vector<LogRuns> base(points.size()), now(points.size());
  std::vector<RunLevelFit> fits(points.size());
  std::vector<double> variances, dfs;
  double total_df = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    auto& t = tests[i];
    base[i] = log_runs(points[i].baseline);
    now[i] = log_runs(points[i].current);
    if (base[i].empty() || now[i].empty()) continue;
    // A history of baseline runs holds the launch-to-launch noise, which repetitions inside one
    // run cannot show: judge at the level of runs wherever it is known.
    t.level = base[i].size() >= 2 ? ReplicateLevel::kRuns : ReplicateLevel::kRepetitions;
    const auto a = replicates(base[i], t.level), b = replicates(now[i], t.level);
    t.baseline_n = a.size();
    t.current_n = b.size();
    t.baseline = std::exp(mean(a));
    t.current = std::exp(mean(b));
    t.change = std::exp(mean(b) - mean(a)) - 1;
    if (t.level == ReplicateLevel::kRepetitions) {
      judge_repetitions(t, a, b, alpha);
      continue;
    }
    fits[i] = fit_runs(base[i], now[i]);
    variances.push_back(fits[i].between);
    dfs.push_back(fits[i].between_df);
    total_df += fits[i].between_df;
  }
  const auto prior = fit_variance_prior(variances, dfs);
  for (std::size_t i = 0; i < points.size(); ++i)
    if (tests[i].level == ReplicateLevel::kRuns)
      judge_runs(tests[i], fits[i], prior, total_df, alpha);
  return tests;
}

ReplicateTest compare_replicates(const RunReplicates& baseline, const RunReplicates& current,
                                 double alpha) {
  return compare_replicates(std::vector<ReplicatePair>{{baseline, current}}, alpha).front();
}

std::string describe_noise(const ReplicateTest& t) {
  if (t.level == ReplicateLevel::kRepetitions) return fmt::format("noise {:.1f}%", t.noise * 100);
  const auto& r = t.runs;
  const std::string moderation =
      r.prior_df == 0 ? "not moderated"
      : std::isinf(r.prior_df)
          ? fmt::format("moderated over {} points, whose spreads agree: their common one",
                        r.prior_points)
          : fmt::format("moderated over {} points (prior df {:.3g})", r.prior_points, r.prior_df);
  const std::string repetitions =
      r.repetition_df == 0
          ? "one repetition per run"
          : fmt::format("{}a repetition {:.1f}% on {:g} df, {:.3g} per run",
                        r.floored ? "raised to the repetitions' share: " : "", r.repetition * 100,
                        r.repetition_df, r.repetitions_per_run);
  return fmt::format(
      "run-to-run noise {:.1f}% (df {:.3g}: this point's own {:.1f}% on {:g} df, {}; {})",
      t.noise * 100, t.df, r.own * 100, r.own_df, moderation, repetitions);
}

std::size_t replicates_to_decide(const ReplicateTest& t, double change, double alpha,
                                 std::size_t tests) {
  if (!t.testable || !(t.noise >= 0)) return 0;
  const double target = std::abs(std::log1p(change));
  if (!(target > 0)) return 0;
  // The rank test's floor: fewer repetitions than this can never make a lone size a discovery
  // (the first stage of two_stage_benjamini_hochberg: alpha / (1 + alpha) / tests).
  std::size_t least = 2;
  const double level = alpha / (1 + alpha) / static_cast<double>(std::max<std::size_t>(tests, 1));
  if (t.level == ReplicateLevel::kRepetitions)
    while (least < 1000 && smallest_rank_sum_p(least, least) > level) ++least;
  if (t.noise == 0) return t.level == ReplicateLevel::kRepetitions ? least : 0;
  // At the level of runs the prior's degrees of freedom come on top of the runs' own.
  const double borrowed = t.level == ReplicateLevel::kRuns ? t.runs.prior_df : 0;
  for (std::size_t n = least; n <= 100000; n = n < 64 ? n + 1 : n * 5 / 4) {
    const double df = borrowed + 2.0 * static_cast<double>(n) - 2;
    const double half =
        student_t_quantile(1 - alpha / 2, df) * t.noise * std::sqrt(2.0 / static_cast<double>(n));
    if (half < target) return n;
  }
  return 0;
}

Shift judge_shift(const ReplicateTest& t, bool discovery, double min_change) {
  if (!t.testable) return Shift::kUndecided;
  if (discovery && std::abs(t.change) >= min_change)
    return t.change > 0 ? Shift::kHigher : Shift::kLower;
  if (discovery || (t.ci_low >= -min_change && t.ci_high <= min_change)) return Shift::kNone;
  return Shift::kUndecided;
}

std::vector<bool> benjamini_hochberg(const std::vector<double>& p_values, double q) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < p_values.size(); ++i)
    if (!std::isnan(p_values[i])) order.push_back(i);
  std::sort(order.begin(), order.end(),
            [&](std::size_t x, std::size_t y) { return p_values[x] < p_values[y]; });
  const double m = static_cast<double>(order.size());
  std::size_t discoveries = 0;
  for (std::size_t k = 0; k < order.size(); ++k)
    if (p_values[order[k]] <= static_cast<double>(k + 1) * q / m) discoveries = k + 1;
  std::vector<bool> out(p_values.size(), false);
  for (std::size_t k = 0; k < discoveries; ++k) out[order[k]] = true;
  return out;
}

std::vector<bool> two_stage_benjamini_hochberg(const std::vector<double>& p_values, double q) {
  const double first_q = q / (1 + q);
  auto first = benjamini_hochberg(p_values, first_q);
  const auto found = static_cast<double>(std::count(first.begin(), first.end(), true));
  const auto tested = static_cast<double>(
      std::count_if(p_values.begin(), p_values.end(), [](double p) { return !std::isnan(p); }));
  if (found == 0 || found == tested) return first;
  return benjamini_hochberg(p_values, first_q * tested / (tested - found));
}

}  // namespace preflight::report
