// What makes a finding drawn from a run's figures untrustworthy, said once for every analysis
// (the bottleneck summary, the alpha-beta predictions) so that they agree.
#pragma once

#include <string>

#include "reader/results_reader.hpp"

namespace preflight::report {

// Non-empty when the run's nodes are virtual (ranks_per_node grouped ranks of fewer hosts):
// "its 2 nodes are virtual nodes of 1 host: nothing between them crossed a network".
std::string virtual_nodes_caveat(const RunData& run);

}  // namespace preflight::report
