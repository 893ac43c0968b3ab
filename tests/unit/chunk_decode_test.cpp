// The report's own decoding of write_matrix's chunks (chunk_decode.hpp): the same doubles as
// HDF5's filter pipeline gives, bit for bit, for every shape write_matrix chunks differently;
// a damaged chunk is still HDF5's checksum error; anything else is read through HDF5.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "preflight/schema/chunk_decode.hpp"
#include "preflight/schema/h5.hpp"

namespace {

namespace h5 = preflight::h5;
namespace fs = std::filesystem;

class ChunkDecode : public ::testing::Test {
 protected:
  void SetUp() override {
    h5::silence_library_errors();
    std::string pattern = (fs::temp_directory_path() / "chunk-decode-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    path_ = (dir_ / "m.h5").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  // What HDF5's own pipeline reads.
  static std::vector<double> through_library(hid_t set, std::size_t n) {
    std::vector<double> out(n);
    EXPECT_GE(H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), 0);
    return out;
  }

  // The stored bytes of the chunk at `row` (checksum trailer included).
  static std::vector<std::uint8_t> stored_chunk(hid_t set, hsize_t row) {
    const hsize_t offset[2] = {row, 0};
    hsize_t size = 0;
    EXPECT_GE(H5Dget_chunk_storage_size(set, offset, &size), 0);
    std::vector<std::uint8_t> bytes(size);
    std::uint32_t skipped = 0;
    EXPECT_GE(H5Dread_chunk(set, H5P_DEFAULT, offset, &skipped, bytes.data()), 0);
    return bytes;
  }

  fs::path dir_;
  std::string path_;
};

struct Shape {
  std::size_t rows, cols;
};

TEST_F(ChunkDecode, EveryShapeReadsAsTheLibraryReadsIt) {
  // One element; one chunk; many rows a chunk with a partial last chunk (32768 / 5000 = 6 rows a
  // chunk, 7 rows); a row a chunk (cols above 32768); a per-rank row of 8,000 ranks.
  const std::vector<Shape> shapes = {{1, 1}, {2, 3}, {7, 5000}, {3, 40000}, {4, 8000}, {1, 8000}};
  std::mt19937_64 random(7);
  std::normal_distribution<double> noise(1e-3, 2e-4);
  std::vector<std::vector<double>> written;
  {
    h5::Handle file = h5::create_file(path_);
    for (std::size_t k = 0; k < shapes.size(); ++k) {
      std::vector<double> values(shapes[k].rows * shapes[k].cols);
      for (auto& v : values) v = noise(random);
      values[values.size() / 2] = std::numeric_limits<double>::quiet_NaN();
      values.back() = -0.0;
      h5::write_matrix(file.get(), "m" + std::to_string(k), shapes[k].rows, shapes[k].cols,
                       std::span<const double>(values), {"s", ""});
      written.push_back(std::move(values));
    }
  }
  h5::Handle file = h5::open_file_read(path_);
  for (std::size_t k = 0; k < shapes.size(); ++k) {
    const auto name = "m" + std::to_string(k);
    const auto n = written[k].size();
    h5::Handle set = h5::open_dataset(file.get(), name);
    std::vector<double> direct(n);
    ASSERT_TRUE(
        h5::detail::read_matrix_chunks(set.get(), shapes[k].rows, shapes[k].cols, direct.data()))
        << name << ": the direct path did not apply to write_matrix's own pipeline";
    const auto library = through_library(set.get(), n);
    EXPECT_EQ(std::memcmp(direct.data(), library.data(), n * sizeof(double)), 0) << name;
    EXPECT_EQ(std::memcmp(direct.data(), written[k].data(), n * sizeof(double)), 0) << name;
    const auto m = h5::read_matrix(file.get(), name);
    EXPECT_EQ(std::memcmp(m.values.data(), library.data(), n * sizeof(double)), 0) << name;
  }
}

TEST_F(ChunkDecode, FletcherIsTheLibrarysForOddAndEvenLengths) {
  // A string column has Fletcher-32 alone: its stored chunk is the bytes and HDF5's checksum.
  {
    h5::Handle file = h5::create_file(path_);
    for (const std::size_t count : {1, 2, 3, 361, 721, 1000}) {
      const std::vector<std::string> column(count, "x");
      h5::write_column(file.get(), "s" + std::to_string(count),
                       std::span<const std::string>(column), {"", ""});
    }
  }
  h5::Handle file = h5::open_file_read(path_);
  for (const std::size_t count : {1, 2, 3, 361, 721, 1000}) {
    h5::Handle set = h5::open_dataset(file.get(), "s" + std::to_string(count));
    const hsize_t offset[1] = {0};
    hsize_t size = 0;
    ASSERT_GE(H5Dget_chunk_storage_size(set.get(), offset, &size), 0);
    std::vector<std::uint8_t> bytes(size);
    std::uint32_t skipped = 0;
    ASSERT_GE(H5Dread_chunk(set.get(), H5P_DEFAULT, offset, &skipped, bytes.data()), 0);
    ASSERT_EQ(bytes.size(), count + 4);
    std::uint32_t stored = 0;
    for (std::size_t b = 0; b < 4; ++b) stored |= std::uint32_t{bytes[count + b]} << (8 * b);
    EXPECT_EQ(h5::detail::fletcher32({bytes.data(), count}), stored) << count << " bytes";
  }
}

TEST_F(ChunkDecode, AChangedByteIsRefusedAndStillHdf5sChecksumError) {
  std::vector<double> values(4 * 8000);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = 1e-3 * static_cast<double>(i % 97);
  {
    h5::Handle file = h5::create_file(path_);
    h5::write_matrix(file.get(), "m", 4, 8000, std::span<const double>(values), {"s", ""});
  }
  haddr_t address = HADDR_UNDEF;
  {
    h5::Handle file = h5::open_file_read(path_);
    h5::Handle set = h5::open_dataset(file.get(), "m");
    auto stored = stored_chunk(set.get(), 0);
    std::vector<std::uint8_t> inflated(values.size() * sizeof(double));
    std::vector<double> out(values.size());
    ASSERT_TRUE(h5::detail::decode_chunk(stored, values.size(), inflated, out.data()));
    stored[stored.size() / 2] ^= 0x10;
    EXPECT_FALSE(h5::detail::decode_chunk(stored, values.size(), inflated, out.data()));
    h5::Handle space(H5Dget_space(set.get()), H5Sclose);
    hsize_t size = 0;
    ASSERT_GE(H5Dget_chunk_info(set.get(), space.get(), 0, nullptr, nullptr, &address, &size), 0);
    address += size / 2;
  }
  {
    std::fstream f(path_, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(address));
    char byte = 0;
    f.read(&byte, 1);
    byte = static_cast<char>(byte ^ 0x10);
    f.seekp(static_cast<std::streamoff>(address));
    f.write(&byte, 1);
  }
  h5::Handle file = h5::open_file_read(path_);
  try {
    h5::read_matrix(file.get(), "m");
    FAIL() << "a damaged chunk was read";
  } catch (const h5::Error& e) {
    EXPECT_TRUE(e.checksum_failed) << e.what();
  }
}

TEST_F(ChunkDecode, AMatrixStoredAnotherWayIsReadThroughTheLibrary) {
  const std::vector<double> values = {1, 2, 3, 4, 5, 6};
  {
    h5::Handle file = h5::create_file(path_);
    const hsize_t dims[2] = {2, 3};
    h5::Handle space(H5Screate_simple(2, dims, nullptr), H5Sclose);
    h5::Handle set(H5Dcreate2(file.get(), "plain", H5T_NATIVE_DOUBLE, space.get(), H5P_DEFAULT,
                              H5P_DEFAULT, H5P_DEFAULT),
                   H5Dclose);
    ASSERT_GE(H5Dwrite(set.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()),
              0);
  }
  h5::Handle file = h5::open_file_read(path_);
  h5::Handle set = h5::open_dataset(file.get(), "plain");
  std::vector<double> out(values.size());
  EXPECT_FALSE(h5::detail::read_matrix_chunks(set.get(), 2, 3, out.data()));
  EXPECT_EQ(h5::read_matrix(file.get(), "plain").values, values);
}

}  // namespace
