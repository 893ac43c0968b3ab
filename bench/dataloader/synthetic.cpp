#include "dataloader/synthetic.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "cpu/splitmix.hpp"

namespace preflight::dataloader {
namespace {

struct Rng : kernels::SplitMix {
  double normal() {  // Box-Muller
    const double u = std::max(uniform(), 1e-300), v = uniform();
    return std::sqrt(-2 * std::log(u)) * std::cos(6.283185307179586 * v);
  }
};

using Plane = std::vector<float>;

// Value noise of one octave: a random grid every `cell` pixels, bilinearly interpolated.
void add_octave(Plane& p, int w, int h, double cell, double amplitude, Rng& rng) {
  const int gw = static_cast<int>(w / cell) + 2, gh = static_cast<int>(h / cell) + 2;
  std::vector<float> grid(static_cast<std::size_t>(gw * gh));
  for (auto& g : grid) g = static_cast<float>(rng.uniform(-amplitude, amplitude));
  for (int y = 0; y < h; ++y) {
    const double gy = y / cell;
    const int y0 = static_cast<int>(gy);
    const float fy = static_cast<float>(gy - y0);
    for (int x = 0; x < w; ++x) {
      const double gx = x / cell;
      const int x0 = static_cast<int>(gx);
      const float fx = static_cast<float>(gx - x0);
      const float* g = &grid[static_cast<std::size_t>(y0 * gw + x0)];
      const float top = g[0] + (g[1] - g[0]) * fx;
      const float bottom = g[gw] + (g[gw + 1] - g[gw]) * fx;
      p[static_cast<std::size_t>(y * w + x)] += top + (bottom - top) * fy;
    }
  }
}

// Texture at every scale with a 1/f spectrum, as natural images have.
Plane fractal(int w, int h, double amplitude, Rng& rng) {
  Plane p(static_cast<std::size_t>(w * h), 0.0f);
  double cell = std::max(w, h) / 2.0, a = amplitude;
  while (cell >= 1.5) {
    add_octave(p, w, h, cell, a, rng);
    cell /= 2;
    a *= 0.62;
  }
  return p;
}

struct Shape {
  double cx, cy, rx, ry, angle;
  std::array<double, 3> colour;
  double stripes, stripe_amp;
  bool ellipse;
};

}  // namespace

ImageSize synthetic_size(int mean_width, std::uint64_t seed, std::size_t index) {
  Rng rng{{seed * 0x100000001B3ull + index}};
  static constexpr std::array kAspect = {0.75, 0.75, 0.75, 0.75, 0.75, 0.667, 1.0, 1.333, 0.5625};
  const double w = mean_width * std::exp(0.15 * rng.normal());
  const double aspect = kAspect[rng.next() % kAspect.size()] * std::exp(0.04 * rng.normal());
  return {std::clamp(static_cast<int>(w), 16, 4 * mean_width),
          std::clamp(static_cast<int>(w * aspect), 16, 4 * mean_width)};
}

kernels::Rgb8 synthetic_image(int w, int h, std::uint64_t seed) {
  Rng rng{{seed}};
  // Large smooth regions: a gradient between two colours, then luminance and chroma texture.
  std::array<double, 3> c0{}, c1{};
  for (int ch = 0; ch < 3; ++ch) {
    c0[static_cast<std::size_t>(ch)] = rng.uniform(30, 220);
    c1[static_cast<std::size_t>(ch)] = rng.uniform(30, 220);
  }
  const double gdir = rng.uniform(0, 6.283185307179586);
  const Plane luma = fractal(w, h, 38, rng);
  const Plane chroma_a = fractal(w, h, 14, rng), chroma_b = fractal(w, h, 14, rng);
  std::vector<Shape> shapes(static_cast<std::size_t>(4 + rng.next() % 10));
  for (auto& s : shapes) {
    s.cx = rng.uniform(0, w);
    s.cy = rng.uniform(0, h);
    s.rx = rng.uniform(0.04, 0.3) * w;
    s.ry = rng.uniform(0.04, 0.3) * h;
    s.angle = rng.uniform(0, 3.14159);
    for (auto& c : s.colour) c = rng.uniform(10, 245);
    s.stripes = rng.uniform() < 0.4 ? rng.uniform(0.05, 0.6) : 0;
    s.stripe_amp = rng.uniform(8, 30);
    s.ellipse = rng.uniform() < 0.6;
  }
  kernels::Rgb8 img;
  img.width = w;
  img.height = h;
  img.pixels.resize(static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * 3);
  const double gx = std::cos(gdir) / w, gy = std::sin(gdir) / h;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const std::size_t i = static_cast<std::size_t>(y * w + x);
      const double t = std::clamp(0.5 + (x - w / 2.0) * gx + (y - h / 2.0) * gy, 0.0, 1.0);
      std::array<double, 3> v{};
      for (std::size_t ch = 0; ch < 3; ++ch) v[ch] = c0[ch] + (c1[ch] - c0[ch]) * t;
      double texture = 0;
      for (const auto& s : shapes) {  // later shapes cover earlier ones: edges and occlusion
        const double dx = x - s.cx, dy = y - s.cy;
        const double u = (dx * std::cos(s.angle) + dy * std::sin(s.angle)) / s.rx;
        const double q = (-dx * std::sin(s.angle) + dy * std::cos(s.angle)) / s.ry;
        const bool inside = s.ellipse ? u * u + q * q <= 1 : std::abs(u) <= 1 && std::abs(q) <= 1;
        if (!inside) continue;
        v = s.colour;
        texture = s.stripes > 0 ? s.stripe_amp * std::sin(u * s.rx * s.stripes) : 0;
      }
      const double grain = 1.8 * rng.normal();
      const double l = luma[i] + texture + grain;
      v[0] += l + chroma_a[i];
      v[1] += l - 0.5 * chroma_a[i] - 0.5 * chroma_b[i];
      v[2] += l + chroma_b[i];
      for (std::size_t ch = 0; ch < 3; ++ch)
        img.pixels[i * 3 + ch] =
            static_cast<unsigned char>(std::clamp(std::lround(v[ch]), 0L, 255L));
    }
  return img;
}

}  // namespace preflight::dataloader
