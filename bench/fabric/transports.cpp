#include <fmt/format.h>

#include "fabric/transport.hpp"
#include "preflight/common/usage_error.hpp"

namespace preflight::fabric {

std::vector<std::string> transport_names() {
  return {"ofi", "mpi"};
}

void check_transport(std::string_view name, const TransportOptions& options) {
  if (name == "ofi") check_ofi(options);
}

std::unique_ptr<Transport> make_transport(std::string_view name, const TransportOptions& options) {
  if (name == "ofi") return make_ofi_transport(options);
  return make_mpi_transport();
}

nlohmann::json transport_inventory(std::string_view name) {
  if (name == "ofi") return ofi_inventory();
  return nlohmann::json::object();
}

}  // namespace preflight::fabric
