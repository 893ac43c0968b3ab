// The step family (docs/step.md): a synthetic training step of the configured workload.
#pragma once

#include <memory>

#include "harness/run/family.hpp"

namespace preflight::step {
std::unique_ptr<Family> make_step_family();
}  // namespace preflight::step
