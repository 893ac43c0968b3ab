// `preflight dataset make`: writes a seeded synthetic image data set (JPEG or PNG; files or
// WebDataset tar shards) for the dataloader family. Runs without MPI.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include <CLI/CLI.hpp>

namespace preflight::dataloader {

// A synthetic set as `preflight dataset make` writes it.
struct SyntheticSpec {
  std::size_t images = 0;
  std::string format = "jpeg";   // or png
  std::string layout = "files";  // or shards
  std::string dir;               // a new or empty directory
  int mean_width = 500;
  int quality = 90;
  std::size_t shard_images = 1000;
  std::uint64_t seed = 1;
  unsigned threads = 1;
};

// Writes the set; throws UsageError when dir is not new or empty, or cannot be written.
// Returns the mean bytes per image.
double make_synthetic_set(const SyntheticSpec& spec);

// Adds `make` and its options under `command`; the returned call runs what was asked (exit
// code), after parsing. Bad input throws UsageError.
std::function<int()> add_dataset_commands(CLI::App& command);

}  // namespace preflight::dataloader
