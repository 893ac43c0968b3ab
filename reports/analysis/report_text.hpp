// What the analyses found, said in words the same way by every renderer: the overall verdict and
// the count of each check's, what the runs were judged against, a regression's method and the
// evidence of one of its sizes.
#pragma once

#include <cstddef>
#include <string>

#include "analysis/report.hpp"

namespace preflight::report {

// "pass", "fail" or "inconclusive": the report's overall verdict, from its exit code.
const char* overall_verdict(const Report& report);
struct VerdictCounts {
  std::size_t pass = 0, fail = 0, inconclusive = 0, not_measured = 0;
};
VerdictCounts count_checks(const Report& report);
// What the runs were judged against: "reference h200-sxm (12 figures)", or "peers only: no
// reference envelope matches this run's hardware"; with several runs, each run's, labelled.
std::string judged_against(const Report& report);

// A regression section's baselines: "a.h5", or "a.h5, b.h5 and c.h5 (3 runs)".
std::string baseline_paths(const RegressionSection& s);
// How the sizes were judged, in one sentence, for every renderer.
std::string regression_method(const RegressionOptions& options);
// The evidence of one size: "+12.0% [+8.1%, +16.0%], noise 1.9%, 3 v 3 repetitions, p 3e-05
// (a discovery)", and for an undecided one the replicates that would decide it.
std::string regression_evidence(const PointComparison& p);

}  // namespace preflight::report
