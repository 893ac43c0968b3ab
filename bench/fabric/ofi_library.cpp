#include "fabric/ofi_library.hpp"

#include <dlfcn.h>

namespace preflight::fabric {
namespace {

template <typename F>
void find(void* handle, const char* name, F& out, std::string& why_not) {
  out = reinterpret_cast<F>(dlsym(handle, name));
  if (out == nullptr && why_not.empty())
    why_not = std::string(kLibfabricSoname) + " has no " + name;
}

}  // namespace

OfiLibrary open_ofi_library() {
  OfiLibrary lib;
  void* handle = dlopen(kLibfabricSoname, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* e = dlerror();
    lib.why_not = e != nullptr ? e : std::string(kLibfabricSoname) + " cannot be loaded";
    return lib;
  }
  find(handle, "fi_getinfo", lib.getinfo, lib.why_not);
  find(handle, "fi_freeinfo", lib.freeinfo, lib.why_not);
  find(handle, "fi_dupinfo", lib.dupinfo, lib.why_not);
  find(handle, "fi_fabric", lib.fabric, lib.why_not);
  find(handle, "fi_strerror", lib.strerror, lib.why_not);
  find(handle, "fi_version", lib.version, lib.why_not);
  return lib;
}

}  // namespace preflight::fabric
