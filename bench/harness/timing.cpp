#include "harness/timing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "harness/usage_error.hpp"

namespace preflight {

void validate(const TimingOptions& o) {
  if (o.warmup < 0)
    throw UsageError(fmt::format("--warmup: expected 0 or more, found {}", o.warmup));
  if (o.min_iterations < 1)
    throw UsageError(fmt::format("--min-iters: expected 1 or more, found {}", o.min_iterations));
  if (o.max_iterations < o.min_iterations)
    throw UsageError(fmt::format("--iters: expected at least --min-iters ({}), found {}",
                                 o.min_iterations, o.max_iterations));
  if (!(o.budget_s > 0) || !std::isfinite(o.budget_s))
    throw UsageError(fmt::format(
        "--budget: expected a time above 0 such as 0.5s or 200ms, found {}", o.budget_s));
  if (o.batch_blocks < 1)
    throw UsageError(fmt::format("--batch-blocks: expected 1 or more, found {}", o.batch_blocks));
}

int decide_iterations(const TimingOptions& o, double estimate_s) {
  if (!(estimate_s > 0)) return o.max_iterations;
  const double fits = std::floor(o.budget_s / estimate_s);
  if (fits >= o.max_iterations) return o.max_iterations;
  return std::max(o.min_iterations, static_cast<int>(fits));
}

}  // namespace preflight
