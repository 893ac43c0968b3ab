// A test-only family: each point is an operation that waits a fixed number of microseconds
// (work units), so its figures are known in advance (a rank that does more work is slower by
// that much, however many ranks share a core). It exercises the harness and the results
// declaration with a family neither comm nor storage: its own point column (work_units),
// headline metric (units_per_s), stage and scaling, and a planted slow rank (slow_rank: that
// rank does 1.5x the work of each operation).
#pragma once

#include <memory>

#include "harness/run/family.hpp"

namespace preflight::test {

std::unique_ptr<Family> make_pace_family();

}  // namespace preflight::test
