// What the step projection reads from a run: the workload its step cases ran, and the measured
// figures of the other families, each with the case and file it came from.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "plugins/step_projection.hpp"
#include "reader/results_reader.hpp"

namespace preflight::report::plugins {

struct StepInputs {
  step_projection::Inputs inputs;
  std::vector<std::string> assumptions;  // the workload and every input, with its source
  std::string problem;                   // why it cannot be projected ("" when it can)
};

// Nothing when the run has no step case.
std::optional<StepInputs> step_inputs(const RunData& run, const std::string& label);

// "case 000012 (NAME) in FILE".
std::string source_of(const RunData& run, const CaseData& c);

}  // namespace preflight::report::plugins
