// cuBLASLt, opened when the GPU backend is made instead of linked: the library's constructors
// took about 0.3 s of every preflight process's start (`preflight --version`: 0.42 s with it
// linked), which every rank of every run paid, with a GPU or without.
#pragma once

#include <cublasLt.h>

#include <string>

namespace preflight::matmul {

// The functions the backend calls, as the header declares them; why_not says what is missing.
struct CublasLtLibrary {
  decltype(&cublasLtCreate) create = nullptr;
  decltype(&cublasLtDestroy) destroy = nullptr;
  decltype(&cublasLtGetVersion) get_version = nullptr;
  decltype(&cublasLtMatmul) matmul = nullptr;
  decltype(&cublasLtMatmulAlgoGetHeuristic) algo_get_heuristic = nullptr;
  decltype(&cublasLtMatmulDescCreate) desc_create = nullptr;
  decltype(&cublasLtMatmulDescDestroy) desc_destroy = nullptr;
  decltype(&cublasLtMatmulDescSetAttribute) desc_set_attribute = nullptr;
  decltype(&cublasLtMatmulPreferenceCreate) preference_create = nullptr;
  decltype(&cublasLtMatmulPreferenceDestroy) preference_destroy = nullptr;
  decltype(&cublasLtMatmulPreferenceSetAttribute) preference_set_attribute = nullptr;
  decltype(&cublasLtMatrixLayoutCreate) layout_create = nullptr;
  decltype(&cublasLtMatrixLayoutDestroy) layout_destroy = nullptr;
  std::string why_not;  // empty when the library and every function were found
};

// libcublasLt.so.<the header's major version>, from the loader's search path (LD_LIBRARY_PATH,
// the binary's run path, the system's), else from the toolkit's library directory preflight was
// built with; never closed.
std::string cublaslt_soname();
CublasLtLibrary open_cublaslt_library();

}  // namespace preflight::matmul
