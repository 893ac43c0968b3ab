// Devices whose readings broke a rule their series declare (schema::Watch; SPEC.md,
// "Telemetry"): one that throttled during a case (rule zero), one whose median lay beyond the
// declared tolerance of its peers' during the same case (peers), one whose best reading over the
// run stayed below the maximum it declares (reference). Names no series and no family: the
// rules, their words and tolerances are read from the file. A warning: it changes no exit code.
#pragma once

#include <string>
#include <vector>

#include "reader/results_reader.hpp"

namespace preflight::report {

struct WatchFinding {
  std::string finding;  // the declared words, e.g. "throttled"
  std::string series;   // the series' name in the file
  int rank = -1;
  std::string device;  // "rank 3 on node0001 (device 0000:3b:00.0)"
  std::string detail;  // the figures: bits and how often, median against the peers', best reading
  std::vector<std::string> cases;  // "000003 name": where it was seen (reference: judged over)
  schema::Remedy remedy = schema::Remedy::kNone;  // as the series declares
};

std::vector<WatchFinding> find_watch_findings(const RunData& run);

// What could not be judged, one line each: a peers rule in cases where fewer than 3 ranks had
// readings (with one or two, no one of them can be told from the others).
std::vector<std::string> watch_not_judged(const RunData& run);

}  // namespace preflight::report
