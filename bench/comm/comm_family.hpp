#pragma once

#include <memory>

#include "harness/run/family.hpp"

namespace preflight::comm {

// Collectives (all-reduce, all-gather, ...) across topologies on a comm backend.
std::unique_ptr<Family> make_comm_family();

}  // namespace preflight::comm
