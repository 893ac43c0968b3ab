#include "harness/config/timing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "preflight/common/usage_error.hpp"
#include "preflight/schema/layout.hpp"

namespace preflight {

TimingOptions read_timing(const ConfigNode& node, const TimingOptions& defaults) {
  node.expect_map(kTimingKeys);
  TimingOptions o;
  o.warmup = static_cast<int>(node.integer("warmup", defaults.warmup, 0, 1000000));
  o.min_iterations =
      static_cast<int>(node.integer("min_iters", defaults.min_iterations, 1, 100000000));
  o.max_iterations =
      static_cast<int>(node.integer("max_iters", defaults.max_iterations, 1, 100000000));
  o.budget_s = node.duration("budget", defaults.budget_s);
  o.precision = node.number("precision", defaults.precision, 0, 1);
  o.batch_blocks = static_cast<int>(node.integer("batch_blocks", defaults.batch_blocks, 1, 100000));
  o.timeout_s = node.duration("timeout", defaults.timeout_s);
  o.case_budget_s = node.duration("case_budget", defaults.case_budget_s);
  if (o.max_iterations < o.min_iterations)
    node.fail("max_iters", fmt::format("at least min_iters ({})", o.min_iterations),
              fmt::format("{}", o.max_iterations));
  if (!(o.budget_s > 0))
    node.fail("budget", "a time above 0 such as 0.5s or 200ms", node.string("budget", "0"));
  constexpr double kWeek = 7 * 24 * 3600;
  if (!(o.timeout_s >= 1) || o.timeout_s > kWeek)
    node.fail("timeout", "from 1s to 7 days (168h)", node.string("timeout", "0"));
  if (o.case_budget_s != 0 && (!(o.case_budget_s >= 1) || o.case_budget_s > kWeek))
    node.fail("case_budget", "0 (no limit) or from 1s to 7 days (168h)",
              node.string("case_budget", "0"));
  return o;
}

int decide_iterations(const TimingOptions& o, double estimate_s) {
  if (!(estimate_s > 0)) return o.max_iterations;
  const double fits = std::floor(o.budget_s / estimate_s);
  if (fits >= o.max_iterations) return o.max_iterations;
  return std::max(o.min_iterations, static_cast<int>(fits));
}

std::string_view name_of(StopReason reason) {
  switch (reason) {
    case StopReason::kBudget:
      return schema::stop_reason::kBudget;
    case StopReason::kPrecision:
      return schema::stop_reason::kPrecision;
    case StopReason::kMaxIterations:
      break;
  }
  return schema::stop_reason::kMaxIterations;
}

}  // namespace preflight
