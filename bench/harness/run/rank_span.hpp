// Spans across ranks, as IOR times a phase: from the first rank's start to the last rank's
// finish, on one clock (rank 0's, clock_sync.hpp). When ranks leave the starting barrier apart
// (an oversubscribed host, a rank descheduled as the barrier released), the slowest rank's own
// time is shorter than that span; the release spread, last start − first start, says how far
// apart they left. A family whose figure is such a span (storage, checkpoint) declares
// Case::measures_span() and reads the spans of its SampleView here.
#pragma once

#include <cstddef>
#include <vector>

#include "harness/run/case.hpp"

namespace preflight {

struct IterationSpan {
  double span_s;            // last finish − first start over the ranks; NaN when none ran
  double release_spread_s;  // last start − first start over the same ranks
};

// One iteration of the ranks `members`: starts[r] is rank r's start on one clock, seconds[r] its
// own time from there. Ranks whose start or time is NaN (idle) take no part.
IterationSpan span_of(const double* starts, const double* seconds, const std::vector<int>& members);

// Every iteration of the view's group, from its starts and times. Throws std::logic_error when
// the view has no starts (its case does not declare measures_span()).
std::vector<IterationSpan> iteration_spans(const SampleView& view);

// Each member's own rate beside the span's: the median over iterations of its counter (an
// iterations x ranks matrix, e.g. bytes) / its own time / `scale` (1e9: GB/s); members whose
// rate is NaN (never ran) are left out. The slowest rank's is the smallest.
std::vector<double> rank_rates(const SampleView& view, const std::vector<double>& counter,
                               double scale);

// Each row of an iterations x `ranks` matrix of starts, less the row's earliest start: seconds
// after the first rank started (0 for it); NaN stays NaN.
void relative_to_first(std::vector<double>& starts, std::size_t ranks);

}  // namespace preflight
