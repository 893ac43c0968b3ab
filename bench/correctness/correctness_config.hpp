// The correctness family's configuration (docs/correctness.md): which checks run, and the options
// of each. One flat struct, read by one option table (correctness_family.cpp); the GEMM check
// (gemm_checks.cpp) and the collective sweep (collective_checks.cpp) each read their own part.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "comm/collective.hpp"
#include "matmul/dtype.hpp"
#include "matmul/verify.hpp"

namespace preflight::correctness {

struct CorrectnessConfig {
  std::vector<std::string> checks;  // "gemm", "collective" (schema::correctness::kCheck*)
  int events_kept = 16;             // wrong results each rank records per point
  // GEMM determinism.
  std::string gemm_backend;  // a matmul backend, or "auto": cublaslt where every rank has a GPU
  std::vector<matmul::DType> dtypes;
  std::vector<int> sizes;  // square m = n = k
  std::string shapes_text;
  std::vector<matmul::Shape> shapes;  // from shapes_text
  int threads = 0;                    // BLAS threads per rank; 0: the host's CPUs shared
  std::int64_t seed = 1;
  // Collective sweep.
  std::string comm_backend;  // a comm backend, or "auto": nccl where every rank has a GPU
  std::vector<comm::Collective> collectives;
  std::string algorithms;  // comma-separated names, or "all": every one the library offers
  std::string protocols;   // NCCL_PROTO names, comma-separated, or "all"
  std::vector<comm::DType> comm_dtypes;
  std::vector<std::uint64_t> comm_sizes;
};

}  // namespace preflight::correctness
