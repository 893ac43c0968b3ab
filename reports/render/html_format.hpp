// How the HTML page writes text and figures: escaped, with HTML's entities (&ndash; for a
// missing figure, &nbsp; between a figure and its unit). The plain-text formats they build on
// are analysis/format.hpp's.
#pragma once

#include <string>

namespace preflight::report::html {

std::string e(const std::string& text);  // escape_html
// Figures as people read them: up to four significant digits, no exponent for ordinary sizes.
std::string num(double v);
std::string number_with_unit(double v, const std::string& unit);
// A time in the unit that suits it: "4.2&nbsp;&micro;s", "1.3&nbsp;ms".
std::string scaled_seconds(double s);
std::string bytes(double b);  // "16&nbsp;MiB"
// One decimal (analysis/format.hpp's percent), &ndash; for NaN.
std::string percent_or_dash(double fraction, bool sign = false);
std::string p_value(double p);
// Sizes in a check or comparison are size_bytes written as text: shown as bytes when they are.
std::string size_text(const std::string& size);
// A verdict's badge: cls is its style (pass, fail, inconclusive, limit).
std::string verdict_span(const char* cls, const std::string& text);

}  // namespace preflight::report::html
