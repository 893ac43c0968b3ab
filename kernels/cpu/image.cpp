#include "cpu/image.hpp"

#include "cpu/splitmix.hpp"

#include <png.h>
#include <turbojpeg.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

namespace {

// Source coordinate and weight of one output column or row (pixel centres aligned), in 1/256
// steps so that the blends are integer arithmetic.
struct Tap {
  int at;
  int weight;  // of the next sample, 0..256
};

std::vector<Tap> taps(int out_size, int start, int length, int limit) {
  std::vector<Tap> t(static_cast<std::size_t>(out_size));
  const double scale = static_cast<double>(length) / out_size;
  for (int i = 0; i < out_size; ++i) {
    const double s = std::clamp(start + (i + 0.5) * scale - 0.5, 0.0, limit - 1.0);
    const int at = std::min(static_cast<int>(s), limit - 2 < 0 ? 0 : limit - 2);
    t[static_cast<std::size_t>(i)] = {at, static_cast<int>(std::lround((s - at) * 256))};
  }
  return t;
}

unsigned char blend_pixel_channel(const std::uint16_t* a, int next_column, int weight) {
  const int v = a[0] * (256 - weight) + a[next_column] * weight;
  return static_cast<unsigned char>((v + (1 << 15)) >> 16);
}

// Output pixels [from, to) of one row from the vertically blended source row.
void blend_columns_scalar(const std::uint16_t* row, const Tap* xs, int from, int to,
                          int next_column, unsigned char* out) {
  for (int x = from; x < to; ++x) {
    const std::uint16_t* a = row + static_cast<std::size_t>(xs[x].at) * 3;
    for (int ch = 0; ch < 3; ++ch)
      out[x * 3 + ch] = blend_pixel_channel(a + ch, next_column, xs[x].weight);
  }
}

// The same integers as blend_columns_scalar, a pixel's three channels in one vector: the two
// taps interleaved for _mm_madd_epi16, the samples (up to 255 * 256) biased by -32768 to fit
// int16 and the bias (32768 * 256) added back with the rounding. Returns the pixels done: all
// but the last, whose 4-byte store would pass the row's end.
int blend_columns_sse2([[maybe_unused]] const std::uint16_t* row, [[maybe_unused]] const Tap* xs,
                       [[maybe_unused]] int out_size, [[maybe_unused]] int next_column,
                       [[maybe_unused]] unsigned char* out) {
#if defined(__SSE2__)
  const __m128i bias = _mm_set1_epi16(static_cast<short>(0x8000));
  const __m128i back = _mm_set1_epi32((32768 << 8) + (1 << 15));
  int x = 0;
  for (; x + 1 < out_size; ++x) {
    const std::uint16_t* a = row + static_cast<std::size_t>(xs[x].at) * 3;
    const __m128i left = _mm_xor_si128(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(a)), bias);
    const __m128i right =
        _mm_xor_si128(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(a + next_column)), bias);
    const __m128i weights = _mm_set1_epi32(static_cast<int>(
        (static_cast<unsigned>(xs[x].weight) << 16) | static_cast<unsigned>(256 - xs[x].weight)));
    __m128i v = _mm_add_epi32(_mm_madd_epi16(_mm_unpacklo_epi16(left, right), weights), back);
    v = _mm_srli_epi32(v, 16);
    v = _mm_packus_epi16(_mm_packs_epi32(v, v), v);
    const int four = _mm_cvtsi128_si32(v);
    std::memcpy(out + x * 3, &four, sizeof four);
  }
  return x;
#else
  return 0;
#endif
}

}  // namespace

void resize_crop(const Rgb8& src, const Crop& crop, int out_size, unsigned char* dst) {
  auto xs = taps(out_size, crop.x, crop.width, src.width);
  const auto ys = taps(out_size, crop.y, crop.height, src.height);
  // Separable: each output row blends its two source rows over the columns the crop uses (a
  // contiguous loop the compiler vectorises), then each output pixel blends two columns of that
  // row. Integer arithmetic throughout, so the result is the 2x2 bilinear blend exactly.
  const std::size_t stride = static_cast<std::size_t>(src.width) * 3;
  const int next_column = src.width > 1 ? 3 : 0;
  const std::size_t first = static_cast<std::size_t>(xs.front().at) * 3;
  const std::size_t last =
      static_cast<std::size_t>(xs.back().at) * 3 + 3 + static_cast<std::size_t>(next_column);
  if (crop.flip) std::reverse(xs.begin(), xs.end());  // output column x takes tap out_size-1-x
  thread_local std::vector<std::uint16_t> blended;
  blended.resize(stride + 4);  // the vector blend reads one sample past the row
  for (int y = 0; y < out_size; ++y) {
    const Tap ty = ys[static_cast<std::size_t>(y)];
    const unsigned char* row0 = src.pixels.data() + static_cast<std::size_t>(ty.at) * stride;
    const unsigned char* row1 = src.height > 1 ? row0 + stride : row0;
    const auto w0 = static_cast<std::uint16_t>(256 - ty.weight),
               w1 = static_cast<std::uint16_t>(ty.weight);
    for (std::size_t i = first; i < last; ++i)
      blended[i] = static_cast<std::uint16_t>(row0[i] * w0 + row1[i] * w1);
    unsigned char* out = dst + static_cast<std::size_t>(y) * static_cast<std::size_t>(out_size) * 3;
    const int done = blend_columns_sse2(blended.data(), xs.data(), out_size, next_column, out);
    blend_columns_scalar(blended.data(), xs.data(), done, out_size, next_column, out);
  }
}

namespace {

struct Affine {
  std::array<float, 3> scale{}, offset{};
};

// ImageNet's mean and standard deviation per channel as dst = src * scale + offset.
Affine imagenet_affine() {
  static constexpr std::array<float, 3> kMean = {0.485f, 0.456f, 0.406f};
  static constexpr std::array<float, 3> kStd = {0.229f, 0.224f, 0.225f};
  Affine a;
  for (std::size_t c = 0; c < 3; ++c) {
    a.scale[c] = 1.0f / (255.0f * kStd[c]);
    a.offset[c] = -kMean[c] / kStd[c];
  }
  return a;
}

void normalise_scalar(const unsigned char* src, std::size_t pixels, float* dst, const Affine& a) {
  for (std::size_t i = 0; i < pixels; ++i)
    for (std::size_t c = 0; c < 3; ++c)
      dst[i * 3 + c] = static_cast<float>(src[i * 3 + c]) * a.scale[c] + a.offset[c];
}

#if defined(__SSE2__)
// 16 pixels (48 bytes -> 48 floats, 12 vectors) a step. The batch buffer is written once and
// not read again by this core, so streaming stores keep it from evicting the next image's
// decode working set from the cache. The same multiply and add as normalise_scalar, so the
// same floats.
std::size_t normalise_streaming(const unsigned char* src, std::size_t pixels, float* dst,
                                const Affine& a) {
  if (reinterpret_cast<std::uintptr_t>(dst) % 16 != 0) return 0;
  __m128 scale[3], offset[3];  // the channel pattern repeats every 3 vectors
  for (std::size_t v = 0; v < 3; ++v) {
    const std::size_t c = v * 4;
    scale[v] = _mm_setr_ps(a.scale[c % 3], a.scale[(c + 1) % 3], a.scale[(c + 2) % 3],
                           a.scale[(c + 3) % 3]);
    offset[v] = _mm_setr_ps(a.offset[c % 3], a.offset[(c + 1) % 3], a.offset[(c + 2) % 3],
                            a.offset[(c + 3) % 3]);
  }
  const __m128i zero = _mm_setzero_si128();
  std::size_t i = 0;
  for (; i + 16 <= pixels; i += 16) {
    const unsigned char* s = src + i * 3;
    float* d = dst + i * 3;
    for (std::size_t k = 0; k < 3; ++k) {
      const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 16 * k));
      const __m128i lo = _mm_unpacklo_epi8(bytes, zero), hi = _mm_unpackhi_epi8(bytes, zero);
      const __m128i words[4] = {_mm_unpacklo_epi16(lo, zero), _mm_unpackhi_epi16(lo, zero),
                                _mm_unpacklo_epi16(hi, zero), _mm_unpackhi_epi16(hi, zero)};
      for (std::size_t j = 0; j < 4; ++j) {
        const std::size_t v = 4 * k + j;
        const __m128 f = _mm_cvtepi32_ps(words[j]);
        _mm_stream_ps(d + 4 * v, _mm_add_ps(_mm_mul_ps(f, scale[v % 3]), offset[v % 3]));
      }
    }
  }
  _mm_sfence();  // streaming stores are weakly ordered: finish them before the batch is handed on
  return i;
}
#endif

}  // namespace

void normalise(const unsigned char* src, std::size_t pixels, float* dst) {
  static const Affine a = imagenet_affine();
  std::size_t done = 0;
#if defined(__SSE2__)
  done = normalise_streaming(src, pixels, dst, a);
#endif
  normalise_scalar(src + done * 3, pixels - done, dst + done * 3, a);
}

}  // namespace preflight::kernels
