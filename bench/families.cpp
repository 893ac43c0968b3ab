#include "families.hpp"

#include "comm/comm_family.hpp"

namespace preflight {

std::vector<std::unique_ptr<Family>> make_families() {
  std::vector<std::unique_ptr<Family>> families;
  families.push_back(comm::make_comm_family());
  return families;
}

}  // namespace preflight
