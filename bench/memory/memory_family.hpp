// The memory family: STREAM's copy, scale, add and triad on every rank, per rank (one rank per
// node alone) and per node (every rank of every node at once).
#pragma once

#include <memory>

#include "harness/run/family.hpp"

namespace preflight::memory {
std::unique_ptr<Family> make_memory_family();
}  // namespace preflight::memory
