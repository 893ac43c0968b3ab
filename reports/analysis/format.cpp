#include "analysis/format.hpp"

#include <fmt/format.h>

#include <cmath>

namespace preflight::report {

std::string figure(double value, int digits) {
  return std::isnan(value) ? std::string("-") : fmt::format("{:.{}g}", value, digits);
}

}  // namespace preflight::report
