#include "cpu/image.hpp"

#include "cpu/splitmix.hpp"

#include <png.h>
#include <turbojpeg.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace preflight::kernels {
namespace {

using SplitMix = kernels::SplitMix;

std::string tj_error(void* handle) {
  return tjGetErrorStr2(static_cast<tjhandle>(handle));
}

}  // namespace

ImageFormat sniff_format(const unsigned char* data, std::size_t size) {
  static constexpr std::array<unsigned char, 8> kPng = {0x89, 'P',  'N',  'G',
                                                        '\r', '\n', 0x1A, '\n'};
  if (size >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF) return ImageFormat::kJpeg;
  if (size >= kPng.size() && std::memcmp(data, kPng.data(), kPng.size()) == 0)
    return ImageFormat::kPng;
  return ImageFormat::kUnknown;
}

JpegDecoder::JpegDecoder() : handle_(tjInitDecompress()) {
  if (handle_ == nullptr) throw std::runtime_error("tjInitDecompress failed");
}

JpegDecoder::~JpegDecoder() {
  tjDestroy(static_cast<tjhandle>(handle_));
}

std::string JpegDecoder::header(const unsigned char* data, std::size_t size, int& width,
                                int& height) {
  int subsampling = 0, colorspace = 0;
  if (tjDecompressHeader3(static_cast<tjhandle>(handle_), data, static_cast<unsigned long>(size),
                          &width, &height, &subsampling, &colorspace) != 0)
    return tj_error(handle_);
  return {};
}

std::string JpegDecoder::decode(const unsigned char* data, std::size_t size, Rgb8& out) {
  if (auto error = header(data, size, out.width, out.height); !error.empty()) return error;
  out.pixels.resize(static_cast<std::size_t>(out.width) * static_cast<std::size_t>(out.height) * 3);
  if (tjDecompress2(static_cast<tjhandle>(handle_), data, static_cast<unsigned long>(size),
                    out.pixels.data(), out.width, out.width * 3, out.height, TJPF_RGB, 0) != 0)
    return tj_error(handle_);
  return {};
}

JpegEncoder::JpegEncoder() : handle_(tjInitCompress()) {
  if (handle_ == nullptr) throw std::runtime_error("tjInitCompress failed");
}

JpegEncoder::~JpegEncoder() {
  tjDestroy(static_cast<tjhandle>(handle_));
}

std::vector<unsigned char> JpegEncoder::encode(const Rgb8& image, int quality) {
  unsigned char* jpeg = nullptr;
  unsigned long bytes = 0;
  if (tjCompress2(static_cast<tjhandle>(handle_), image.pixels.data(), image.width, image.width * 3,
                  image.height, TJPF_RGB, &jpeg, &bytes, TJSAMP_420, quality, 0) != 0)
    throw std::runtime_error("JPEG encoding failed: " + tj_error(handle_));
  std::vector<unsigned char> out(jpeg, jpeg + bytes);
  tjFree(jpeg);
  return out;
}

std::string png_header(const unsigned char* data, std::size_t size, int& width, int& height) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (png_image_begin_read_from_memory(&image, data, size) == 0) {
    std::string error = image.message;
    png_image_free(&image);
    return error;
  }
  width = static_cast<int>(image.width);
  height = static_cast<int>(image.height);
  png_image_free(&image);
  return {};
}

std::string decode_png(const unsigned char* data, std::size_t size, Rgb8& out) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (png_image_begin_read_from_memory(&image, data, size) == 0) return image.message;
  image.format = PNG_FORMAT_RGB;
  out.width = static_cast<int>(image.width);
  out.height = static_cast<int>(image.height);
  out.pixels.resize(PNG_IMAGE_SIZE(image));
  if (png_image_finish_read(&image, nullptr, out.pixels.data(), 0, nullptr) == 0) {
    std::string error = image.message;
    png_image_free(&image);
    return error;
  }
  return {};
}

std::vector<unsigned char> encode_png(const Rgb8& rgb) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  image.width = static_cast<png_uint_32>(rgb.width);
  image.height = static_cast<png_uint_32>(rgb.height);
  image.format = PNG_FORMAT_RGB;
  png_alloc_size_t bytes = 0;
  if (png_image_write_to_memory(&image, nullptr, &bytes, 0, rgb.pixels.data(), 0, nullptr) == 0)
    throw std::runtime_error(std::string("PNG encoding failed: ") + image.message);
  std::vector<unsigned char> out(bytes);
  if (png_image_write_to_memory(&image, out.data(), &bytes, 0, rgb.pixels.data(), 0, nullptr) == 0)
    throw std::runtime_error(std::string("PNG encoding failed: ") + image.message);
  out.resize(bytes);
  return out;
}

Crop random_resized_crop(int width, int height, std::uint64_t seed) {
  SplitMix rng{seed};
  const double area = static_cast<double>(width) * height;
  const double log_lo = std::log(3.0 / 4), log_hi = std::log(4.0 / 3);
  Crop c;
  c.flip = (rng.next() & 1) != 0;
  for (int attempt = 0; attempt < 10; ++attempt) {
    const double target = area * rng.uniform(0.08, 1.0);
    const double ratio = std::exp(rng.uniform(log_lo, log_hi));
    const int w = static_cast<int>(std::lround(std::sqrt(target * ratio)));
    const int h = static_cast<int>(std::lround(std::sqrt(target / ratio)));
    if (w > 0 && h > 0 && w <= width && h <= height) {
      c.x = static_cast<int>(rng.next() % static_cast<std::uint64_t>(width - w + 1));
      c.y = static_cast<int>(rng.next() % static_cast<std::uint64_t>(height - h + 1));
      c.width = w;
      c.height = h;
      return c;
    }
  }
  // As torchvision: the centre crop whose ratio is the image's clamped to 3/4..4/3.
  const double ratio = std::clamp(static_cast<double>(width) / height, 3.0 / 4, 4.0 / 3);
  c.width = width;
  c.height = height;
  if (static_cast<double>(width) / height > ratio)
    c.width = std::max(1, static_cast<int>(std::lround(height * ratio)));
  else
    c.height = std::max(1, static_cast<int>(std::lround(width / ratio)));
  c.x = (width - c.width) / 2;
  c.y = (height - c.height) / 2;
  return c;
}

void resize_crop(const Rgb8& src, const Crop& crop, int out_size, unsigned char* dst) {
  // Source coordinate and weight of each output column and row (pixel centres aligned), in
  // 1/256 steps so that the inner loop is integer arithmetic.
  struct Tap {
    int at;
    int weight;  // of the next sample, 0..256
  };
  auto taps = [out_size](int start, int length, int limit) {
    std::vector<Tap> t(static_cast<std::size_t>(out_size));
    const double scale = static_cast<double>(length) / out_size;
    for (int i = 0; i < out_size; ++i) {
      const double s = std::clamp(start + (i + 0.5) * scale - 0.5, 0.0, limit - 1.0);
      const int at = std::min(static_cast<int>(s), limit - 2 < 0 ? 0 : limit - 2);
      t[static_cast<std::size_t>(i)] = {at, static_cast<int>(std::lround((s - at) * 256))};
    }
    return t;
  };
  const auto xs = taps(crop.x, crop.width, src.width);
  const auto ys = taps(crop.y, crop.height, src.height);
  // Separable: each output row blends its two source rows over the columns the crop uses (a
  // contiguous loop the compiler vectorises), then each output pixel blends two columns of that
  // row. Integer arithmetic throughout, so the result is the 2x2 bilinear blend exactly.
  const std::size_t stride = static_cast<std::size_t>(src.width) * 3;
  const int next_column = src.width > 1 ? 3 : 0;
  const std::size_t first = static_cast<std::size_t>(xs.front().at) * 3;
  const std::size_t last =
      static_cast<std::size_t>(xs.back().at) * 3 + 3 + static_cast<std::size_t>(next_column);
  thread_local std::vector<std::uint16_t> blended;
  blended.resize(stride);
  for (int y = 0; y < out_size; ++y) {
    const Tap ty = ys[static_cast<std::size_t>(y)];
    const unsigned char* row0 = src.pixels.data() + static_cast<std::size_t>(ty.at) * stride;
    const unsigned char* row1 = src.height > 1 ? row0 + stride : row0;
    const auto w0 = static_cast<std::uint16_t>(256 - ty.weight),
               w1 = static_cast<std::uint16_t>(ty.weight);
    for (std::size_t i = first; i < last; ++i)
      blended[i] = static_cast<std::uint16_t>(row0[i] * w0 + row1[i] * w1);
    unsigned char* out = dst + static_cast<std::size_t>(y) * static_cast<std::size_t>(out_size) * 3;
    for (int x = 0; x < out_size; ++x) {
      const Tap tx = xs[static_cast<std::size_t>(crop.flip ? out_size - 1 - x : x)];
      const std::uint16_t* a = blended.data() + static_cast<std::size_t>(tx.at) * 3;
      for (int ch = 0; ch < 3; ++ch) {
        const int v = a[ch] * (256 - tx.weight) + a[ch + next_column] * tx.weight;
        out[x * 3 + ch] = static_cast<unsigned char>((v + (1 << 15)) >> 16);
      }
    }
  }
}

void normalise(const unsigned char* src, std::size_t pixels, float* dst) {
  static constexpr std::array<float, 3> kMean = {0.485f, 0.456f, 0.406f};
  static constexpr std::array<float, 3> kStd = {0.229f, 0.224f, 0.225f};
  std::array<float, 3> scale{}, offset{};
  for (std::size_t c = 0; c < 3; ++c) {
    scale[c] = 1.0f / (255.0f * kStd[c]);
    offset[c] = -kMean[c] / kStd[c];
  }
  for (std::size_t i = 0; i < pixels; ++i)
    for (std::size_t c = 0; c < 3; ++c)
      dst[i * 3 + c] = static_cast<float>(src[i * 3 + c]) * scale[c] + offset[c];
}

}  // namespace preflight::kernels
