#include "dataloader/image_set.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "cpu/image.hpp"
#include "preflight/common/usage_error.hpp"

namespace preflight::dataloader {
namespace {

namespace fs = std::filesystem;
constexpr std::size_t kHeadBytes = 64 * 1024, kTailBytes = 64;

std::string lower_extension(const fs::path& p) {
  std::string e = p.extension().string();
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return std::tolower(c); });
  return e;
}

bool is_image_name(const fs::path& p) {
  const auto e = lower_extension(p);
  return e == ".jpg" || e == ".jpeg" || e == ".png";
}

// Regular files under dir, sorted, with the extensions wanted.
std::vector<fs::path> list(const std::string& dir, bool tar) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec))
    if (it->is_regular_file() &&
        (tar ? lower_extension(it->path()) == ".tar" : is_image_name(it->path())))
      out.push_back(it->path());
  if (ec)
    throw UsageError(fmt::format("dataloader: data_dir: cannot list {}: {}", dir, ec.message()));
  std::sort(out.begin(), out.end());
  return out;
}

std::uint64_t octal(const char* field, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n && field[i] != '\0' && field[i] != ' '; ++i) {
    if (field[i] < '0' || field[i] > '7') return UINT64_MAX;
    v = v * 8 + static_cast<std::uint64_t>(field[i] - '0');
  }
  return v;
}

bool header_checksum_ok(const unsigned char* h) {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < kTarBlockBytes; ++i) sum += (i >= 148 && i < 156) ? ' ' : h[i];
  return octal(reinterpret_cast<const char*>(h) + 148, 8) == sum;
}

// The image members of one tar shard (ustar or GNU; regular files only).
void index_shard(const std::string& path, std::uint32_t file, std::vector<ImageRef>& out) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    throw UsageError(
        fmt::format("dataloader: shard {} cannot be opened: {}", path, std::strerror(errno)));
  const auto size = static_cast<std::uint64_t>(lseek(fd, 0, SEEK_END));
  unsigned char h[kTarBlockBytes];
  std::uint64_t at = 0;
  std::string problem;
  const std::string shard = fs::path(path).filename().string();
  while (at + kTarBlockBytes <= size) {
    if (pread(fd, h, kTarBlockBytes, static_cast<off_t>(at)) !=
        static_cast<ssize_t>(kTarBlockBytes)) {
      problem = fmt::format("cannot read the header at offset {}: {}", at, std::strerror(errno));
      break;
    }
    if (std::all_of(h, h + kTarBlockBytes, [](unsigned char c) { return c == 0; }))
      break;  // the end
    if (!header_checksum_ok(h)) {
      problem = fmt::format("no valid tar header at offset {}", at);
      break;
    }
    const std::uint64_t bytes = octal(reinterpret_cast<const char*>(h) + 124, 12);
    std::string name(reinterpret_cast<const char*>(h),
                     strnlen(reinterpret_cast<const char*>(h), 100));
    const std::string prefix(reinterpret_cast<const char*>(h) + 345,
                             strnlen(reinterpret_cast<const char*>(h) + 345, 155));
    if (!prefix.empty()) name = prefix + "/" + name;
    const char type = static_cast<char>(h[156]);
    if (bytes == UINT64_MAX || at + kTarBlockBytes + bytes > size) {
      problem = fmt::format("member {} runs past the end of the shard", name);
      break;
    }
    if ((type == '0' || type == '\0') && is_image_name(name))
      out.push_back({file, at + kTarBlockBytes, bytes, shard + ":" + name});
    at += kTarBlockBytes + (bytes + kTarBlockBytes - 1) / kTarBlockBytes * kTarBlockBytes;
  }
  close(fd);
  if (!problem.empty())
    throw UsageError(
        fmt::format("dataloader: shard {} cannot be read: {} (is it a tar file?)", path, problem));
}

std::vector<unsigned char> read_at(int fd, std::uint64_t offset, std::size_t n) {
  std::vector<unsigned char> v(n);
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = pread(fd, v.data() + got, n - got, static_cast<off_t>(offset + got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += static_cast<std::size_t>(r);
  }
  v.resize(got);
  return v;
}

std::string check_one(const ImageSet& set, const ImageRef& img) {
  const int fd = open(set.files[img.file].c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fmt::format("unreadable: {}", std::strerror(errno));
  const auto head = read_at(
      fd, img.offset, static_cast<std::size_t>(std::min<std::uint64_t>(img.size, kHeadBytes)));
  const std::size_t tail_n =
      static_cast<std::size_t>(std::min<std::uint64_t>(img.size, kTailBytes));
  const auto tail = read_at(fd, img.offset + img.size - tail_n, tail_n);
  close(fd);
  return check_image(head, tail, img.size);
}

// Each rank checks every size-th image from its rank on; every rank gets all the results.
std::vector<std::string> check_all(const ImageSet& set, const RankContext& ctx) {
  std::string mine;  // "index\treason\n" lines
  for (std::size_t i = static_cast<std::size_t>(ctx.rank); i < set.images.size();
       i += static_cast<std::size_t>(ctx.size)) {
    auto reason = check_one(set, set.images[i]);
    if (!reason.empty()) mine += fmt::format("{}\t{}\n", i, reason);
  }
  int n = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<std::size_t>(ctx.size)), displs(counts.size());
  MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, ctx.world);
  int total = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    displs[r] = total;
    total += counts[r];
  }
  std::string all(static_cast<std::size_t>(total), '\0');
  MPI_Allgatherv(mine.data(), n, MPI_CHAR, all.data(), counts.data(), displs.data(), MPI_CHAR,
                 ctx.world);
  std::vector<std::string> reasons(set.images.size());
  std::size_t at = 0;
  while (at < all.size()) {
    const auto tab = all.find('\t', at), end = all.find('\n', at);
    reasons[std::stoul(all.substr(at, tab - at))] = all.substr(tab + 1, end - tab - 1);
    at = end + 1;
  }
  return reasons;
}

}  // namespace

std::string_view name_of(DataLayout layout) {
  return layout == DataLayout::kShards ? "shards" : "files";
}

std::string check_image(const std::vector<unsigned char>& head,
                        const std::vector<unsigned char>& tail, std::uint64_t size) {
  using kernels::ImageFormat;
  if (size == 0) return "empty file";
  switch (kernels::sniff_format(head.data(), head.size())) {
    case ImageFormat::kJpeg: {
      int w = 0, h = 0;
      kernels::JpegDecoder decoder;
      if (auto e = decoder.header(head.data(), head.size(), w, h); !e.empty())
        return "corrupt JPEG header: " + e;
      // A whole JPEG ends with its end-of-image marker (some writers append a few bytes).
      for (std::size_t i = 0; i + 1 < tail.size(); ++i)
        if (tail[i] == 0xFF && tail[i + 1] == 0xD9) return {};
      return "truncated JPEG: no end-of-image marker";
    }
    case ImageFormat::kPng: {
      int w = 0, h = 0;
      if (auto e = kernels::png_header(head.data(), head.size(), w, h); !e.empty())
        return "corrupt PNG header: " + e;
      static constexpr unsigned char kIend[] = {'I', 'E', 'N', 'D', 0xAE, 0x42, 0x60, 0x82};
      if (tail.size() >= 8 && std::equal(tail.end() - 8, tail.end(), kIend)) return {};
      return "truncated PNG: no IEND chunk at the end";
    }
    case ImageFormat::kUnknown:
      break;
  }
  return "neither JPEG nor PNG (bad signature)";
}

ImageSet index_images(const std::string& dir, const RankContext& ctx) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw UsageError(fmt::format(
        "dataloader: data_dir: '{}' is not a directory: give a directory of JPEG/PNG files or "
        "tar shards (make one with: preflight dataset make --images N DIR)",
        dir));
  ImageSet set;
  set.dir = dir;
  const auto shards = list(dir, true);
  if (!shards.empty()) {
    set.layout = DataLayout::kShards;
    for (const auto& s : shards) {
      set.files.push_back(s.string());
      index_shard(s.string(), static_cast<std::uint32_t>(set.files.size() - 1), set.images);
    }
  } else {
    for (const auto& p : list(dir, false)) {
      set.files.push_back(p.string());
      set.images.push_back({static_cast<std::uint32_t>(set.files.size() - 1), 0,
                            static_cast<std::uint64_t>(fs::file_size(p, ec)),
                            fs::relative(p, dir, ec).string()});
    }
  }
  if (set.images.empty())
    throw UsageError(fmt::format(
        "dataloader: data_dir: no images in '{}' (looked for *.jpg, *.jpeg, *.png files, or "
        "*.tar shards holding them): give a directory of images, or make one with: preflight "
        "dataset make --images N {}",
        dir, dir));
  const auto reasons = check_all(set, ctx);
  std::vector<ImageRef> good;
  for (std::size_t i = 0; i < set.images.size(); ++i)
    if (reasons[i].empty())
      good.push_back(std::move(set.images[i]));
    else
      set.bad.push_back({set.images[i].name, reasons[i]});
  set.images = std::move(good);
  return set;
}

}  // namespace preflight::dataloader
