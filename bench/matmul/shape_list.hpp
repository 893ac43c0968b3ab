// A list of GEMM shapes as a config writes it ("4096x11008x4096,8192x8192x8192"): the matmul
// family's `shapes` and the correctness family's, one parser for both.
#pragma once

#include <string>
#include <vector>

#include "harness/config/config_node.hpp"
#include "matmul/verify.hpp"

namespace preflight::matmul {

// The shapes of `text`; a bad one fails at `entry`'s key `key`, saying what a shape is.
std::vector<Shape> parse_shapes(const std::string& text, const ConfigNode& entry,
                                const std::string& key = "shapes");

}  // namespace preflight::matmul
