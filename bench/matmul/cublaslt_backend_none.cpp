// The cuBLASLt backend of a build without CUDA: it exists, so configs stay valid, and says why
// it cannot run.
#include "matmul/backend.hpp"

namespace preflight::matmul {
namespace {

class NoCublasLt final : public GemmBackend {
 public:
  std::string_view name() const override { return "cublaslt"; }
  std::string library() const override { return "none (built without CUDA)"; }
  bool on_gpu() const override { return true; }
  bool supports(DType) const override { return false; }
  std::string unavailable() const override {
    return "preflight was built without CUDA (configure with the CUDA toolkit, PREFLIGHT_CUDA=ON)";
  }
  Peak peak(DType, const CpuPeakInputs&) const override { return {}; }
  std::unique_ptr<GemmOperation> make_operation(const GemmPoint&) override { return nullptr; }
};

}  // namespace

std::shared_ptr<GemmBackend> make_cublaslt_backend(int /*local_rank*/) {
  return std::make_shared<NoCublasLt>();
}

}  // namespace preflight::matmul
