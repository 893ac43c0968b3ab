// The MPI transport: the same pair tests through MPI_Isend / MPI_Irecv, so that a cluster
// without libfabric (or without a usable provider) still gets the node-pair sweep.
#include <climits>
#include <stdexcept>

#include "fabric/transport.hpp"

namespace preflight::fabric {
namespace {

class MpiTransport final : public Transport {
 public:
  std::string_view name() const override { return "mpi"; }
  std::string provider() const override { return "mpi"; }
  std::uint64_t max_message_bytes() const override { return INT_MAX; }
  void connect(MPI_Comm world) override { world_ = world; }
  void register_buffer(void*, std::size_t) override {}
  void post_send(const void* buffer, std::size_t bytes, int peer) override {
    requests_.emplace_back();
    MPI_Isend(buffer, static_cast<int>(bytes), MPI_BYTE, peer, kTag, world_, &requests_.back());
  }
  void post_recv(void* buffer, std::size_t bytes, int peer) override {
    requests_.emplace_back();
    MPI_Irecv(buffer, static_cast<int>(bytes), MPI_BYTE, peer, kTag, world_, &requests_.back());
  }
  void complete_all() override {
    if (requests_.empty()) return;
    if (MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE) !=
        MPI_SUCCESS)
      throw std::runtime_error("fabric: MPI_Waitall failed");
    requests_.clear();
  }

 private:
  static constexpr int kTag = 0x4fab;
  MPI_Comm world_ = MPI_COMM_WORLD;
  std::vector<MPI_Request> requests_;
};

}  // namespace

std::unique_ptr<Transport> make_mpi_transport() {
  return std::make_unique<MpiTransport>();
}

}  // namespace preflight::fabric
