// A soak repeats a campaign's cases in rounds until its duration is spent (docs/guide-burn-in.md):
// when to start another round, and the worst node so far for rank 0's progress lines.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "harness/run/rank_context.hpp"
#include "harness/run/record.hpp"

namespace preflight {

// Rank 0's account of the time a soak has run; every rank follows its decisions.
class SoakClock {
 public:
  // soak_s: the duration (0: not a soak); soaked_s: time the file's finished cases already ran,
  // rounds_before: how many rounds' worth of cases they were (the first estimate of a round).
  SoakClock(double soak_s, double soaked_s, double rounds_before)
      : soak_s_(soak_s), soaked_before_s_(soaked_s), rounds_before_(rounds_before) {}
  bool active() const { return soak_s_ > 0; }
  double soak_s() const { return soak_s_; }
  // Time soaked: what the file held plus this job's time so far.
  double soaked_s(double job_elapsed_s) const { return soaked_before_s_ + job_elapsed_s; }
  // A round ended at this job's elapsed time.
  void round_ended(double job_elapsed_s);
  // Whether another round may start: while the time soaked plus a round as long as this job's
  // rounds have been stays within the duration, so that the soak ends near it, not a round past
  // it. The first round of a job starts while any time is left. Collective: rank 0 decides.
  bool another_round(double job_elapsed_s, const RankContext& ctx) const;
  // Rounds this job is likely to start still, for the progress line; -1 before a round ended.
  long rounds_left(double job_elapsed_s) const;

 private:
  double mean_round_s() const;
  double soak_s_ = 0, soaked_before_s_ = 0, rounds_before_ = 0;
  double rounds_s_ = 0;  // this job's whole rounds, their time
  long rounds_ = 0;
  double last_end_s_ = 0;
};

// Each node's time against its peers' in one finished case, on rank 0: per point the median of
// the node's ranks' median times over the median of all active ranks', at the point where that
// is highest. Index: node; NaN for a node whose ranks idled at every point. Empty unless the case
// declares a rank's own time a measure of its health (peer_slow) and there are 2 nodes or more.
// Linear in the case's samples (iterations x ranks x points).
std::vector<double> node_time_ratios(const CaseRecord& record, const RankContext& ctx);

// The node whose ranks were slowest against their peers (node_time_ratios) in any finished case
// of a soak so far, on rank 0.
class WorstNode {
 public:
  // A finished case's node_time_ratios.
  void take(const std::vector<double>& ratios, const std::string& case_name, const RankContext& ctx,
            long round);
  // "host2 1.84x its peers (round 3, allreduce ...)", or "" before a peer comparison.
  std::string text() const;

 private:
  double ratio_ = 0;
  std::string node_, case_name_;
  long round_ = -1;
};

}  // namespace preflight
