// Scaling: how a throughput holds up as nodes are added (comm's node ladder, storage's ranks and
// nodes), per size band, and an alpha-beta model of each collective fitted to the measured times
// that predicts larger node counts for ring and tree algorithms.
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
  std::string family;    // comm, storage, ...
  std::string subject;   // e.g. "allreduce float32 sum out-of-place", "storage psync seq direct"
  std::string topology;  // the comm topology, or "ranks" / "nodes" for storage
  std::string band;      // name_of(Band), or "" where sizes do not apply
  std::string metric, unit;  // e.g. busbw, GB/s
  // Collectives: efficiency is the value against the first multi-node step (busbw is already
  // per rank: ideal is flat). Aggregate throughputs (storage, dataloader): the value per rank
  // against the smallest step's (ideal is linear in ranks).
  bool aggregate = false;
  double reference_nodes = 0, reference_ranks = 0;
  std::vector<ScalingPoint> points;  // by nodes (then ranks), ascending
};

// Time of one operation of S bytes on n ranks: steps(n) * alpha + factor(n) * S * beta.
struct Prediction {
  double nodes = 0, ranks = 0, size_bytes = 0;
  double ring_s = 0;
  double tree_s = 0;  // NaN where the collective has no tree algorithm
};

struct AlphaBetaFit {
  std::string run_label;
  std::string subject;  // the collective and its parameters
  std::string collective, topology;
  double alpha_s = 0;          // latency per step
  double beta_s_per_byte = 0;  // 1 / link bandwidth
  double ranks_per_node = 0;
  std::size_t points = 0;       // (ranks, size) medians fitted
  double median_rel_error = 0;  // |fitted - measured| / measured, median over those points
  std::string model;            // the formula, in words, for the report
  std::vector<Prediction> predictions;
};

// "small sizes", "1 MiB blocks" or "": a series' band as the report words it.
std::string band_text(const std::string& band);

std::vector<ScalingSeries> scaling_series(const RunData& run, const std::string& label);
std::vector<AlphaBetaFit> alpha_beta_fits(const RunData& run, const std::string& label);

}  // namespace preflight::report
