// The one place that knows version-1 results files: they carry no declarations of what their
// figures mean, so the adapter supplies them from a table keyed by family, exactly as the v2
// writer declares them (CONTRACT.md). Nothing else in the report names a family.
#pragma once

#include <cstdint>
#include <string_view>

#include "reader/results_reader.hpp"

namespace preflight::report {

// Fills c.meaning and every column's declaration of a case read from a version-1 file (its
// stats, params and family already read). node_count: the run's, for cases whose group spans
// every node.
void declare_v1(CaseData& c, std::int64_t node_count);

}  // namespace preflight::report
