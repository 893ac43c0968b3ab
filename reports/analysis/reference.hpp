// Reference envelopes (configs/references/*.yaml, docs/references.md): for one platform, what
// each figure should reach (typical), the floor below which it fails, and where both numbers
// come from. The strongest of the report's three references (docs/design.md, "Judgement"): peer
// comparison alone cannot see a fault that every node shares (a driver, a switch, a setting), an
// envelope can. Chosen per run from its recorded environment, or given (--reference), or made
// from a run the site trusts (--make-reference, analysis/site_reference.hpp).
//
// Each figure is an acceptance rule (analysis/acceptance.hpp) whose `expect` is the floor, with
// no tolerance: judged by the same pass / fail / inconclusive logic as a rules file's rule.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/acceptance.hpp"
#include "analysis/case_view.hpp"
#include "reader/results_reader.hpp"

namespace preflight::report {

// An envelope file that cannot be used, or a --reference that names none: the file, line, key
// and the fix (exit 2).
struct ReferenceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Reference {
  std::string name;   // the platform (`reference:`), what --reference NAME picks
  std::string title;  // the hardware in words
  std::string path;
  // Environment column -> patterns, any of which a rank's value must match (a regular
  // expression searched case-insensitively: "H200" anywhere, "^NVIDIA H200$" the whole value;
  // "" : the value is empty); every rank must match every column.
  std::map<std::string, std::vector<std::string>> match;
  std::string made_from;  // a site reference: the run it was made from; "" for a platform's
  Rules figures;          // one rule per figure: expect = floor, typical, source
};

// Throws ReferenceError.
Reference read_reference(const std::string& path);
// Every *.yaml in `dir`, ordered by name; none when `dir` does not exist. Throws ReferenceError.
std::vector<Reference> read_references(const std::string& dir);

// Where --references defaults to: next to the executable (a bundle or an install:
// EXE_DIR/../share/preflight/references) or the source tree's configs/references; "" if neither.
std::string default_references_dir(const std::string& executable);

struct ReferenceChoice {
  const Reference* reference = nullptr;  // null: judged against peers only
  std::string why;                       // how it was chosen, or why there is none, in short
  std::string detail = {};               // the envelopes that did not match, and why
};

// The envelope whose `match` holds on every rank of the run (the one with the most match
// columns when several do).
ReferenceChoice choose_reference(const std::vector<Reference>& all, const RunData& run);

// "" when `ref` matches every rank of `run`; else the first rank and column that do not.
std::string mismatch(const Reference& ref, const RunData& run);

// The envelope named `name` among `all`, or read from `name` when it is a path to a file (ends
// in .yaml or .yml, or contains '/'). Throws ReferenceError with a did-you-mean.
Reference find_reference(const std::vector<Reference>& all, const std::string& name);

// The figure of `ref` that judges `metric` of the case at `point`: the first that selects both;
// null when none does.
const Rule* figure_for(const Reference& ref, const CaseView& v, std::size_t point,
                       const std::string& metric);

}  // namespace preflight::report
