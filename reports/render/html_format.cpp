#include "render/html_format.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

#include "analysis/format.hpp"
#include "render/html.hpp"

namespace preflight::report {

std::string escape_html(const std::string& text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

namespace html {

std::string e(const std::string& text) {
  return escape_html(text);
}

std::string num(double v) {
  if (std::isnan(v)) return "&ndash;";
  if (std::isinf(v)) return v > 0 ? "&infin;" : "&minus;&infin;";
  const double a = std::fabs(v);
  if (a >= 1e4 && a < 1e12) return fmt::format("{:.0f}", v);
  return fmt::format("{:.4g}", v);
}

std::string number_with_unit(double v, const std::string& unit) {
  return std::isnan(v) ? num(v) : with_unit(num(v), e(unit), "&nbsp;");
}

std::string scaled_seconds(double s) {
  if (std::isnan(s)) return "&ndash;";
  const double a = std::fabs(s);
  if (a == 0) return "0";
  if (a < 1e-6) return fmt::format("{:.4g}&nbsp;ns", s * 1e9);
  if (a < 1e-3) return fmt::format("{:.4g}&nbsp;&micro;s", s * 1e6);
  if (a < 1) return fmt::format("{:.4g}&nbsp;ms", s * 1e3);
  return fmt::format("{:.4g}&nbsp;s", s);
}

std::string bytes(double b) {
  return std::isnan(b) ? "&ndash;" : binary_bytes(b, "&nbsp;");
}

std::string percent_or_dash(double fraction, bool sign) {
  return std::isnan(fraction) ? "&ndash;" : report::percent(fraction, 1, sign);
}

std::string p_value(double p) {
  if (std::isnan(p)) return "&ndash;";
  return p < 1e-4 ? fmt::format("{:.1e}", p) : fmt::format("{:.4f}", p);
}

std::string size_text(const std::string& size) {
  if (size.empty()) return "&ndash;";
  char* end = nullptr;
  const double v = std::strtod(size.c_str(), &end);
  if (end && *end == '\0' && v >= 1024 && v == std::floor(v))
    return fmt::format("<span title=\"{} bytes\">{}</span>", e(size), bytes(v));
  return e(size);
}

std::string verdict_span(const char* cls, const std::string& text) {
  return fmt::format("<span class=\"verdict v-{}\">{}</span>", cls, text);
}

}  // namespace html
}  // namespace preflight::report
