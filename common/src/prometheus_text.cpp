#include "preflight/common/prometheus_text.hpp"

#include <fmt/format.h>

#include <cmath>

namespace preflight {
namespace {

// Length of the UTF-8 sequence starting at s[i], or 0 when it is not one.
std::size_t utf8_length(const std::string& s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  const std::size_t n = c < 0x80           ? 1
                        : (c >> 5) == 0x6  ? 2
                        : (c >> 4) == 0xe  ? 3
                        : (c >> 3) == 0x1e ? 4
                                           : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) >> 6) != 0x2) return 0;
  return n;
}

}  // namespace

std::string prometheus_label_value(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_length(text, i);
    if (n == 0) {
      out += '?';
      ++i;
      continue;
    }
    const char c = text[i];
    if (n == 1 && c == '\\')
      out += "\\\\";
    else if (n == 1 && c == '"')
      out += "\\\"";
    else if (n == 1 && c == '\n')
      out += "\\n";
    else
      out.append(text, i, n);
    i += n;
  }
  return out;
}

std::string prometheus_sample_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return fmt::format("{:.17g}", v);
}

}  // namespace preflight
