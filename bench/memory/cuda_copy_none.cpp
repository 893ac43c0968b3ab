// The GPU backend of a build without CUDA: it says why it cannot run.
#include "memory/backend.hpp"

namespace preflight::memory {

std::string cuda_unavailable(int /*local_rank*/) {
  return "preflight was built without CUDA (configure with the CUDA toolkit, PREFLIGHT_CUDA=ON)";
}
std::string cuda_pci_bus(int /*local_rank*/) {
  return "";
}
std::string cuda_device_name(int /*local_rank*/) {
  return "";
}
std::unique_ptr<Operation> make_cuda_copy(GpuCopy, int, std::size_t, std::uint64_t) {
  return nullptr;
}
int cuda_device_count() {
  return 0;
}
bool cuda_peer_access(int, int) {
  return false;
}
std::unique_ptr<Operation> make_cuda_peer_copy(int, int, std::size_t, std::uint64_t) {
  return nullptr;
}

}  // namespace preflight::memory
