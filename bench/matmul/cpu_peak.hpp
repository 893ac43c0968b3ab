// A CPU's theoretical GEMM peak for one rank: cores x FMA units x vector lanes x 2 FLOP x clock,
// each factor found where the machine says it (or given), and the source of each recorded.
#pragma once

#include <string>

#include "matmul/backend.hpp"

namespace preflight::matmul {

Peak cpu_peak(DType d, const CpuPeakInputs& in);

}  // namespace preflight::matmul
