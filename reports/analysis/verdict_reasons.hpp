// The verdict and its reasons, in the order every renderer shows them first: failed checks,
// slower sizes, named slow nodes and ranks, cases that failed or timed out, then what made the
// verdict inconclusive, then what could not be judged. One line each, with its figure; a reason
// repeated across many cases is one line with a count.
#pragma once

#include <string>
#include <vector>

#include "analysis/report.hpp"

namespace preflight::report {

// kWarn: an environment check's warning (docs/environment-checks.md), or a device whose
// telemetry broke a rule its series declare (analysis/device_watch.hpp); it changes no exit code.
enum class ReasonKind { kFail, kInconclusive, kWarn, kNotJudged };
const char* name_of(ReasonKind kind);  // "fail", "inconclusive", "warn", "not judged"

struct VerdictReason {
  ReasonKind kind = ReasonKind::kFail;
  std::string text;       // one line, with the figure
  std::size_t count = 1;  // the cases or sizes this line stands for
  std::string counted;    // what count counts, plural: "sizes slower", "checks failed"
};

// At most this many lines of one kind of reason are listed one by one; beyond, one line says
// how many more there are and where they are.
inline constexpr std::size_t kReasonsListed = 5;

std::vector<VerdictReason> verdict_reasons(const Report& report);

// "fail (exit 1): 20 sizes slower, 1 check failed" — the verdict with a count of each reason.
std::string verdict_headline(const Report& report, const std::vector<VerdictReason>& reasons);

}  // namespace preflight::report
