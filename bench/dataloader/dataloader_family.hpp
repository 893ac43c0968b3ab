#pragma once

#include <memory>

#include "harness/run/family.hpp"

namespace preflight::dataloader {

std::unique_ptr<Family> make_dataloader_family();

}  // namespace preflight::dataloader
