// Scaling: how a case's headline figure holds up as ranks and nodes are added, per size band
// (or per x), all from the cases' declarations: `scaling` (aggregate: ideal linear in ranks;
// per_rank: ideal flat over nodes), `span_nodes`, `series` and `subject`.
#pragma once

#include <string>
#include <vector>

#include "reader/results_reader.hpp"

namespace preflight::report {

// Size bands of a collective: latency-bound, in between, bandwidth-bound.
enum class Band { kSmall, kMedium, kLarge };
constexpr double kSmallBelow = 64.0 * 1024;        // small: size < 64 KiB
constexpr double kLargeFrom = 16.0 * 1024 * 1024;  // large: size >= 16 MiB
Band band_of(double size_bytes);
const char* name_of(Band b);   // "small", "medium", "large"
std::string describe(Band b);  // "small (< 64 KiB, latency-bound)"

struct ScalingPoint {
  double nodes = 0;                // nodes in the step
  double ranks = 0;                // ranks in the step
  double value = 0;                // median over the band's sizes of the metric (per-iteration)
  double efficiency = 0;           // value / value at the reference step; NaN before the reference
  std::vector<std::string> cases;  // the cases (group names) the value came from
};

// One quantity measured at several scales in one run.
struct ScalingSeries {
  std::string run_label;
  std::string family;    // the cases' family, as the file names it
  std::string subject;   // the benchmark, the declared subject and the variant
  std::string topology;  // the declared series; for aggregates, which of their two curves
  schema::Stage stage = schema::Stage::kStep;  // the cases' declared stage
  std::string band;                            // name_of(Band), or "" where sizes do not apply
  std::string metric, unit;                    // e.g. busbw, GB/s
  // Per-rank figures: efficiency is the value against the first multi-node step (ideal is
  // flat). Aggregate figures: the value per rank against the smallest step's (ideal is linear
  // in ranks).
  bool aggregate = false;
  double reference_nodes = 0, reference_ranks = 0;
  std::vector<ScalingPoint> points;  // by nodes (then ranks), ascending
};

// "small sizes", "1 MiB blocks" or "": a series' band as the report words it.
std::string band_text(const std::string& band);

std::vector<ScalingSeries> scaling_series(const RunData& run, const std::string& label);

}  // namespace preflight::report
