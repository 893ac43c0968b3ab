#include "analysis/replicates.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace preflight::report {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

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

ReplicateTest compare_replicates(const RunReplicates& baseline, const RunReplicates& current,
                                 double alpha) {
  ReplicateTest t;
  const auto base_runs = log_runs(baseline), now_runs = log_runs(current);
  if (base_runs.empty() || now_runs.empty()) return t;
  // A history of baseline runs holds the launch-to-launch noise, which repetitions inside one
  // run cannot show: judge at the level of runs wherever it is known.
  t.level = base_runs.size() >= 2 ? ReplicateLevel::kRuns : ReplicateLevel::kRepetitions;
  const auto a = replicates(base_runs, t.level), b = replicates(now_runs, t.level);
  t.baseline_n = a.size();
  t.current_n = b.size();
  const double ma = mean(a), mb = mean(b);
  t.baseline = std::exp(ma);
  t.current = std::exp(mb);
  t.change = std::exp(mb - ma) - 1;
  // One spread for both sides (the same configuration on the same kind of machine), pooled
  // from every side that has more than one replicate.
  t.df = static_cast<double>(a.size() + b.size()) - 2;
  t.testable = t.df >= 1;
  if (!t.testable) {
    t.ci_low = t.ci_high = t.p_value = kNaN;
    return t;
  }
  t.noise = std::sqrt((squared_deviations(a) + squared_deviations(b)) / t.df);
  const double se = t.noise * std::sqrt(1.0 / static_cast<double>(a.size()) +
                                        1.0 / static_cast<double>(b.size()));
  const double d = mb - ma;
  if (se == 0) {
    t.p_value = d == 0 ? 1 : 0;
    t.ci_low = t.ci_high = t.change;
  } else {
    t.p_value = student_t_two_sided_p(d / se, t.df);
    const double half = student_t_quantile(1 - alpha / 2, t.df) * se;
    t.ci_low = std::exp(d - half) - 1;
    t.ci_high = std::exp(d + half) - 1;
  }
  // Repetitions of one launch each side: evidence no stronger than their order allows (above).
  if (t.level == ReplicateLevel::kRepetitions) t.p_value = rank_sum_two_sided_p(a, b);
  return t;
}

std::size_t replicates_to_decide(const ReplicateTest& t, double change, double alpha,
                                 std::size_t tests) {
  if (!t.testable || !(t.noise >= 0)) return 0;
  const double target = std::abs(std::log1p(change));
  if (!(target > 0)) return 0;
  // The rank test's floor: fewer repetitions than this can never reach alpha / tests.
  std::size_t least = 2;
  const double level = alpha / static_cast<double>(std::max<std::size_t>(tests, 1));
  if (t.level == ReplicateLevel::kRepetitions)
    while (least < 1000 && smallest_rank_sum_p(least, least) > level) ++least;
  if (t.noise == 0) return t.level == ReplicateLevel::kRepetitions ? least : 0;
  for (std::size_t n = least; n <= 100000; n = n < 64 ? n + 1 : n * 5 / 4) {
    const double df = 2.0 * static_cast<double>(n) - 2;
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

}  // namespace preflight::report
