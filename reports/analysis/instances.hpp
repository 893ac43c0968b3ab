// Instance-type comparison: several results files side by side, each with a label and an hourly
// price from a catalogue (configs/instances.yaml): each throughput per dollar, and a winner per
// metric.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "reader/results_reader.hpp"

namespace preflight::report {

struct CatalogueError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Instance {
  std::string name;
  double price_per_hour = 0;  // in `currency`
  std::string note;
};

struct Catalogue {
  std::string path, currency = "USD";
  std::map<std::string, Instance> instances;
};

// Throws CatalogueError.
Catalogue read_catalogue(const std::string& path);

struct InstanceCell {
  double value = 0;       // the mean of its repetitions' values, NaN when the run lacks it
  double per_dollar = 0;  // value / price per hour
  double p_value = 1;     // the winner's against the runner-up (rank test of the repetitions)
};

struct InstanceRow {
  std::string subject;  // case and size
  std::string metric, unit;
  std::vector<InstanceCell> cells;  // one per instance, in file order
  int winner = -1;                  // best per dollar; -1 when no run has it
  // The winner beats the runner-up per dollar by at least min_change beyond the run-to-run
  // noise of their repetitions (analysis/replicates.hpp), the false discovery rate over all rows
  // held at alpha.
  bool clear = false;
};

struct InstanceComparison {
  std::string currency;
  std::vector<std::string> labels;
  std::vector<double> prices;
  std::vector<InstanceRow> rows;
  std::vector<int> wins;              // rows won per instance
  std::vector<int> clear_wins;        // of those, won beyond the noise
  std::vector<std::string> warnings;  // e.g. the runs differ in ranks or nodes
};

// Throws CatalogueError when a label has no price.
InstanceComparison compare_instances(const std::vector<const RunData*>& runs,
                                     const std::vector<std::string>& labels,
                                     const Catalogue& catalogue, double alpha, double min_change);

}  // namespace preflight::report
