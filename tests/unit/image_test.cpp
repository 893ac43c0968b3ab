// The dataloader's image kernels and its check of damaged images: the crop and resize against a
// plain bilinear reference, the flip, normalise, a JPEG and PNG round trip, and the header and
// end checks that find a corrupt or truncated image before a run.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "cpu/image.hpp"
#include "dataloader/image_set.hpp"

namespace preflight {
namespace {

namespace k = kernels;

k::Rgb8 gradient(int w, int h) {
  k::Rgb8 img{w, h, k::Pixels(static_cast<std::size_t>(w * h * 3))};
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 3; ++c)
        img.pixels[static_cast<std::size_t>((y * w + x) * 3 + c)] =
            static_cast<unsigned char>((x * 7 + y * 3 + c * 50 + (x * y) % 13) % 256);
  return img;
}

// Bilinear with pixel centres aligned, in doubles: what resize_crop must give within rounding.
double reference(const k::Rgb8& s, const k::Crop& c, int n, int x, int y, int ch) {
  auto coord = [n](int start, int length, int limit, int i) {
    return std::clamp(start + (i + 0.5) * length / n - 0.5, 0.0, limit - 1.0);
  };
  const double sx = coord(c.x, c.width, s.width, c.flip ? n - 1 - x : x);
  const double sy = coord(c.y, c.height, s.height, y);
  const int x0 = std::min(static_cast<int>(sx), s.width - 2),
            y0 = std::min(static_cast<int>(sy), s.height - 2);
  const double fx = sx - x0, fy = sy - y0;
  auto at = [&](int xx, int yy) {
    return s.pixels[static_cast<std::size_t>((yy * s.width + xx) * 3 + ch)];
  };
  return (at(x0, y0) * (1 - fx) + at(x0 + 1, y0) * fx) * (1 - fy) +
         (at(x0, y0 + 1) * (1 - fx) + at(x0 + 1, y0 + 1) * fx) * fy;
}

TEST(ImageKernels, ResizeCropIsBilinearAndFlipMirrors) {
  const auto src = gradient(97, 61);
  for (const k::Crop crop : {k::Crop{0, 0, 97, 61, false}, k::Crop{10, 5, 40, 30, false},
                             k::Crop{10, 5, 40, 30, true}, k::Crop{60, 40, 37, 21, true}})
    for (int n : {16, 224}) {
      std::vector<unsigned char> out(static_cast<std::size_t>(n * n * 3));
      k::resize_crop(src, crop, n, out.data());
      int worst = 0;
      for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x)
          for (int ch = 0; ch < 3; ++ch)
            worst = std::max(
                worst,
                static_cast<int>(std::abs(out[static_cast<std::size_t>((y * n + x) * 3 + ch)] -
                                          reference(src, crop, n, x, y, ch))));
      EXPECT_LE(worst, 1) << "crop " << crop.x << "," << crop.y << " " << crop.width << "x"
                          << crop.height << " flip " << crop.flip << " to " << n;
    }
}

TEST(ImageKernels, RandomResizedCropStaysInsideAndIsSeeded) {
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    const auto c = k::random_resized_crop(500, 375, seed);
    EXPECT_GE(c.x, 0);
    EXPECT_GE(c.y, 0);
    EXPECT_LE(c.x + c.width, 500);
    EXPECT_LE(c.y + c.height, 375);
    EXPECT_GE(c.width * c.height, 0.07 * 500 * 375);
    const auto again = k::random_resized_crop(500, 375, seed);
    EXPECT_EQ(again.x, c.x);
    EXPECT_EQ(again.flip, c.flip);
  }
}

TEST(ImageKernels, NormaliseUsesImageNetStatistics) {
  const unsigned char px[3] = {255, 0, 124};
  float out[3];
  k::normalise(px, 1, out);
  EXPECT_NEAR(out[0], (1 - 0.485) / 0.229, 1e-5);
  EXPECT_NEAR(out[1], (0 - 0.456) / 0.224, 1e-5);
  EXPECT_NEAR(out[2], (124 / 255.0 - 0.406) / 0.225, 1e-5);
}

// 37 pixels: the 16-pixel vector steps (into an aligned buffer) and the scalar tail, and the
// scalar path alone (an unaligned buffer) must give the same floats, each channel its own.
TEST(ImageKernels, NormaliseIsTheSameOnTheVectorAndScalarPaths) {
  constexpr std::size_t kPixels = 37;
  std::vector<unsigned char> px(kPixels * 3);
  for (std::size_t i = 0; i < px.size(); ++i)
    px[i] = static_cast<unsigned char>((i * 89 + 7) % 256);
  std::vector<float> aligned(px.size()), shifted(px.size() + 1);
  k::normalise(px.data(), kPixels, aligned.data());
  k::normalise(px.data(), kPixels, shifted.data() + 1);
  const double mean[3] = {0.485, 0.456, 0.406}, sd[3] = {0.229, 0.224, 0.225};
  for (std::size_t i = 0; i < px.size(); ++i) {
    EXPECT_NEAR(aligned[i], (px[i] / 255.0 - mean[i % 3]) / sd[i % 3], 1e-5) << "element " << i;
    EXPECT_EQ(aligned[i], shifted[i + 1]) << "element " << i;
  }
}

TEST(ImageKernels, JpegAndPngRoundTripAndDamageIsFound) {
  const auto src = gradient(64, 48);
  k::JpegEncoder encoder;
  const auto jpeg = encoder.encode(src, 90);
  const auto png = k::encode_png(src);
  k::JpegDecoder decoder;
  k::Rgb8 out;
  ASSERT_EQ(decoder.decode(jpeg.data(), jpeg.size(), out), "");
  EXPECT_EQ(out.width, 64);
  EXPECT_EQ(out.height, 48);
  ASSERT_EQ(k::decode_png(png.data(), png.size(), out), "");
  EXPECT_EQ(out.pixels, src.pixels) << "PNG is lossless";

  auto tail = [](const std::vector<unsigned char>& v, std::size_t n) {
    return std::vector<unsigned char>(v.end() - static_cast<long>(std::min(n, v.size())), v.end());
  };
  EXPECT_EQ(dataloader::check_image(jpeg, tail(jpeg, 64), jpeg.size()), "");
  EXPECT_EQ(dataloader::check_image(png, tail(png, 64), png.size()), "");
  const std::vector<unsigned char> cut(jpeg.begin(),
                                       jpeg.begin() + static_cast<long>(jpeg.size() / 2));
  EXPECT_EQ(dataloader::check_image(cut, tail(cut, 64), cut.size()),
            "truncated JPEG: no end-of-image marker");
  const std::vector<unsigned char> cut_png(png.begin(), png.end() - 20);
  EXPECT_EQ(dataloader::check_image(cut_png, tail(cut_png, 64), cut_png.size()),
            "truncated PNG: no IEND chunk at the end");
  auto corrupt = jpeg;
  for (std::size_t i = 3; i < 40; ++i) corrupt[i] = 0x11;  // no marker after SOI
  EXPECT_NE(dataloader::check_image(corrupt, tail(corrupt, 64), corrupt.size())
                .find("corrupt JPEG header"),
            std::string::npos);
  const std::vector<unsigned char> text = {'h', 'e', 'l', 'l', 'o'};
  EXPECT_EQ(dataloader::check_image(text, text, text.size()),
            "neither JPEG nor PNG (bad signature)");
  // Damage inside the entropy-coded data: the header and end look whole; decoding finds it.
  auto inner = jpeg;
  inner[inner.size() / 2] = 0xFF;
  inner[inner.size() / 2 + 1] = 0xD9;
  EXPECT_EQ(dataloader::check_image(inner, tail(inner, 64), inner.size()), "");
  EXPECT_NE(decoder.decode(inner.data(), inner.size(), out), "");
}

}  // namespace
}  // namespace preflight
