// Slow ranks and nodes, found without a baseline: each rank's time per size against the median
// of the ranks that ran the same operation, summarised over every size of every case, then
// judged against its peers with the median and the median absolute deviation (robust to the
// outlier itself). Late ranks are judged within the groups that ran together, the only ranks
// that wait for each other; where the evidence is too thin, "not judged" and why.
#pragma once

#include <string>
#include <vector>

#include "reader/results_reader.hpp"

namespace preflight::report {

struct OutlierOptions {
  double min_ratio = 1.15;  // at least this much slower than the typical peer ...
  double min_z = 3.0;       // ... and this many robust deviations away
  // A late rank's own time is at most 1/this of its group peers' (at a size, and typically).
  // Stricter than min_ratio: the barrier that starts each iteration releases ranks a little
  // apart, which looks like lateness but is not (see min_late_wait_s).
  double min_late_ratio = 1.3;
  // A named slow node or rank fails the acceptance check "no slow nodes or ranks" (exit 1);
  // false: it is listed, and the verdict does not change (--slow-nodes warn).
  bool slow_fails = true;
  // A slow rank (not of a slow node) fails that check only this far above its peers: on a busy
  // host the barrier that starts each iteration alone leaves a rank 10-20% slow on small
  // collectives (rank 0 most often, with the harness's own work); between min_ratio and this it
  // is listed, not failed.
  double min_failing_rank_ratio = 1.3;

  // Evidence below which a judgement is "not judged" rather than a name (docs/report.md, "Slow
  // nodes, slow ranks, late ranks").
  // Where ranks wait for each other (peer_late), slowness compares back-to-back times only from
  // blocks of at least this many operations: a block of one is one collective, whose time per
  // rank is its role (tiny runs named rank 0 at 1.2-1.5x so; blocks of 20 agreed within 1%).
  // Over 8, a start skew of one operation (tiny runs' was 0.2-0.5) adds at most 1/8 per
  // operation, under the 15% a slow rank must show.
  std::int64_t min_block_ops = 8;
  // Lateness is judged on the per-iteration medians of sizes of at least this many iterations
  // (a median of 3 is not moved by one descheduled iteration) ...
  std::size_t min_late_iterations = 3;
  // ... over at least this many sizes (all cases together) ...
  std::size_t min_late_points = 4;
  // ... and a rank is late only where it was at least min_late_ratio short of its group peers
  // at this share of them: a planted or systematic lateness shows size after size, a rank
  // descheduled by another process on an oversubscribed host at a few sizes only.
  double min_late_share = 0.75;
  // ... and its group peers waited at least this long for it there (seconds; per unit of work
  // in a case with a work counter). The barrier that starts each iteration releases ranks apart
  // by itself: on the 2-core VM the last released spent 0.3 us in an 8-byte collective its
  // peers spent up to 12 us in, in every clean run. 100 us is 8x that, room for the barrier of
  // a slower fabric; a rank late by less is not named (a 1 ms late rank is, in every trial).
  double min_late_wait_s = 100e-6;
};

struct Outlier {
  std::string kind;  // "node", "rank" (slow), or "late rank" (the others wait for it)
  std::string name;  // node name, or "rank N"
  std::vector<int> ranks;
  double ratio = 1;       // its typical time / the peers' typical time
  double z = 0;           // robust z-score among its peers
  std::size_t sizes = 0;  // sizes it was compared over
};

// The slow and late nodes and ranks of `run` (outliers) and what could not be judged, and why,
// one line each ("slow nodes: 2 nodes ran cases that compare peers, judging needs 3"): silence
// there is not health; empty: all judged. Needs at least 3 ranks (3 nodes for nodes) to judge;
// fewer gives no outliers. Late ranks first: the ranks of a late rank's group wait for it, so its
// group is left out of the slowness comparison at every size where it ran. Both from one pass
// over the evidence (at 65,536 ranks each pass over every rank's times at every size costs
// seconds).
// Which per-rank time slowness compares: the back-to-back time where the point has it, since
// over a block of operations the ranks' arrival skew and their roles in the algorithm amortise
// (in one collective, the rank the barrier releases first waits longest for the others, and a
// ring or tree gives each rank its own share of the wait: on 4 emulated hosts with nothing
// planted, per-iteration own times ranged 0.13-2.3x their peers', back-to-back ones
// 0.99-1.01x); else the per-iteration time (a case whose ranks do not wait for each other).
// Null where the ranks wait for each other (the case declares peer_late) and the blocks are
// too short to amortise that: a block of one operation is one collective again, and its times
// are roles (a tiny run named rank 0 slow at 1.2-1.5x so). Ranks that run independently (no
// peer_late) have no roles: their blocks are their own at any length.
const std::vector<double>* slowness_times(const CaseData& c, std::size_t point,
                                          const OutlierOptions& o);

struct OutlierJudgement {
  std::vector<Outlier> outliers;
  std::vector<std::string> not_judged;
};
OutlierJudgement judge_outliers(const RunData& run, const OutlierOptions& options = {});

}  // namespace preflight::report
