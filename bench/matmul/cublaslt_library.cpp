#include "matmul/cublaslt_library.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

namespace preflight::matmul {
namespace {

template <typename F>
void find(void* handle, const char* name, F& out, std::string& why_not) {
  out = reinterpret_cast<F>(dlsym(handle, name));
  if (out == nullptr && why_not.empty())
    why_not = fmt::format("{} has no {}", cublaslt_soname(), name);
}

}  // namespace

std::string cublaslt_soname() {
  return fmt::format("libcublasLt.so.{}", CUBLAS_VER_MAJOR);
}

CublasLtLibrary open_cublaslt_library() {
  CublasLtLibrary lib;
  void* handle = dlopen(cublaslt_soname().c_str(), RTLD_NOW | RTLD_LOCAL);
  std::string why;
  if (handle == nullptr) {
    const char* e = dlerror();
    why = e != nullptr ? e : cublaslt_soname() + " cannot be loaded";
    // Linked, the library was found through the run path the toolkit's directory gave the
    // binary; the loader's search may not have that directory, so try it by name.
    const std::string built_with =
        std::string(PREFLIGHT_CUDA_LIBRARY_DIR) + "/" + cublaslt_soname();
    handle = dlopen(built_with.c_str(), RTLD_NOW | RTLD_LOCAL);
  }
  if (handle == nullptr) {
    lib.why_not = fmt::format("{}; nor in {}, the toolkit preflight was built with", why,
                              PREFLIGHT_CUDA_LIBRARY_DIR);
    return lib;
  }
  find(handle, "cublasLtCreate", lib.create, lib.why_not);
  find(handle, "cublasLtDestroy", lib.destroy, lib.why_not);
  find(handle, "cublasLtGetVersion", lib.get_version, lib.why_not);
  find(handle, "cublasLtMatmul", lib.matmul, lib.why_not);
  find(handle, "cublasLtMatmulAlgoGetHeuristic", lib.algo_get_heuristic, lib.why_not);
  find(handle, "cublasLtMatmulDescCreate", lib.desc_create, lib.why_not);
  find(handle, "cublasLtMatmulDescDestroy", lib.desc_destroy, lib.why_not);
  find(handle, "cublasLtMatmulDescSetAttribute", lib.desc_set_attribute, lib.why_not);
  find(handle, "cublasLtMatmulPreferenceCreate", lib.preference_create, lib.why_not);
  find(handle, "cublasLtMatmulPreferenceDestroy", lib.preference_destroy, lib.why_not);
  find(handle, "cublasLtMatmulPreferenceSetAttribute", lib.preference_set_attribute, lib.why_not);
  find(handle, "cublasLtMatrixLayoutCreate", lib.layout_create, lib.why_not);
  find(handle, "cublasLtMatrixLayoutDestroy", lib.layout_destroy, lib.why_not);
  return lib;
}

}  // namespace preflight::matmul
