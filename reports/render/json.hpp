// The JSON verdict (schema in docs/report.md): for CI systems and scripts.
#pragma once

#include <string>

#include "analysis/report.hpp"

namespace preflight::report {

std::string render_json(const Report& report);

}  // namespace preflight::report
