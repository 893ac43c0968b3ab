// preflight's families, one line each.
#include "families.hpp"

#include <array>

#include "comm/comm_family.hpp"
#include "fabric/fabric_family.hpp"
#include "storage/storage_family.hpp"

namespace preflight {

std::span<const FamilyEntry> family_table() {
  static constexpr std::array kFamilies = {
      FamilyEntry{"comm", &comm::make_comm_family},
      FamilyEntry{"storage", &storage::make_storage_family},
      FamilyEntry{"fabric", &fabric::make_fabric_family},
  };
  return kFamilies;
}

}  // namespace preflight
