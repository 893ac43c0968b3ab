#include "preflight/common/sizes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

#include "preflight/common/usage_error.hpp"

namespace preflight {
namespace {

constexpr std::uint64_t kMaxSweepPoints = 4096;

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

[[noreturn]] void bad_size(std::string_view field, std::string_view text, std::string_view why) {
  throw UsageError(
      fmt::format("{}: expected a size in bytes such as 8, 64K, 1M or 2GiB, found '{}' ({})", field,
                  text, why));
}

std::uint64_t multiplier(std::string_view suffix, std::string_view field, std::string_view text) {
  std::string s;
  for (char c : suffix) s += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (s.empty() || s == "B") return 1;
  if (s == "K" || s == "KB" || s == "KIB") return 1ULL << 10;
  if (s == "M" || s == "MB" || s == "MIB") return 1ULL << 20;
  if (s == "G" || s == "GB" || s == "GIB") return 1ULL << 30;
  if (s == "T" || s == "TB" || s == "TIB") return 1ULL << 40;
  bad_size(field, text, fmt::format("unknown unit '{}'", suffix));
}

double parse_number(std::string_view text, std::string_view field, std::string_view what) {
  double value = 0;
  const auto t = trim(text);
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (ec != std::errc() || end != t.data() + t.size() || !std::isfinite(value))
    throw UsageError(fmt::format("{}: expected {}, found '{}'", field, what, text));
  return value;
}

}  // namespace

std::uint64_t parse_size(std::string_view text, std::string_view field) {
  const auto t = trim(text);
  if (t.empty()) bad_size(field, text, "empty");
  std::size_t digits = 0;
  while (digits < t.size() &&
         (std::isdigit(static_cast<unsigned char>(t[digits])) || t[digits] == '.'))
    ++digits;
  if (digits == 0) bad_size(field, text, "no number");
  double number = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + digits, number);
  if (ec != std::errc() || end != t.data() + digits) bad_size(field, text, "not a number");
  const double bytes =
      number * static_cast<double>(multiplier(trim(t.substr(digits)), field, text));
  if (bytes > static_cast<double>(std::numeric_limits<std::int64_t>::max()))
    bad_size(field, text, "too large");
  if (bytes != std::floor(bytes)) bad_size(field, text, "not a whole number of bytes");
  return static_cast<std::uint64_t>(bytes);
}

std::vector<std::uint64_t> expand_sweep(const SweepSpec& spec, std::string_view field) {
  if (spec.max_bytes < spec.min_bytes)
    throw UsageError(fmt::format("{}: the largest size ({}) is below the smallest ({})", field,
                                 format_bytes(spec.max_bytes), format_bytes(spec.min_bytes)));
  const bool geometric = spec.factor > 1.0;
  if (!geometric && spec.step == 0 && spec.min_bytes != spec.max_bytes)
    throw UsageError(fmt::format(
        "{}: expected a step factor above 1 (-f 2) or a step in bytes (-i 8K), found factor {} "
        "and step 0",
        field, spec.factor));
  if (geometric && spec.min_bytes == 0)
    throw UsageError(fmt::format("{}: a geometric sweep (factor {}) cannot start at 0 bytes", field,
                                 spec.factor));
  std::vector<std::uint64_t> sizes;
  double size = static_cast<double>(spec.min_bytes);
  while (size <= static_cast<double>(spec.max_bytes) * (1 + 1e-12)) {
    const auto bytes = static_cast<std::uint64_t>(std::llround(size));
    if (sizes.empty() || sizes.back() != bytes) sizes.push_back(bytes);
    if (sizes.size() > kMaxSweepPoints)
      throw UsageError(fmt::format("{}: the sweep has more than {} sizes; use a larger step", field,
                                   kMaxSweepPoints));
    if (spec.min_bytes == spec.max_bytes) break;
    size = geometric ? size * spec.factor : size + static_cast<double>(spec.step);
  }
  return sizes;
}

std::vector<std::uint64_t> parse_sweep(std::string_view text, std::string_view field) {
  const auto t = trim(text);
  if (t.empty())
    throw UsageError(fmt::format("{}: expected sizes such as 8:1M:x2, found nothing", field));
  if (t.find(',') != std::string_view::npos) {
    std::vector<std::uint64_t> sizes;
    std::size_t start = 0;
    while (start <= t.size()) {
      const auto comma = std::min(t.find(',', start), t.size());
      sizes.push_back(parse_size(t.substr(start, comma - start), field));
      start = comma + 1;
    }
    return sizes;
  }
  const auto first = t.find(':');
  if (first == std::string_view::npos) return {parse_size(t, field)};
  const auto second = t.find(':', first + 1);
  SweepSpec spec;
  spec.min_bytes = parse_size(t.substr(0, first), field);
  spec.max_bytes =
      parse_size(t.substr(first + 1, second == std::string_view::npos ? std::string_view::npos
                                                                      : second - first - 1),
                 field);
  spec.factor = 2.0;
  if (second != std::string_view::npos) {
    const auto step = trim(t.substr(second + 1));
    if (!step.empty() && (step[0] == 'x' || step[0] == '*')) {
      spec.factor = parse_number(step.substr(1), field, "a factor after 'x', as in 8:1M:x2");
      if (spec.factor <= 1.0)
        throw UsageError(
            fmt::format("{}: expected a factor above 1 after 'x', found '{}'", field, step));
    } else if (!step.empty() && step[0] == '+') {
      spec.factor = 0;
      spec.step = parse_size(step.substr(1), field);
      if (spec.step == 0) throw UsageError(fmt::format("{}: the step '+0' never ends", field));
    } else {
      throw UsageError(
          fmt::format("{}: expected the step as xFACTOR or +BYTES (8:1M:x2, 0:64K:+8K), found '{}'",
                      field, step));
    }
  }
  return expand_sweep(spec, field);
}

std::string format_bytes(std::uint64_t bytes) {
  constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  if (unit == 0) return fmt::format("{} B", bytes);
  return value == std::floor(value) ? fmt::format("{:.0f} {}", value, kUnits[unit])
                                    : fmt::format("{:.1f} {}", value, kUnits[unit]);
}

}  // namespace preflight
