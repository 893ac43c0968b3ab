// How the report writes a figure in plain text, defined once for every layer that writes one
// (analyses' findings, plug-ins' sections, every renderer), so that a figure reads the same
// wherever it appears. The HTML page wraps these (render/html_format.hpp).
#pragma once

#include <string>

namespace preflight::report {

// "-" for NaN, else the value with `digits` significant digits.
std::string figure(double value, int digits = 4);
// "12.5 GB/s": a figure already written and its unit, apart by `space` (none without a unit).
std::string with_unit(const std::string& figure, const std::string& unit,
                      const std::string& space = " ");
// A time in seconds whose unit the text around it says: 4 significant digits, "n/a" where it
// is not known (NaN, or negative: not measured).
std::string seconds(double s);
// "4 KiB", "1.5 MiB": a size in bytes in the largest binary unit it reaches (up to PiB).
std::string binary_bytes(double bytes, const std::string& space = " ");
// A fraction as a percentage, "n/a" for NaN: `decimals` digits after the point ("12%" with 0,
// "12.5%" with 1), and "+" before a positive one too with `sign`.
std::string percent(double fraction, int decimals, bool sign = false);
// A fraction as a percentage with `digits` significant digits ("0.25%", "12.5%"), "n/a" for NaN.
std::string percent_significant(double fraction, int digits);
// A span of seconds in the unit that suits it, 3 significant digits ("45 s", "12 min", "3.5 h"),
// "never" for infinity, "n/a" for NaN.
std::string duration(double s);

}  // namespace preflight::report
