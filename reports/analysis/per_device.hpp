// Each rank's rate beside its peers', for the cases that compare peers (peer_slow): every rank
// runs the same operation on its own device at once, so a slow GPU, socket or disk shows as the
// one rank below the others. Read from the declarations alone: the headline figure and its
// per-iteration rule, the point's x and the per-rank median times.
#pragma once

#include <string>
#include <vector>

#include "reader/results_reader.hpp"

namespace preflight::report {

struct PerDeviceRates {
  const CaseData* c = nullptr;
  std::size_t point = 0;  // the case's heaviest point (the largest x)
  std::string metric, unit;
  std::vector<int> ranks;     // the active ranks, in order
  std::vector<double> rates;  // the headline figure each rank reached on its own
  double peers_median = 0;    // median of rates
};

// Cases of `run` that declare peer_slow, whose headline is a rate with per-iteration values from
// the time (value x time is the same work on every rank), with 2 or more active ranks.
std::vector<PerDeviceRates> per_device_rates(const RunData& run);

}  // namespace preflight::report
