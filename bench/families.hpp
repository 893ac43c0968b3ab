// The benchmark families preflight offers, one line each in families.cpp.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "harness/family.hpp"

namespace preflight {

// A fresh, unconfigured family; nullptr for an unknown name.
std::unique_ptr<Family> make_family(const std::string& name);
std::vector<std::string> family_names();

}  // namespace preflight
