#pragma once

#include <vector>

namespace preflight::report {

// The median (the mean of the middle two for an even count); NaN for no values. Every figure
// the report calls a median comes from here, so they agree.
double median(std::vector<double> values);

}  // namespace preflight::report
