// Image kernels of the dataloader family: decode one image (libjpeg-turbo's TurboJPEG API,
// libpng), random-resized-crop with flip (bilinear, as torchvision's RandomResizedCrop), and
// normalise to float. Plain functions over byte buffers: the pipeline times each call, the
// micro-benchmarks (kernels/bench/image_bench.cpp) run them alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

namespace preflight::kernels {

// An allocator whose resize leaves new elements uninitialised: every decoder writes each pixel
// of the image it sizes the buffer for, and std::vector's resize first zero-filled each image's
// growth over the one before (1.5 % of a one-worker pipeline's CPU in perf, 5 December 2026).
template <typename T>
struct UninitializedAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = UninitializedAllocator<U>;
  };
  UninitializedAllocator() = default;
  template <typename U>
  UninitializedAllocator(const UninitializedAllocator<U>&) {}  // NOLINT: rebinding is implicit
  template <typename U>
  void construct(U* p) {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

using Pixels = std::vector<unsigned char, UninitializedAllocator<unsigned char>>;

// An 8-bit RGB image, rows packed (stride width * 3).
struct Rgb8 {
  int width = 0;
  int height = 0;
  Pixels pixels;
};

enum class ImageFormat { kJpeg, kPng, kUnknown };
// From the first bytes (JPEG: FF D8 FF; PNG: its 8-byte signature).
ImageFormat sniff_format(const unsigned char* data, std::size_t size);

// One TurboJPEG decompressor (a handle is not shared between threads). Every call returns ""
// or why the image could not be read.
class JpegDecoder {
 public:
  JpegDecoder();
  ~JpegDecoder();
  JpegDecoder(const JpegDecoder&) = delete;
  JpegDecoder& operator=(const JpegDecoder&) = delete;
  std::string header(const unsigned char* data, std::size_t size, int& width, int& height);
  // Decodes to RGB at full size (accurate DCT, as tjbench by default). A warning from
  // libjpeg-turbo (a premature end of data) is an error here: the image is damaged.
  std::string decode(const unsigned char* data, std::size_t size, Rgb8& out);

 private:
  void* handle_ = nullptr;
};

// One TurboJPEG compressor, for the synthetic data set.
class JpegEncoder {
 public:
  JpegEncoder();
  ~JpegEncoder();
  JpegEncoder(const JpegEncoder&) = delete;
  JpegEncoder& operator=(const JpegEncoder&) = delete;
  // 4:2:0 chroma subsampling at `quality` (1..100); throws std::runtime_error on failure.
  std::vector<unsigned char> encode(const Rgb8& image, int quality);

 private:
  void* handle_ = nullptr;
};

// "" or why the PNG could not be read; any bit depth and colour type, decoded to 8-bit RGB.
std::string png_header(const unsigned char* data, std::size_t size, int& width, int& height);
std::string decode_png(const unsigned char* data, std::size_t size, Rgb8& out);
// Lossless 8-bit RGB PNG; throws std::runtime_error on failure.
std::vector<unsigned char> encode_png(const Rgb8& image);

// A crop of the source and whether to mirror it.
struct Crop {
  int x = 0, y = 0, width = 0, height = 0;
  bool flip = false;
};

// torchvision's RandomResizedCrop parameters: an area of 8-100% of the image and an aspect
// ratio of 3/4..4/3 (log-uniform), ten tries, else the centre crop of the nearest allowed
// ratio; a horizontal flip with probability 1/2. Deterministic in `seed`.
Crop random_resized_crop(int width, int height, std::uint64_t seed);

// Resamples `crop` of `src` to out_size x out_size RGB (bilinear) into dst (out_size^2 * 3).
void resize_crop(const Rgb8& src, const Crop& crop, int out_size, unsigned char* dst);

// dst[i] = (src[i] / 255 - mean[c]) / std[c] with ImageNet's mean and standard deviation per
// channel, for `pixels` RGB pixels.
void normalise(const unsigned char* src, std::size_t pixels, float* dst);

}  // namespace preflight::kernels
