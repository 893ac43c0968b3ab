// Report plug-in (comm): an alpha-beta model of each collective fitted to the measured times,
// predicting larger node counts for ring and tree algorithms. Uses bench/comm's traits table.
#pragma once

#include <string>
#include <vector>

#include "reader/results_reader.hpp"

namespace preflight::report {

// Time of one operation of S bytes on n ranks: steps(n) * alpha + factor(n) * S * beta.
struct Prediction {
  double nodes = 0, ranks = 0, size = 0;  // size: S, in bytes
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
  std::string caveat;  // why the fit and its predictions cannot be trusted; empty: they can
};

namespace plugins {
std::vector<AlphaBetaFit> alpha_beta_fits(const RunData& run, const std::string& label);
}  // namespace plugins

}  // namespace preflight::report
