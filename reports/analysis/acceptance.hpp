// Acceptance rules (YAML, docs/report.md): per metric an expected value or the baseline's, a
// tolerance, and whether higher or lower is better. Each matching case and size is one check:
// pass, fail, or inconclusive when the measurement is too noisy (its median's 95% confidence
// interval straddles the threshold, or too few samples) to say.
#pragma once

#include <yaml-cpp/yaml.h>

#include <limits>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/case_view.hpp"
#include "reader/results_reader.hpp"

namespace preflight::report {

// A rules file that cannot be used: names the file, line, key and the fix.
struct RulesError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// kNotMeasured: the rule matched no case of the run: nothing was judged, and that is a warning,
// not a verdict (a campaign need not measure everything a rules file or an envelope covers).
enum class CheckVerdict { kPass, kFail, kInconclusive, kNotMeasured };
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
  // A reference figure's typical value (its expected is the floor); NaN for a rules file's.
  double typical = std::numeric_limits<double>::quiet_NaN();
  double threshold = 0;     // expected with the tolerance applied
  std::size_t samples = 0;  // per-iteration samples; against a baseline, the current replicates
  CheckVerdict verdict = CheckVerdict::kInconclusive;
  std::string reason;  // one line: why this verdict
};

// The built-in check a named slow node or rank fails (report.cpp).
inline constexpr std::string_view kSlowNodeRule = "no slow nodes or ranks";
// The built-in check a finding that names hosts or links to act on fails (report.cpp).
inline constexpr std::string_view kSuspectRule = "nothing named to act on";
// The built-in check a failed environment check of the run fails (report.cpp).
inline constexpr std::string_view kEnvCheckRule = "environment checks";

// One rule: which cases and sizes, which metric, and what it must reach. A rules file's rule,
// or a reference envelope's figure (analysis/reference.hpp: expect is its floor).
struct Rule {
  std::string name;
  std::map<std::string, std::set<std::string>> where;  // case attribute -> accepted values
  std::set<double> sizes;                              // empty: every size
  std::string band;                                    // "" : every band
  std::string metric;
  std::string unit;    // a reference figure's: the metric's declared unit
  std::string better;  // "" : from the file
  bool from_baseline = false;
  double expect = 0;
  double tolerance = 0;  // relative
  double min_samples = 10;
  // A reference figure's typical value and the source of both it and the floor (expect);
  // typical is NaN for a rules file's rule.
  double typical = std::numeric_limits<double>::quiet_NaN();
  std::string source;
};

struct RuleSet {
  std::vector<Rule> rules;
};

struct Rules {
  std::string path;
  std::vector<std::string> names;
  std::shared_ptr<const RuleSet> set;
};

// Throws RulesError.
Rules read_rules(const std::string& path);

// A rule's selection read from a YAML mapping: where, sizes, band, metric and better (the keys
// a rules file and a reference envelope share). `context` names the rule in messages, e.g.
// "rules[2] ('bandwidth')". Throws RulesError naming the file, line and key.
void read_selection(const std::string& path, const YAML::Node& node, const std::string& context,
                    Rule& r);

// Keys of `where` read from the case rather than its attributes: family, backend, name, and
// the meaning's subject and series.
const std::set<std::string>& case_field_keys();

// Whether case `c` is one the rule selects (its `where`), and the point of it (`sizes`, `band`).
bool selects(const Rule& r, const CaseData& c);
bool selects_point(const Rule& r, const CaseView& v, std::size_t point);

// `baselines` may be empty; a rule relative to a baseline then fails (RulesError). A rule
// relative to the baseline judges each case (its repetitions together) and size by the
// run-to-run comparison of analysis/replicates.hpp, as the regression does: it fails when the
// metric is worse by more than the tolerance beyond the noise (false discovery rate `alpha`
// over the rule's checks and the metric at every other case and size the runs share), passes
// when a change worse than the tolerance is ruled out, and is
// inconclusive otherwise, with the repetitions that would decide it.
// `refuse_misspelt`: a rule naming a metric or attribute none of its family's cases in the run
// has is refused as misspelt (a user's rules file); a reference envelope's figures were checked
// against the schema's declarations when read, and an older file may rightly lack a name.
std::vector<Check> evaluate(const Rules& rules, const RunData& run, const std::string& label,
                            const std::vector<const RunData*>& baselines, double alpha,
                            bool refuse_misspelt = true);

// Checks that hold without rules: every case ran and its results were right, the run completed.
std::vector<Check> builtin_checks(const RunData& run, const std::string& label);

}  // namespace preflight::report
