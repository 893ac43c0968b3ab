// The matmul backends, one line each.
#include <array>
#include <functional>

#include "matmul/backend.hpp"

namespace preflight::matmul {

std::shared_ptr<GemmBackend> make_openblas_backend(int local_rank);
std::shared_ptr<GemmBackend> make_cublaslt_backend(int local_rank);  // cublaslt_backend*.cpp

namespace {
struct BackendEntry {
  std::string_view name;
  std::shared_ptr<GemmBackend> (*make)(int local_rank);
};
constexpr std::array kBackends = {
    BackendEntry{"openblas", &make_openblas_backend},
    BackendEntry{"cublaslt", &make_cublaslt_backend},
};
}  // namespace

std::vector<std::string> backend_names() {
  std::vector<std::string> out;
  for (const auto& b : kBackends) out.emplace_back(b.name);
  return out;
}

std::shared_ptr<GemmBackend> make_backend(const std::string& name, int local_rank) {
  for (const auto& b : kBackends)
    if (b.name == name) return b.make(local_rank);
  return nullptr;
}

}  // namespace preflight::matmul
