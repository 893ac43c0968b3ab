// A library opened with dlopen when a backend first needs it, instead of linked: a linked
// library's constructors run in every preflight process, whatever it runs, and a node without
// the library could not start preflight at all. One place for opening it and finding its
// functions, for every backend that loads one.
#pragma once

#include <dlfcn.h>

#include <string>
#include <vector>

namespace preflight {

class RuntimeLibrary {
 public:
  // Tries each path in turn (a soname for the loader's search, then any fallbacks); never
  // throws: why_not() says what failed. The handle is never closed (libraries keep threads and
  // state until the process exits; the loader counts references).
  explicit RuntimeLibrary(const std::vector<std::string>& paths);

  // Sets `out` to the function `name`; the first one missing is what why_not() names.
  template <typename F>
  void find(const char* name, F& out) {
    out = handle_ != nullptr ? reinterpret_cast<F>(dlsym(handle_, name)) : nullptr;
    if (out == nullptr && why_not_.empty()) why_not_ = name_ + " has no " + name;
  }
  const std::string& why_not() const { return why_not_; }  // "" while all is found

 private:
  void* handle_ = nullptr;
  std::string name_, why_not_;
};

}  // namespace preflight
