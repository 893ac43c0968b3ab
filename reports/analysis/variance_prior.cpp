#include "analysis/variance_prior.hpp"
#include "preflight/common/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace preflight::report {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Where the asymptotic series are used: their first omitted terms are below 1e-14 there.
constexpr double kAsymptotic = 20;

}  // namespace

double digamma(double x) {
  if (!(x > 0) || std::isinf(x)) return std::isinf(x) ? kInf : kNaN;
  double shift = 0;
  for (; x < kAsymptotic; x += 1) shift -= 1 / x;  // psi(x) = psi(x + 1) - 1 / x
  const double w = 1 / (x * x);
  return shift + std::log(x) - 0.5 / x -
         w * (1.0 / 12 - w * (1.0 / 120 - w * (1.0 / 252 - w * (1.0 / 240 - w / 132))));
}

double trigamma(double x) {
  if (!(x > 0) || std::isinf(x)) return std::isinf(x) ? 0 : kNaN;
  double shift = 0;
  for (; x < kAsymptotic; x += 1) shift += 1 / (x * x);  // psi'(x) = psi'(x + 1) + 1 / x^2
  const double w = 1 / (x * x);
  return shift + 1 / x + 0.5 * w +
         w / x * (1.0 / 6 - w * (1.0 / 30 - w * (1.0 / 42 - w * (1.0 / 30 - w * 5.0 / 66))));
}

double tetragamma(double x) {
  if (!(x > 0) || std::isinf(x)) return std::isinf(x) ? 0 : kNaN;
  double shift = 0;
  for (; x < kAsymptotic; x += 1) shift -= 2 / (x * x * x);  // psi''(x) = psi''(x+1) - 2 / x^3
  const double w = 1 / (x * x);
  return shift - w - w / x -
         w * w * (0.5 - w * (1.0 / 6 - w * (1.0 / 6 - w * (3.0 / 10 - w * 5.0 / 6))));
}

double trigamma_inverse(double x) {
  if (!(x > 0) || std::isinf(x)) return std::isinf(x) ? 0 : kNaN;
  if (x > 1e7) return 1 / std::sqrt(x);  // trigamma(y) ~ 1 / y^2 as y -> 0
  if (x < 1e-6) return 1 / x;            // trigamma(y) ~ 1 / y as y -> infinity
  double y = 0.5 + 1 / x;
  for (int i = 0; i < 50; ++i) {
    const double tri = trigamma(y);
    const double newton = tri * (1 - tri / x) / tetragamma(y);
    y += newton;
    if (std::abs(newton) < 1e-12 * y) break;
  }
  return y;
}

namespace {

double median_of(std::vector<double> x) {
  const auto half = static_cast<std::ptrdiff_t>(x.size() / 2);
  std::nth_element(x.begin(), x.begin() + half, x.end());
  const double upper = x[static_cast<std::size_t>(half)];
  if (x.size() % 2 == 1) return upper;
  return 0.5 * (upper + *std::max_element(x.begin(), x.begin() + half));
}

}  // namespace

VariancePrior fit_variance_prior(const std::vector<double>& variances,
                                 const std::vector<double>& df) {
  std::vector<double> x, d;
  for (std::size_t i = 0; i < variances.size() && i < df.size(); ++i)
    if (std::isfinite(variances[i]) && variances[i] >= 0 && std::isfinite(df[i]) && df[i] > 0) {
      x.push_back(variances[i]);
      d.push_back(df[i]);
    }
  VariancePrior prior;
  const std::size_t n = x.size();
  if (n < 2) return prior;
  const double median = median_of(x);
  if (!(median > 0)) return prior;
  // log s^2 of a scaled chi-square on d df has mean log sigma^2 + digamma(d/2) - log(d/2) and
  // variance trigamma(d/2); what the points' e spread beyond that is the prior's own variance.
  std::vector<double> e(n);
  double mean = 0, sampling = 0;
  for (std::size_t i = 0; i < n; ++i) {
    e[i] = std::log(std::max(x[i], 1e-5 * median)) - digamma(d[i] / 2) + std::log(d[i] / 2);
    mean += e[i] / static_cast<double>(n);
    sampling += trigamma(d[i] / 2) / static_cast<double>(n);
  }
  double spread = 0;
  for (double v : e) spread += (v - mean) * (v - mean) / static_cast<double>(n - 1);
  const double excess = spread - sampling;
  prior.points = n;
  if (excess > 0) {
    prior.df = 2 * trigamma_inverse(excess);
    prior.scale = std::exp(mean + digamma(prior.df / 2) - std::log(prior.df / 2));
  } else {
    prior.df = kInf;
    prior.scale = std::exp(mean);
  }
  return prior;
}

ModeratedVariance moderate(const VariancePrior& prior, double variance, double df,
                           double total_df) {
  if (!prior.fitted()) return {variance, df};
  const bool own = std::isfinite(variance) && df > 0;
  if (std::isinf(prior.df) || !own) {
    const double d = std::isinf(prior.df) ? total_df : prior.df + (own ? df : 0);
    return {prior.scale, std::min(d, total_df)};
  }
  return {(prior.df * prior.scale + df * variance) / (prior.df + df),
          std::min(prior.df + df, total_df)};
}

}  // namespace preflight::report
