#include "matmul/verify.hpp"

namespace preflight::matmul {

std::vector<Element> all_elements(const Shape& shape) {
  std::vector<Element> out;
  out.reserve(static_cast<std::size_t>(shape.m * shape.n));
  for (std::int64_t j = 0; j < shape.n; ++j)
    for (std::int64_t i = 0; i < shape.m; ++i) out.push_back({i, j});
  return out;
}

std::vector<Element> pick_samples(const Shape& shape, std::size_t count, std::uint64_t seed) {
  std::vector<Element> out;
  const std::int64_t m = shape.m - 1, n = shape.n - 1;
  for (const Element corner : {Element{0, 0}, Element{m, n}, Element{m, 0}, Element{0, n}})
    if (out.size() < count) out.push_back(corner);
  for (std::uint64_t e = 0; out.size() < count; ++e) {
    const double u = (input_value(seed, 2 * e) + 1) / 2, v = (input_value(seed, 2 * e + 1) + 1) / 2;
    out.push_back({static_cast<std::int64_t>(u * static_cast<double>(shape.m)),
                   static_cast<std::int64_t>(v * static_cast<double>(shape.n))});
  }
  return out;
}

}  // namespace preflight::matmul
