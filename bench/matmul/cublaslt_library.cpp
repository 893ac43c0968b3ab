#include "matmul/cublaslt_library.hpp"

#include <fmt/format.h>

#include "harness/env/runtime_library.hpp"

namespace preflight::matmul {

std::string cublaslt_soname() {
  return fmt::format("libcublasLt.so.{}", CUBLAS_VER_MAJOR);
}

CublasLtLibrary open_cublaslt_library() {
  CublasLtLibrary lib;
  // Linked, the library was found through the run path the toolkit's directory gave the
  // binary; the loader's search may not have that directory, so it is tried by name after.
  RuntimeLibrary found(
      {cublaslt_soname(), std::string(PREFLIGHT_CUDA_LIBRARY_DIR) + "/" + cublaslt_soname()});
  found.find("cublasLtCreate", lib.create);
  found.find("cublasLtDestroy", lib.destroy);
  found.find("cublasLtGetVersion", lib.get_version);
  found.find("cublasLtMatmul", lib.matmul);
  found.find("cublasLtMatmulAlgoGetHeuristic", lib.algo_get_heuristic);
  found.find("cublasLtMatmulDescCreate", lib.desc_create);
  found.find("cublasLtMatmulDescDestroy", lib.desc_destroy);
  found.find("cublasLtMatmulDescSetAttribute", lib.desc_set_attribute);
  found.find("cublasLtMatmulPreferenceCreate", lib.preference_create);
  found.find("cublasLtMatmulPreferenceDestroy", lib.preference_destroy);
  found.find("cublasLtMatmulPreferenceSetAttribute", lib.preference_set_attribute);
  found.find("cublasLtMatrixLayoutCreate", lib.layout_create);
  found.find("cublasLtMatrixLayoutDestroy", lib.layout_destroy);
  lib.why_not = found.why_not();
  return lib;
}

}  // namespace preflight::matmul
