#include "harness/config/duration.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <string>

#include "preflight/common/usage_error.hpp"

namespace preflight {

double parse_duration(std::string_view text, std::string_view field) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  const std::string_view unit(end, static_cast<std::size_t>(text.data() + text.size() - end));
  double scale = 0;
  if (unit.empty() || unit == "s")
    scale = 1;
  else if (unit == "ms")
    scale = 1e-3;
  else if (unit == "us")
    scale = 1e-6;
  else if (unit == "m" || unit == "min")
    scale = 60;
  else if (unit == "h")
    scale = 3600;
  if (ec != std::errc() || scale == 0 || !std::isfinite(value) || value < 0)
    throw UsageError(
        fmt::format("{}: expected a duration such as 0.5s, 200ms or 2m, found '{}'", field, text));
  return value * scale;
}

}  // namespace preflight
