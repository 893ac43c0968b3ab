// The matmul backends, one line each.
#include <array>
#include <functional>
#include <stdexcept>

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

namespace {
[[noreturn]] void no_result_access() {
  throw std::logic_error("this GEMM backend does not give its result to the correctness check");
}
}  // namespace
std::uint64_t GemmOperation::result_hash() {
  no_result_access();
}
std::vector<unsigned char> GemmOperation::result_bytes() {
  no_result_access();
}
void GemmOperation::flip_result_bit(std::uint64_t, int) {
  no_result_access();
}
std::size_t GemmOperation::result_element_bytes() const {
  no_result_access();
}
double GemmOperation::result_value(const unsigned char*) const {
  no_result_access();
}
void GemmOperation::poison_result() {
  no_result_access();
}

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
