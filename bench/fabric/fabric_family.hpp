#pragma once

#include <memory>

#include "harness/run/family.hpp"

namespace preflight::fabric {

// Point-to-point latency and bandwidth between node pairs (libfabric RDM or MPI send/recv),
// every pair in rounds of disjoint pairs, then retested: the pair matrix isolates nodes and links.
std::unique_ptr<Family> make_fabric_family();

}  // namespace preflight::fabric
