// Micro-benchmarks of the dataloader's image kernels on one 500x375 image (ImageNet's typical
// size): decode (JPEG q90 4:2:0, PNG), random-resized crop to 224 with flip, normalise.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "cpu/image.hpp"

namespace {

namespace k = preflight::kernels;

// Smooth gradients, edges and grain: not flat (too cheap to decode), not noise (too dear).
k::Rgb8 test_image() {
  k::Rgb8 img{500, 375, k::Pixels(500 * 375 * 3)};
  std::uint32_t state = 12345;
  for (int y = 0; y < img.height; ++y)
    for (int x = 0; x < img.width; ++x)
      for (int c = 0; c < 3; ++c) {
        state = state * 1664525u + 1013904223u;
        const double edge = ((x / 40 + y / 30) % 2) * 60.0;
        const double v = 80 + 60 * std::sin(x * 0.02 * (c + 1)) * std::cos(y * 0.015) + edge +
                         static_cast<double>(state >> 28);
        img.pixels[static_cast<std::size_t>((y * img.width + x) * 3 + c)] =
            static_cast<unsigned char>(std::fmin(255, std::fmax(0, v)));
      }
  return img;
}

void BM_DecodeJpeg(benchmark::State& state) {
  k::JpegEncoder encoder;
  const auto jpeg = encoder.encode(test_image(), 90);
  k::JpegDecoder decoder;
  k::Rgb8 out;
  for (auto _ : state) benchmark::DoNotOptimize(decoder.decode(jpeg.data(), jpeg.size(), out));
  state.SetItemsProcessed(state.iterations());
}

void BM_DecodePng(benchmark::State& state) {
  const auto png = k::encode_png(test_image());
  k::Rgb8 out;
  for (auto _ : state) benchmark::DoNotOptimize(k::decode_png(png.data(), png.size(), out));
  state.SetItemsProcessed(state.iterations());
}

void BM_ResizeCrop(benchmark::State& state) {
  const auto img = test_image();
  std::vector<unsigned char> tile(224 * 224 * 3);
  std::uint64_t seed = 0;
  for (auto _ : state) {
    k::resize_crop(img, k::random_resized_crop(img.width, img.height, ++seed), 224, tile.data());
    benchmark::DoNotOptimize(tile.data());
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_Normalise(benchmark::State& state) {
  std::vector<unsigned char> tile(224 * 224 * 3, 100);
  std::vector<float> out(tile.size());
  for (auto _ : state) {
    k::normalise(tile.data(), 224 * 224, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations());
}

BENCHMARK(BM_DecodeJpeg);
BENCHMARK(BM_DecodePng);
BENCHMARK(BM_ResizeCrop);
BENCHMARK(BM_Normalise);

}  // namespace

BENCHMARK_MAIN();
