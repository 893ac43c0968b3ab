// The NCCL backend where preflight is built without NCCL: it exists by name, so that a config
// naming it is read the same everywhere, and says why it cannot run (its cases are skipped).
#include <stdexcept>

#include "comm/backend.hpp"

namespace preflight::comm {
namespace {

class NcclUnavailable final : public CommBackend {
 public:
  std::string_view name() const override { return "nccl"; }
  std::uint64_t max_elements() const override { return 0; }
  bool supports_out_of_place(Collective) const override { return true; }
  std::string unavailable(MPI_Comm) override {
    return "preflight was built without NCCL (configure with the CUDA toolkit and NCCL)";
  }
  std::unique_ptr<CommGroup> connect(MPI_Comm) override {
    throw std::logic_error("the NCCL backend is not built in");
  }
  std::unique_ptr<Operation> make_operation(const CollectivePoint&, CommGroup&) override {
    throw std::logic_error("the NCCL backend is not built in");
  }
};

}  // namespace

std::unique_ptr<CommBackend> make_nccl_backend(const BackendSettings&) {
  return std::make_unique<NcclUnavailable>();
}

}  // namespace preflight::comm
