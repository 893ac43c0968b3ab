// A soak's points written as summaries (results-schema/SPEC.md, "Summary points"): what the
// report reads of each point's per-iteration x per-rank matrices (preflight/schema/
// point_summary.hpp), in place of the matrices, so that a day of rounds stays small to read.
#pragma once

#include <hdf5.h>

#include "harness/run/record.hpp"

namespace preflight {

// Writes the case's points/ (and its watched/ series) as summaries into `case_group`.
void write_summary_points(hid_t case_group, const CaseRecord& r);

}  // namespace preflight
