// The benchmark families preflight offers, one line each in families.cpp.
#pragma once

#include <memory>
#include <vector>

#include "harness/family.hpp"

namespace preflight {

std::vector<std::unique_ptr<Family>> make_families();

}  // namespace preflight
