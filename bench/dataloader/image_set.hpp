// The images a dataloader case reads: a directory of JPEG/PNG files, or of tar shards in the
// WebDataset layout (each image a member), indexed once, unchanged. Bad images are found
// before the run (a header that does not parse, a file cut short) and left out, by name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/run/rank_context.hpp"

namespace preflight::dataloader {

enum class DataLayout { kFiles, kShards };

// A tar (ustar) block: a member's header, and the unit its data is padded to. The shards
// `dataset make` writes and the reader walks.
inline constexpr std::size_t kTarBlockBytes = 512;

// One image: its bytes are [offset, offset + size) of files[file].
struct ImageRef {
  std::uint32_t file = 0;
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  std::string name;  // the file's path under the directory, or "shard.tar:member"
};

struct BadImage {
  std::string name;
  std::string reason;
};

struct ImageSet {
  std::string dir;
  DataLayout layout = DataLayout::kFiles;
  std::vector<std::string> files;  // absolute paths: the images, or the shards
  std::vector<ImageRef> images;    // the good ones, in name order
  std::vector<BadImage> bad;       // found before the run, in name order
};

// The images of a family's cases: indexed when planned, or, for a synthetic set that is not
// there yet, made and indexed when the first case starts (make_images of them, kept).
struct ImageSource {
  ImageSet set;
  std::size_t make_images = 0;  // > 0 while the synthetic set is still to be made
  std::size_t images() const { return make_images > 0 ? make_images : set.images.size(); }
};

// Lists `dir` (recursively; shards when it holds *.tar files, else *.jpg, *.jpeg, *.png) and
// checks every image's header and end, the ranks sharing the work. Collective over ctx.world;
// throws UsageError (every rank the same) for a directory that is missing or holds no images,
// or a shard that cannot be read.
ImageSet index_images(const std::string& dir, const RankContext& ctx);

// Why the image's bytes are not a whole JPEG or PNG ("" when they look whole): `head` is the
// start of the image (up to its first 64 KiB), `tail` its last bytes (up to 64).
std::string check_image(const std::vector<unsigned char>& head,
                        const std::vector<unsigned char>& tail, std::uint64_t size);

std::string_view name_of(DataLayout layout);

}  // namespace preflight::dataloader
