// Acceptance rules (YAML, docs/report.md): per metric an expected value or the baseline's, a
// tolerance, and whether higher or lower is better. Each matching case and size is one check:
// pass, fail, or inconclusive when the measurement is too noisy (its median's 95% confidence
// interval straddles the threshold, or too few samples) to say.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "reader/results_reader.hpp"

namespace preflight::report {

// A rules file that cannot be used: names the file, line, key and the fix.
struct RulesError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class CheckVerdict { kPass, kFail, kInconclusive };
const char* name_of(CheckVerdict v);

struct Check {
  std::string rule;       // the rule's name
  std::string run_label;  // the run it judged
  std::string case_name;  // group name and case name, e.g. "000003 allreduce ..."
  std::string size;       // size_bytes, point index, or "" for a whole-case check
  std::string metric, unit, better;
  double value = 0;                // measured (per-iteration median)
  double ci_low = 0, ci_high = 0;  // the metric's 95% interval from the median's
  double expected = 0;             // the rule's value, or the baseline's
  double threshold = 0;            // expected with the tolerance applied
  std::size_t samples = 0;  // per-iteration samples; against a baseline, the current replicates
  CheckVerdict verdict = CheckVerdict::kInconclusive;
  std::string reason;  // one line: why this verdict
};

// The built-in check a named slow node or rank fails (report.cpp).
inline constexpr std::string_view kSlowNodeRule = "no slow nodes or ranks";
// The built-in check a failed environment check of the run fails (report.cpp).
inline constexpr std::string_view kEnvCheckRule = "environment checks";

struct RuleSet;  // parsed rules; defined in acceptance.cpp

struct Rules {
  std::string path;
  std::vector<std::string> names;
  std::shared_ptr<const RuleSet> set;
};

// Throws RulesError.
Rules read_rules(const std::string& path);

// `baselines` may be empty; a rule relative to a baseline then fails (RulesError). A rule
// relative to the baseline judges each case (its repetitions together) and size by the
// run-to-run comparison of analysis/replicates.hpp, as the regression does: it fails when the
// metric is worse by more than the tolerance beyond the noise (false discovery rate `alpha`
// over the rule's checks and the metric at every other case and size the runs share), passes
// when a change worse than the tolerance is ruled out, and is
// inconclusive otherwise, with the repetitions that would decide it.
std::vector<Check> evaluate(const Rules& rules, const RunData& run, const std::string& label,
                            const std::vector<const RunData*>& baselines, double alpha);

// Checks that hold without rules: every case ran and its results were right, the run completed.
std::vector<Check> builtin_checks(const RunData& run, const std::string& label);

}  // namespace preflight::report
