// The matmul family: GEMM throughput of every rank's device at once (OpenBLAS on the CPU,
// cuBLASLt on the GPU), verified, against the device's peak.
#pragma once

#include <memory>

#include "harness/run/family.hpp"

namespace preflight::matmul {
std::unique_ptr<Family> make_matmul_family();
}  // namespace preflight::matmul
