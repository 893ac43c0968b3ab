// The comm backends by name: one line each.
#include <array>
#include <utility>

#include "comm/backend.hpp"

namespace preflight::comm {

std::unique_ptr<CommBackend> make_mpi_backend();

namespace {
using Factory = std::unique_ptr<CommBackend> (*)();
constexpr std::array kBackends = {
    std::pair{std::string_view("mpi"), &make_mpi_backend},
};
}  // namespace

std::unique_ptr<CommBackend> make_backend(std::string_view name) {
  for (const auto& [n, make] : kBackends)
    if (n == name) return make();
  return nullptr;
}

std::vector<std::string> backend_names() {
  std::vector<std::string> names;
  for (const auto& [n, make] : kBackends) names.emplace_back(n);
  return names;
}

}  // namespace preflight::comm
