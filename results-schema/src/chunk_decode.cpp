#include "preflight/schema/chunk_decode.hpp"

#include <libdeflate.h>

#include <array>
#include <cstring>
#include <memory>

namespace preflight::h5::detail {
namespace {

constexpr std::size_t kChecksumBytes = 4;
constexpr std::size_t kDoubleBytes = sizeof(double);

// The filters write_matrix sets, in the order they run when writing.
constexpr std::array<H5Z_filter_t, 3> kMatrixPipeline = {H5Z_FILTER_SHUFFLE, H5Z_FILTER_DEFLATE,
                                                         H5Z_FILTER_FLETCHER32};

struct DecompressorFree {
  void operator()(libdeflate_decompressor* d) const { libdeflate_free_decompressor(d); }
};
using Decompressor = std::unique_ptr<libdeflate_decompressor, DecompressorFree>;

// HDF5's shuffle puts byte b of every element together; element i's bytes come back from each
// of the 8 planes in turn.
void unshuffle(const std::uint8_t* planes, std::size_t elements, double* out) {
  auto* bytes = reinterpret_cast<std::uint8_t*>(out);
  for (std::size_t i = 0; i < elements; ++i)
    for (std::size_t b = 0; b < kDoubleBytes; ++b)
      bytes[i * kDoubleBytes + b] = planes[b * elements + i];
}

bool is_matrix_pipeline(hid_t set, hsize_t& chunk_rows, std::size_t cols) {
  const hid_t plist = H5Dget_create_plist(set);
  if (plist < 0) return false;
  bool ok = H5Pget_layout(plist) == H5D_CHUNKED &&
            H5Pget_nfilters(plist) == static_cast<int>(kMatrixPipeline.size());
  hsize_t chunk[2] = {0, 0};
  ok = ok && H5Pget_chunk(plist, 2, chunk) == 2 && chunk[1] == cols && chunk[0] > 0;
  for (unsigned k = 0; ok && k < kMatrixPipeline.size(); ++k) {
    unsigned flags = 0, filter_config = 0;
    std::size_t values = 0;
    ok = H5Pget_filter2(plist, k, &flags, &values, nullptr, 0, nullptr, &filter_config) ==
         kMatrixPipeline[k];
  }
  H5Pclose(plist);
  chunk_rows = chunk[0];
  return ok;
}

bool stored_as_native_doubles(hid_t set) {
  const hid_t type = H5Dget_type(set);
  if (type < 0) return false;
  const bool same = H5Tequal(type, H5T_NATIVE_DOUBLE) > 0;
  H5Tclose(type);
  return same;
}

}  // namespace

std::uint32_t fletcher32(std::span<const std::uint8_t> bytes) {
  std::uint32_t sum1 = 0, sum2 = 0;
  const auto fold = [&] {
    sum1 = (sum1 & 0xffff) + (sum1 >> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >> 16);
  };
  const std::uint8_t* data = bytes.data();
  for (std::size_t words = bytes.size() / 2; words > 0;) {
    std::size_t block = std::min<std::size_t>(words, 360);
    words -= block;
    for (; block > 0; --block, data += 2) {
      sum1 += static_cast<std::uint32_t>(data[0]) << 8 | data[1];
      sum2 += sum1;
    }
    fold();
  }
  if (bytes.size() % 2 != 0) {
    sum1 += static_cast<std::uint32_t>(*data) << 8;
    sum2 += sum1;
    fold();
  }
  fold();
  return sum2 << 16 | sum1;
}

bool decode_chunk(std::span<const std::uint8_t> stored, std::size_t elements,
                  std::span<std::uint8_t> inflated, double* out) {
  if (stored.size() <= kChecksumBytes) return false;
  const auto body = stored.first(stored.size() - kChecksumBytes);
  const std::uint8_t* trailer = stored.data() + body.size();  // little-endian, as HDF5 encodes
  const std::uint32_t expected =
      static_cast<std::uint32_t>(trailer[0]) | static_cast<std::uint32_t>(trailer[1]) << 8 |
      static_cast<std::uint32_t>(trailer[2]) << 16 | static_cast<std::uint32_t>(trailer[3]) << 24;
  if (fletcher32(body) != expected) return false;
  const std::size_t bytes = elements * kDoubleBytes;
  if (inflated.size() < bytes) return false;
  const Decompressor d(libdeflate_alloc_decompressor());
  std::size_t produced = 0;
  if (!d ||
      libdeflate_zlib_decompress(d.get(), body.data(), body.size(), inflated.data(), bytes,
                                 &produced) != LIBDEFLATE_SUCCESS ||
      produced != bytes)
    return false;
  unshuffle(inflated.data(), elements, out);
  return true;
}

bool read_matrix_chunks(hid_t set, std::size_t rows, std::size_t cols, double* out) {
  hsize_t chunk_rows = 0;
  if (rows == 0 || cols == 0 || !is_matrix_pipeline(set, chunk_rows, cols) ||
      !stored_as_native_doubles(set))
    return false;
  const std::size_t chunk_elements = static_cast<std::size_t>(chunk_rows) * cols;
  std::vector<std::uint8_t> stored;
  // Not zero-filled: every byte is inflated into before it is read.
  const auto inflated =
      std::make_unique_for_overwrite<std::uint8_t[]>(chunk_elements * kDoubleBytes);
  std::vector<double> edge;  // the last chunk, when it holds rows past the matrix's end
  for (std::size_t row = 0; row < rows; row += chunk_rows) {
    const hsize_t offset[2] = {row, 0};
    hsize_t size = 0;
    std::uint32_t skipped = 0;
    if (H5Dget_chunk_storage_size(set, offset, &size) < 0 || size == 0) return false;
    stored.resize(static_cast<std::size_t>(size));
    if (H5Dread_chunk(set, H5P_DEFAULT, offset, &skipped, stored.data()) < 0 || skipped != 0)
      return false;
    const std::size_t kept = std::min<std::size_t>(chunk_rows, rows - row) * cols;
    double* into = out + row * cols;
    if (kept < chunk_elements) {
      edge.resize(chunk_elements);
      into = edge.data();
    }
    if (!decode_chunk(stored, chunk_elements, {inflated.get(), chunk_elements * kDoubleBytes},
                      into))
      return false;
    if (into != out + row * cols) std::memcpy(out + row * cols, into, kept * kDoubleBytes);
  }
  return true;
}

}  // namespace preflight::h5::detail
