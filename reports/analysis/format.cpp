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

}  // namespace preflight::report
