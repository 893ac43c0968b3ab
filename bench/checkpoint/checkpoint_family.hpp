// The checkpoint family: each rank saves its shard of a checkpoint and restores it (after
// eviction, or another node's shard), through the storage family's engines and data set.
#pragma once

#include <memory>

#include "harness/run/family.hpp"

namespace preflight::checkpoint {
std::unique_ptr<Family> make_checkpoint_family();
}
