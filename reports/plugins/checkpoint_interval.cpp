#include "plugins/checkpoint_interval.hpp"
#include "preflight/common/stats.hpp"

#include <cmath>
#include <limits>

namespace preflight::report::plugins {
namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

double job_mtbf_s(double node_mtbf_s, double nodes) {
  return nodes > 0 ? node_mtbf_s / nodes : kNaN;
}

double young_daly_interval_s(double save_s, double job_mtbf_s) {
  if (std::isinf(job_mtbf_s)) return kInf;  // no failure to save for
  return std::sqrt(2 * save_s * job_mtbf_s);
}

LostFraction lost_fraction(double interval_s, double save_s, double restore_s, double job_mtbf_s) {
  LostFraction f;
  f.saving = std::isinf(interval_s) ? 0 : save_s / interval_s;
  if (std::isinf(job_mtbf_s)) return f;  // no failure: nothing recomputed, nothing restored
  f.recompute = interval_s / (2 * job_mtbf_s);
  f.restore = restore_s / job_mtbf_s;
  return f;
}

LostFraction lost_fraction_at_optimum(double save_s, double restore_s, double job_mtbf_s) {
  LostFraction f;
  if (std::isinf(job_mtbf_s)) return f;
  f.saving = f.recompute = std::sqrt(save_s / (2 * job_mtbf_s));
  f.restore = restore_s / job_mtbf_s;
  return f;
}

}  // namespace preflight::report::plugins
