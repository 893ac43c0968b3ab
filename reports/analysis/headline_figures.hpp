// Each case's headline figure at each of its points, and which host each node ran on: what an
// export of the runs' figures (Prometheus) labels and the runs' tables name, read here so that no
// renderer reads a results file's columns or environment.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "reader/results_reader.hpp"

namespace preflight::report {

struct HeadlineFigure {
  std::string case_label;  // "000012 name": the case's group and name
  std::string point;       // CaseView::point_label
  std::string metric, unit;
  double value = 0;  // never NaN: a point without a value has no figure
};

// The cases that ended well and declare a headline figure, point by point, in the file's order.
std::vector<HeadlineFigure> headline_figures(const RunData& run);

// The host each node name belongs to ("vm/v1" -> "vm"), as the run's environment has it.
std::map<std::string, std::string> host_of_node(const RunData& run);
// The host of rank 0, "" when the environment does not name it.
std::string rank0_host(const RunData& run);
// The run's hosts, each once, in the order of the ranks that ran on them.
std::vector<std::string> distinct_hosts(const RunData& run);

}  // namespace preflight::report
