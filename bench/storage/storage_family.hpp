#pragma once

#include <memory>

#include "harness/run/family.hpp"

namespace preflight::storage {

// Read throughput from every rank at once (psync, io_uring, mmap), with proof of cache state.
std::unique_ptr<Family> make_storage_family();

}  // namespace preflight::storage
