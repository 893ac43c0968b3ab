// The options and checks of every family whose files are a storage data set (storage's reads,
// checkpoint's saves and restores), declared once: where the set goes and its id, the file
// layout, the scaling steps, keep; and the rules between them (block sizes, queue depths).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "harness/config/config_node.hpp"
#include "harness/config/name_table.hpp"
#include "harness/config/options.hpp"

namespace preflight::storage {

// $TMPDIR, else /var/tmp.
std::string default_dir();
// An id names one directory: letters, digits, '-', '_' and '.', not "." or "..".
bool valid_id(const std::string& id);

inline constexpr std::array kFileLayouts = {
    std::pair{false, std::string_view("file-per-rank")},
    std::pair{true, std::string_view("shared")},
};

// After reading: dir absolute, normal, without a trailing '/'; a given dataset id valid.
// Throws UsageError at the key.
void check_dir_and_id(const ConfigNode& entry, std::string& dir, const std::string& id);
// Every block size a multiple of 4 KiB up to 1 GiB and, when size > 0, dividing it.
void check_block_sizes(const ConfigNode& entry, const std::vector<std::uint64_t>& block_sizes,
                       std::uint64_t size);
// Queue depths above 1 only with an engine that keeps several in flight.
void check_queue_depths(const ConfigNode& entry, const std::vector<int>& queue_depths,
                        const std::vector<std::string>& engines);

namespace dataset_opt {

template <class C>
Option<C> dir(std::string C::*field, std::string help) {
  return opt::text({.key = "dir",
                    .flags = "--dir",
                    .help = std::move(help),
                    .default_value = default_dir(),
                    .shown_default = "$TMPDIR, else /var/tmp"},
                   field);
}

template <class C>
Option<C> dataset(std::string C::*field, std::string help, std::string shown_default) {
  return opt::text({.key = "dataset",
                    .flags = "--dataset",
                    .help = std::move(help),
                    .shown_default = std::move(shown_default)},
                   field);
}

template <class C>
Option<C> file_layout(std::vector<bool> C::*field) {
  return opt::names({.key = "file_layout",
                     .flags = "--file-layout",
                     .help = "File layout",
                     .default_value = "file-per-rank"},
                    field, NameTable<bool>{kFileLayouts}, "both");
}

template <class C>
Option<C> scale_ranks_per_node(std::vector<int> C::*field) {
  return opt::integers({.key = "scale_ranks_per_node",
                        .flags = "--scale-ranks-per-node",
                        .help = "Also run with only the first N ranks of each node, e.g. 1,2,4",
                        .shown_default = "all"},
                       field, 1, 1 << 20);
}

template <class C>
Option<C> node_ladder(bool C::*field) {
  return opt::boolean({.key = "node_ladder",
                       .flags = "--node-ladder",
                       .help = "Also run on 1, 2, 4, ... nodes",
                       .default_value = "false"},
                      field);
}

template <class C>
Option<C> keep(bool C::*field, std::string help) {
  return opt::boolean(
      {.key = "keep", .flags = "--keep", .help = std::move(help), .default_value = "false"}, field);
}

}  // namespace dataset_opt
}  // namespace preflight::storage
