#include "dataloader/dataset_make.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include <unistd.h>
#include <vector>

#include "cpu/image.hpp"
#include "dataloader/image_set.hpp"
#include "dataloader/synthetic.hpp"
#include "preflight/common/usage_error.hpp"

namespace preflight::dataloader {
namespace {

namespace fs = std::filesystem;

using MakeOptions = SyntheticSpec;

std::string extension(const MakeOptions& o) {
  return o.format == "png" ? "png" : "jpg";
}

std::vector<unsigned char> encode(const MakeOptions& o, std::size_t index) {
  const ImageSize size = synthetic_size(o.mean_width, o.seed, index);
  const auto image = synthetic_image(size.width, size.height, o.seed * 1000003 + index);
  if (o.format == "png") return kernels::encode_png(image);
  thread_local kernels::JpegEncoder encoder;
  return encoder.encode(image, o.quality);
}

// Images [first, first + n), encoded by the threads between them.
std::vector<std::vector<unsigned char>> encode_range(const MakeOptions& o, std::size_t first,
                                                     std::size_t n) {
  std::vector<std::vector<unsigned char>> out(n);
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < o.threads; ++t)
    threads.emplace_back([&, t] {
      for (std::size_t i = t; i < n; i += o.threads) out[i] = encode(o, first + i);
    });
  for (auto& t : threads) t.join();
  return out;
}

void write_file(const fs::path& path, const std::vector<unsigned char>& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!f) throw UsageError(fmt::format("dataset make: cannot write {}", path.string()));
}

// One ustar member: header, data, padding to the block.
void tar_member(std::ofstream& f, const std::string& name, const std::vector<unsigned char>& data) {
  char h[kTarBlockBytes] = {};
  std::snprintf(h, 100, "%s", name.c_str());
  std::snprintf(h + 100, 8, "%07o", 0644);
  std::snprintf(h + 108, 8, "%07o", 0);
  std::snprintf(h + 116, 8, "%07o", 0);
  std::snprintf(h + 124, 12, "%011llo", static_cast<unsigned long long>(data.size()));
  std::snprintf(h + 136, 12, "%011o", 0);
  h[156] = '0';
  std::memcpy(h + 257, "ustar", 6);
  std::memcpy(h + 263, "00", 2);
  std::memset(h + 148, ' ', 8);
  unsigned sum = 0;
  for (unsigned char c : h) sum += c;
  std::snprintf(h + 148, 8, "%06o", sum);
  f.write(h, kTarBlockBytes);
  f.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  const std::size_t pad = (kTarBlockBytes - data.size() % kTarBlockBytes) % kTarBlockBytes;
  static const char zeros[kTarBlockBytes] = {};
  f.write(zeros, static_cast<std::streamsize>(pad));
}

void check(const MakeOptions& o) {
  if (o.images == 0)
    throw UsageError("dataset make: --images: expected a number of images above 0, found 0");
  std::error_code ec;
  if (fs::exists(o.dir, ec) && !(fs::is_directory(o.dir, ec) && fs::is_empty(o.dir, ec)))
    throw UsageError(fmt::format(
        "dataset make: DIR: '{}' exists and is not an empty directory; give a new or empty "
        "directory (nothing is overwritten)",
        o.dir));
}

double write_set(const SyntheticSpec& o);

}  // namespace

// Into a sibling directory renamed to DIR at the end: a make that is interrupted leaves no set
// that a later run would read as a smaller one.
double make_synthetic_set(const SyntheticSpec& spec) {
  check(spec);
  SyntheticSpec o = spec;
  o.dir = fmt::format("{}.making-{}", fs::path(spec.dir).lexically_normal().string(), getpid());
  std::error_code ec;
  fs::remove_all(o.dir, ec);
  fs::create_directories(o.dir, ec);
  if (ec)
    throw UsageError(fmt::format("dataset make: DIR: cannot create '{}': {}", o.dir, ec.message()));
  try {
    const double mean = write_set(o);
    fs::remove(spec.dir, ec);  // empty (check)
    fs::rename(o.dir, spec.dir);
    return mean;
  } catch (...) {
    fs::remove_all(o.dir, ec);
    throw;
  }
}

namespace {

double write_set(const SyntheticSpec& o) {
  const std::size_t chunk = o.layout == "shards" ? o.shard_images : 256;
  std::uint64_t bytes = 0;
  for (std::size_t first = 0, shard = 0; first < o.images; first += chunk, ++shard) {
    const std::size_t n = std::min(chunk, o.images - first);
    const auto encoded = encode_range(o, first, n);
    for (const auto& e : encoded) bytes += e.size();
    if (o.layout == "files") {
      for (std::size_t i = 0; i < n; ++i)
        write_file(fs::path(o.dir) / fmt::format("img-{:07d}.{}", first + i, extension(o)),
                   encoded[i]);
      continue;
    }
    // WebDataset: samples are consecutive members sharing a key, one per field.
    const auto path = fs::path(o.dir) / fmt::format("shard-{:06d}.tar", shard);
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    for (std::size_t i = 0; i < n; ++i) {
      const std::string key = fmt::format("{:07d}", first + i);
      tar_member(f, key + "." + extension(o), encoded[i]);
      const std::string label = std::to_string((first + i) % 1000);
      tar_member(f, key + ".cls", std::vector<unsigned char>(label.begin(), label.end()));
    }
    static const char end[2 * kTarBlockBytes] = {};
    f.write(end, sizeof end);
    if (!f) throw UsageError(fmt::format("dataset make: cannot write {}", path.string()));
  }
  return static_cast<double>(bytes) / static_cast<double>(o.images);
}

}  // namespace

std::function<int()> add_dataset_commands(CLI::App& command) {
  auto o = std::make_shared<MakeOptions>();
  o->threads = std::max(1u, std::thread::hardware_concurrency());
  command.require_subcommand(1);
  CLI::App* m = command.add_subcommand(
      "make", "Write a seeded synthetic image data set (ImageNet-like sizes, JPEG q90 4:2:0)");
  m->add_option("--images", o->images, "Number of images")->required();
  m->add_option("--format", o->format, "jpeg or png")
      ->check(CLI::IsMember({"jpeg", "png"}))
      ->capture_default_str();
  m->add_option("--layout", o->layout, "files (one per image) or shards (WebDataset tar files)")
      ->check(CLI::IsMember({"files", "shards"}))
      ->capture_default_str();
  m->add_option("--mean-width", o->mean_width, "Average image width in pixels (height ~0.75x)")
      ->check(CLI::Range(16, 8192))
      ->capture_default_str();
  m->add_option("--quality", o->quality, "JPEG quality")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  m->add_option("--shard-images", o->shard_images, "Images per shard")
      ->check(CLI::Range(1, 1 << 24))
      ->capture_default_str();
  m->add_option("--seed", o->seed, "Seed: the same seed writes the same images")
      ->capture_default_str();
  m->add_option("--threads", o->threads, "Encoding threads")->check(CLI::Range(1, 1024));
  m->add_option("dir", o->dir, "A new or empty directory")->required();
  return [o, m] {
    if (!m->parsed()) return 0;
    const double mean = make_synthetic_set(*o);
    fmt::print("preflight dataset make: {} {} images ({} layout) in {}, {:.1f} KB on average\n",
               o->images, o->format, o->layout, o->dir, mean / 1e3);
    return 0;
  };
}

}  // namespace preflight::dataloader
