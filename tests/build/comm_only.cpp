// Links the comm family and the harness, not the storage family: its link line must not
// name liburing (tests/build/link_check.sh).
#include "comm/comm_family.hpp"

int main() {
  return preflight::comm::make_comm_family() ? 0 : 1;
}
