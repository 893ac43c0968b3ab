// Synthetic photographs for the dataloader's data set: seeded, reproducible, with what makes a
// photo cost what it costs to decode (smooth regions, edges, texture at every scale, grain),
// neither flat colour nor pure noise. docs/dataloader.md compares their per-pixel decode time
// with real photographs'.
#pragma once

#include <cstdint>

#include "cpu/image.hpp"

namespace preflight::dataloader {

// Width and height of image `index` of a set whose images average about mean_width x
// 0.75 mean_width (ImageNet-like: mostly landscape 4:3, some portrait, square and wide).
struct ImageSize {
  int width, height;
};
ImageSize synthetic_size(int mean_width, std::uint64_t seed, std::size_t index);

kernels::Rgb8 synthetic_image(int width, int height, std::uint64_t seed);

}  // namespace preflight::dataloader
