#include "harness/env/runtime_library.hpp"

namespace preflight {

RuntimeLibrary::RuntimeLibrary(const std::vector<std::string>& paths)
    : name_(paths.empty() ? std::string() : paths.front()) {
  for (const auto& path : paths) {
    handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_ != nullptr) {  // what the paths before it said no longer matters
      name_ = path;
      why_not_.clear();
      return;
    }
    const char* e = dlerror();
    why_not_ += (why_not_.empty() ? "" : "; ") +
                (e != nullptr ? std::string(e) : path + " cannot be loaded");
  }
  if (paths.empty()) why_not_ = "no library named";
}

}  // namespace preflight
