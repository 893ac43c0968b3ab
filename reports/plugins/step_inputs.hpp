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
  std::string workload;                  // workload_key of the step case projected
};

// What tells one step workload from another in a file: every attribute of a step case but its
// node count's layout (the cases of one workload at 1, 2, 4 ... nodes share it).
std::string workload_key(const CaseData& step);

// Nothing when the run has no step case.
std::optional<StepInputs> step_inputs(const RunData& run, const std::string& label);

// "case 000012 (NAME) in FILE".
std::string source_of(const RunData& run, const CaseData& c);

}  // namespace preflight::report::plugins
