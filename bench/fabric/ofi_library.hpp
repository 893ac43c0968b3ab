// libfabric, opened with dlopen when the ofi transport is first asked for, not linked: linked,
// its own dependencies' constructors run in every preflight process whatever it runs (Debian's
// libpsm_infinipath calibrates a clock with usleep, pinned to CPU 0, for about 0.25 s), and a
// node without libfabric could not start preflight at all. Only the functions libfabric exports
// are here; the rest of its API is inline in its headers and calls through the objects these
// return.
#pragma once

#include <rdma/fabric.h>

#include <string>

namespace preflight::fabric {

inline constexpr const char* kLibfabricSoname = "libfabric.so.1";

struct OfiLibrary {
  decltype(&::fi_getinfo) getinfo = nullptr;
  decltype(&::fi_freeinfo) freeinfo = nullptr;
  decltype(&::fi_dupinfo) dupinfo = nullptr;
  decltype(&::fi_fabric) fabric = nullptr;
  decltype(&::fi_strerror) strerror = nullptr;
  decltype(&::fi_version) version = nullptr;
  std::string why_not;  // the loader's reason; "" when every function was found

  bool available() const { return why_not.empty(); }
  // fi_allocinfo(), which the header defines inline over fi_dupinfo.
  fi_info* allocinfo() const { return dupinfo(nullptr); }
};

// Opens kLibfabricSoname (once per process in effect: the loader counts references) and finds
// its functions. Never throws: see why_not. The handle is never closed: libfabric keeps its
// providers, and their threads, until the process exits.
OfiLibrary open_ofi_library();

}  // namespace preflight::fabric
