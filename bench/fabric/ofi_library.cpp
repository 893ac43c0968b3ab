#include "fabric/ofi_library.hpp"

#include "harness/env/runtime_library.hpp"

namespace preflight::fabric {

OfiLibrary open_ofi_library() {
  OfiLibrary lib;
  RuntimeLibrary found({kLibfabricSoname});
  found.find("fi_getinfo", lib.getinfo);
  found.find("fi_freeinfo", lib.freeinfo);
  found.find("fi_dupinfo", lib.dupinfo);
  found.find("fi_fabric", lib.fabric);
  found.find("fi_strerror", lib.strerror);
  found.find("fi_version", lib.version);
  lib.why_not = found.why_not();
  return lib;
}

}  // namespace preflight::fabric
