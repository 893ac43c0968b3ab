#include "analysis/format.hpp"

#include <fmt/format.h>

#include <cmath>

namespace preflight::report {

std::string figure(double value, int digits) {
  return std::isnan(value) ? std::string("-") : fmt::format("{:.{}g}", value, digits);
}

std::string with_unit(const std::string& figure, const std::string& unit,
                      const std::string& space) {
  return unit.empty() ? figure : figure + space + unit;
}

std::string seconds(double s) {
  return s < 0 || std::isnan(s) ? std::string("n/a") : fmt::format("{:.4g}", s);
}

std::string binary_bytes(double bytes, const std::string& space) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (std::fabs(bytes) >= 1024 && u < 5) {
    bytes /= 1024;
    ++u;
  }
  return fmt::format("{:g}{}{}", bytes, space, units[u]);
}

std::string percent(double fraction, int decimals, bool sign) {
  if (std::isnan(fraction)) return "n/a";
  return sign ? fmt::format("{:+.{}f}%", fraction * 100, decimals)
              : fmt::format("{:.{}f}%", fraction * 100, decimals);
}

std::string percent_significant(double fraction, int digits) {
  return std::isnan(fraction) ? std::string("n/a")
                              : fmt::format("{:.{}g}%", fraction * 100, digits);
}

std::string duration(double s) {
  constexpr double kHour = 3600;
  if (std::isnan(s)) return "n/a";
  if (std::isinf(s)) return "never";
  if (s >= 2 * kHour) return fmt::format("{:.3g} h", s / kHour);
  if (s >= 120) return fmt::format("{:.3g} min", s / 60);
  return fmt::format("{:.3g} s", s);
}

}  // namespace preflight::report
