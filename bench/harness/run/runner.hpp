// Runs a campaign's cases: correctness check, warm-up, per-iteration and back-to-back timing on
// every rank, gathering to rank 0, statistics, progress, and handing results to the sinks.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "harness/config/timing.hpp"
#include "harness/run/case.hpp"
#include "harness/run/rank_context.hpp"
#include "harness/run/record.hpp"
#include "harness/run/watchdog.hpp"
#include "harness/sinks/sink.hpp"

namespace preflight {

// One case of the campaign with where it came from.
struct PlannedCase {
  std::shared_ptr<Case> c;  // shared by the repetitions of a case
  std::string benchmark;
  std::string variant;
  int repetition = 0;
  const std::map<std::string, std::string>* env = nullptr;  // the variant's environment
  TimingOptions timing;
};

// What the run as a whole obeys, beyond each case's timing.
struct RunControls {
  double time_budget_s = 0;     // stop starting cases after this; 0: no limit
  double soak_s = 0;            // a soak: start rounds of the plan until this is spent; 0: none
  double soaked_s = 0;          // time the file's finished cases ran already (resume)
  std::set<std::size_t> skip;   // cases already in the file (resume)
  bool earlier_failed = false;  // a skipped case had failed
  // Test-only fault injection.
  int corrupt_rank = -1;  // damages its result before the check
  // With corrupt_rank: instead of the check before timing, flip a bit of every corrupt_every-th
  // result of an operation that checks each run (Operation::plant_corruption); 0: off.
  int corrupt_every = 0;
  std::string corrupt_case;  // only cases whose name holds its words (names_words); empty: all
  int hang_rank = -1;        // sleeps at the start of size hang_point of case hang_case
  std::size_t hang_case = 0;
  std::size_t hang_point = 0;  // also the case where internal_error_rank fails
  int internal_error_rank = -1;
  int slow_node = -1;        // this node's ranks take slow_factor longer per operation
  double slow_factor = 0.3;  // throws as preflight would on an internal error
  double hang_seconds = 3600;
  int late_rank = -1;  // leaves every starting barrier late_seconds after the others
  double late_seconds = 0.2;
  // This rank's operations take drift_per_round x the round (repetition) longer: a slow-down
  // that grows round by round, as a device that heats up or wears would.
  int drift_rank = -1;
  double drift_per_round = 0.02;
};

// Rank 0's case in progress, shared with the watchdog so a timeout can record what finished.
struct InProgress {
  // Also serialises every sink call (HDF5 is not thread-safe). Timed, so that the watchdog
  // can give up on a writer stuck on a hung file system and still end the job.
  std::timed_mutex mutex;
  CaseRecord record;
  bool active = false;
};

// Whether `words` (split at spaces) appear in `name` as consecutive whole words: "allreduce Ring
// LL" names "allreduce Ring LL float32", not "allreduce Ring LL128 float32". Empty: false.
bool names_words(std::string_view name, std::string_view words);

// Collective over ctx.world. On rank 0 the result holds every rank's samples and statistics.
// clock_offset_s: this rank's clock minus rank 0's (clock_sync.hpp), for the starts of a case
// that measures_span().
// round: the case's repetition (a soak's round), for the planted drift.
PointResult run_point(Case& c, std::size_t point, const RankContext& ctx,
                      const TimingOptions& timing, const RunControls& controls,
                      double clock_offset_s, Watchdog* watchdog, int round = 0);

// Runs the plan and returns preflight's exit code (every rank returns the same). With
// controls.soak_s the plan is one round: round r's case j has index r x plan.size() + j and
// repetition r, and rounds start while the soak's time lasts (soak.hpp).
int run_campaign(std::vector<PlannedCase>& plan, const RankContext& ctx,
                 const RunControls& controls, const std::vector<ResultSink*>& sinks,
                 Watchdog* watchdog, InProgress& progress);

}  // namespace preflight
