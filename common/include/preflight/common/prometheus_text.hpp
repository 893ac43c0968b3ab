// Prometheus' text exposition format (version 0.0.4), the parts both executables write: the
// report's --prometheus file and a soak's textfile (bench/harness/sinks/textfile_sink.hpp).
#pragma once

#include <string>

namespace preflight {

// A label value as the exposition format quotes it: backslash, double quote and line feed
// escaped, bytes that are not UTF-8 replaced by '?', so that a name from a config or a results
// file cannot break the exposition or add labels of its own.
std::string prometheus_label_value(const std::string& text);

// A sample value: NaN, +Inf, -Inf, or the number with every digit a double holds.
std::string prometheus_sample_value(double v);

}  // namespace preflight
