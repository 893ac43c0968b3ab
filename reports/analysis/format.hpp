// How the report writes a figure in plain text, defined once for every layer that writes one
// (analyses' findings, plug-ins' sections, every renderer), so that a figure reads the same
// wherever it appears.
#pragma once

#include <string>

namespace preflight::report {

// "-" for NaN, else the value with `digits` significant digits.
std::string figure(double value, int digits = 4);

}  // namespace preflight::report
