#pragma once

#include <string_view>

namespace preflight {

// "0.5", "0.5s", "200ms", "50us", "2m": seconds. Throws UsageError naming `field`.
double parse_duration(std::string_view text, std::string_view field);

}  // namespace preflight
