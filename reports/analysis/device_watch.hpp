// Devices whose readings broke a rule their series declare (schema::Watch; SPEC.md,
// "Telemetry"): one that throttled during a case (rule zero), one whose median lay beyond the
// declared tolerance of its peers' during the same case (peers), one whose best reading over the
// run stayed below the maximum it declares (reference). Names no series and no family: the
// rules, their words and tolerances are read from the file. A warning: it changes no exit code.
#pragma once

#include <cmath>
#include <cstddef>
#include <map>
#include <string>
#include <utility>
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
  bool operator==(const WatchFinding&) const = default;
};

// The rules judged case by case, so that a run's cases can be judged in parts and the parts
// joined in case order: joined, they give what judging all the cases at once gives. A soak's
// rounds are judged this way as they are read, each round's readings kept only until it is
// judged (at 1,000 nodes they are 184 MB for each hour of soak). `run` gives each rank's device
// (its environment, the same for every part); the cases are its own.
class WatchJudgement {
 public:
  void add(const RunData& run, const CaseData& c);
  // `later` judged the cases that come after the ones judged here.
  void join(WatchJudgement&& later);
  std::vector<WatchFinding> findings(const RunData& run) const;
  // What could not be judged, one line each: a peers rule in cases where fewer than 3 ranks had
  // readings (with one or two, no one of them can be told from the others).
  std::vector<std::string> not_judged() const;

 private:
  using Key = std::pair<std::string, std::size_t>;  // series, rank
  // One finding per series and rank, the cases where it was seen gathered into it; the detail
  // is the case's where the rule was broken worst.
  struct Found {
    WatchFinding finding;
    double severity = 0;
  };
  // A reference rule is judged over the run: each rank's best reading and best reference, and,
  // for the findings, the cases where it had readings.
  struct Best {
    double reading = -INFINITY, reference = -INFINITY;
    std::size_t cases = 0;
  };
  struct ReferenceSeries {
    std::string finding, unit;
    schema::Remedy remedy = schema::Remedy::kNone;
    std::vector<Best> of_rank;
    std::vector<std::pair<std::string, std::vector<bool>>> cases;  // label, ranks read
  };
  void record(const RunData& run, const std::string& series, const WatchedSeries& w,
              std::size_t rank, const std::string& case_label, std::string detail, double severity);
  void tally_reference(const std::string& series, const WatchedSeries& w,
                       const std::string& case_label);
  std::map<Key, Found> found_;
  std::vector<Key> order_;  // first found first
  std::map<std::string, ReferenceSeries> reference_;
  std::vector<Key> reference_order_;                                     // first read first
  std::map<std::string, std::pair<std::string, std::size_t>> unjudged_;  // finding, cases
};

// All the run's cases judged at once.
WatchJudgement watch_judgement(const RunData& run);
std::vector<WatchFinding> find_watch_findings(const RunData& run);
std::vector<std::string> watch_not_judged(const RunData& run);

}  // namespace preflight::report
