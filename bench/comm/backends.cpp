// The comm backends by name: one line each.
#include <array>
#include <utility>

#include "comm/backend.hpp"

namespace preflight::comm {

std::unique_ptr<CommBackend> make_mpi_backend(const BackendSettings& settings);
// nccl_backend.cpp, or nccl_unavailable.cpp where preflight is built without NCCL.
std::unique_ptr<CommBackend> make_nccl_backend(const BackendSettings& settings);

namespace {
using Factory = std::unique_ptr<CommBackend> (*)(const BackendSettings&);
constexpr std::array kBackends = {
    std::pair{std::string_view("mpi"), &make_mpi_backend},
    std::pair{std::string_view("nccl"), &make_nccl_backend},
};

constexpr std::array kRegistrations = {
    std::pair{Registration::kOff, std::string_view("off")},
    std::pair{Registration::kLocal, std::string_view("local")},
    std::pair{Registration::kWindow, std::string_view("window")},
};
constexpr NameTable<Registration> kRegistrationNames{kRegistrations};
}  // namespace

const NameTable<Registration>& registration_names() {
  return kRegistrationNames;
}

std::unique_ptr<CommBackend> make_backend(std::string_view name, const BackendSettings& settings) {
  for (const auto& [n, make] : kBackends)
    if (n == name) return make(settings);
  return nullptr;
}

std::vector<std::string> backend_names() {
  std::vector<std::string> names;
  for (const auto& [n, make] : kBackends) names.emplace_back(n);
  return names;
}

}  // namespace preflight::comm
