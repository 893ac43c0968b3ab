// The OpenBLAS backend of the device-check build (PREFLIGHT_DEVICE_CHECK_ONLY): the GPU machine
// checks GPU paths, and OpenBLAS (35 MiB) would put the device bundle over its 64 MiB. It exists,
// so configs stay valid, and says why it cannot run.
#include "matmul/backend.hpp"

namespace preflight::matmul {
namespace {

class NoOpenBlas final : public GemmBackend {
 public:
  std::string_view name() const override { return "openblas"; }
  std::string library() const override { return "none (device-check build)"; }
  bool on_gpu() const override { return false; }
  bool supports(DType) const override { return false; }
  std::string unavailable() const override {
    return "this preflight is the device-check build (PREFLIGHT_DEVICE_CHECK_ONLY), without "
           "OpenBLAS; the CPU GEMM runs in a normal build";
  }
  Peak peak(DType, const CpuPeakInputs&) const override { return {}; }
  std::unique_ptr<GemmOperation> make_operation(const GemmPoint&) override { return nullptr; }
};

}  // namespace

std::shared_ptr<GemmBackend> make_openblas_backend(int /*local_rank*/) {
  return std::make_shared<NoOpenBlas>();
}

}  // namespace preflight::matmul
