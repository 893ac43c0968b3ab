#pragma once

#include <memory>

#include "harness/family.hpp"

namespace preflight::dataloader {

std::unique_ptr<Family> make_dataloader_family();

}  // namespace preflight::dataloader
