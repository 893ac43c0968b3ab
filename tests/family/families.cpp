// The families of the test-only executable preflight_test_family: bench/families.cpp's table
// plus the test family "pace" (tests/family/pace_family.cpp).
#include "families.hpp"

#include <array>
#include <utility>

#include "comm/comm_family.hpp"
#include "pace_family.hpp"
#include "storage/storage_family.hpp"

namespace preflight {
namespace {

using Maker = std::unique_ptr<Family> (*)();
constexpr std::array kFamilies = {
    std::pair{"comm", &comm::make_comm_family},
    std::pair{"storage", &storage::make_storage_family},
    std::pair{"pace", &test::make_pace_family},
};

}  // namespace

std::unique_ptr<Family> make_family(const std::string& name) {
  for (const auto& [n, make] : kFamilies)
    if (name == n) return make();
  return nullptr;
}

std::vector<std::string> family_names() {
  std::vector<std::string> names;
  for (const auto& [n, make] : kFamilies) names.emplace_back(n);
  return names;
}

}  // namespace preflight
