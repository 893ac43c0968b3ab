// A reference envelope made from a run the site trusts (preflight-report known-good.h5
// --make-reference site.yaml, docs/references.md): every case's headline figure at every size,
// its typical value the median of what the run measured and its floor set by the measured
// spread, so that later runs are held to the site's own known-good cluster, storage included,
// for which no universal figure exists.
#pragma once

#include <string>
#include <vector>

#include "analysis/acceptance.hpp"
#include "reader/results_reader.hpp"

namespace preflight::report {

// How the floor is set: the typical value less `spreads` times the figure's spread (the SD of
// its logarithm over the values the run measured: pairs, groups, passes and repetitions, and at
// least the iterations' own spread from time_p5 to time_p95), and never closer than
// `min_margin`: one run cannot show the spread between launches.
struct SiteReferenceOptions {
  double spreads = 3;
  double min_margin = 0.25;
};

// One figure per case (family, backend, benchmark, variant, subject, series) and size: a Rule
// whose expect is the floor, with typical and source. Throws std::invalid_argument when the run
// is not one to trust (incomplete, or a case failed or timed out), saying which.
std::vector<Rule> site_figures(const RunData& run, const SiteReferenceOptions& o = {});

// What the envelope matches: the run's CPU and GPU models where every rank shares one.
std::vector<std::pair<std::string, std::string>> site_match(const RunData& run);

}  // namespace preflight::report
