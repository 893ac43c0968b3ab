// The families of the test-only executable preflight_test_family: preflight's own and the test
// family "pace" (tests/family/pace_family.cpp).
#include "families.hpp"

#include <array>

#include "comm/comm_family.hpp"
#include "pace_family.hpp"
#include "pace_schema.hpp"
#include "preflight/schema/family_names.hpp"
#include "storage/storage_family.hpp"

namespace preflight {

std::span<const FamilyEntry> family_table() {
  static constexpr std::array kFamilies = {
      FamilyEntry{schema::kCommFamily, &comm::make_comm_family},
      FamilyEntry{schema::kStorageFamily, &storage::make_storage_family},
      FamilyEntry{test::pace::kFamily, &test::make_pace_family},
  };
  return kFamilies;
}

std::span<const ToolEntry> tool_table() {
  return {};
}

}  // namespace preflight
