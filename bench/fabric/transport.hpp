// What a fabric transport (a libfabric provider, MPI) provides: messages between two world
// ranks, posted without blocking and completed together. The pair tests (pair_case.cpp) are
// written once over these; one file per transport, transports.cpp lists them by name.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace preflight::fabric {

struct TransportOptions {
  std::string provider;  // libfabric provider name (tcp, shm, verbs, efa, ...)
  std::string domain;    // libfabric domain (a NIC), "" for the provider's first
  std::string address;   // the local address to bind to, "" for the provider's choice
};

class Transport {
 public:
  virtual ~Transport() = default;
  virtual std::string_view name() const = 0;
  // What carries the messages, e.g. "tcp;ofi_rxm domain lo" or "mpi".
  virtual std::string provider() const = 0;
  virtual std::uint64_t max_message_bytes() const = 0;
  // Collective over `world`: every rank can then reach every other (addresses through MPI).
  virtual void connect(MPI_Comm world) = 0;
  // Buffers used in messages are registered once, before use (a no-op where not needed).
  virtual void register_buffer(void* buffer, std::size_t bytes) = 0;
  virtual void post_send(const void* buffer, std::size_t bytes, int peer) = 0;
  virtual void post_recv(void* buffer, std::size_t bytes, int peer) = 0;
  // Returns when everything posted so far has completed.
  virtual void complete_all() = 0;
};

// Transports by name ("ofi", "mpi"); throws UsageError naming the field to fix when the
// transport cannot be had here (a libfabric provider that is not available).
std::vector<std::string> transport_names();
void check_transport(std::string_view name, const TransportOptions& options);
std::unique_ptr<Transport> make_transport(std::string_view name, const TransportOptions& options);
// What the transport finds on this host (providers and versions), recorded with the config.
nlohmann::json transport_inventory(std::string_view name);

// The libfabric transport (ofi_transport.cpp).
void check_ofi(const TransportOptions& options);
std::unique_ptr<Transport> make_ofi_transport(const TransportOptions& options);
nlohmann::json ofi_inventory();
// The MPI transport (mpi_transport.cpp).
std::unique_ptr<Transport> make_mpi_transport();

}  // namespace preflight::fabric
