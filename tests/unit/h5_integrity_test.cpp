// The results file's integrity (results-schema/SPEC.md, "Integrity"): what the shared HDF5
// helpers write is checked when read, damage throws h5::Error naming the object, and a file
// whose writer died without closing it still opens.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "preflight/schema/h5.hpp"

namespace {

namespace h5 = preflight::h5;
namespace fs = std::filesystem;

class H5Integrity : public ::testing::Test {
 protected:
  void SetUp() override {
    h5::silence_library_errors();
    std::string pattern = (fs::temp_directory_path() / "h5-integrity-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    path_ = (dir_ / "r.h5").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Adds `delta` to the byte at `offset` of the file.
  void damage(haddr_t offset, unsigned char delta = 0x5a) const {
    std::fstream f(path_, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(offset));
    char byte = 0;
    f.read(&byte, 1);
    byte = static_cast<char>(static_cast<unsigned char>(byte) + delta);
    f.seekp(static_cast<std::streamoff>(offset));
    f.write(&byte, 1);
  }

  // A file with /g holding a column of 100 doubles and a few attributes.
  void write_sample() const {
    h5::Handle file = h5::create_file(path_);
    h5::Handle g = h5::create_group(file.get(), "g");
    std::vector<double> values(100);
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = 1.5 * static_cast<double>(i);
    h5::write_column(g.get(), "col", std::span<const double>(values), {"s", "seconds"});
    for (char c = 'a'; c < 'm'; ++c)  // 12: past HDF5's default of 8 compact attributes
      h5::set_attribute(g.get(), std::string(1, c), std::string_view("value"));
  }

  fs::path dir_;
  std::string path_;
};

TEST_F(H5Integrity, StringsAreFixedLengthAndReadBack) {
  {
    h5::Handle file = h5::create_file(path_);
    h5::set_attribute(file.get(), "name", std::string_view("h\xc3\xa9llo"));
    h5::set_attribute(file.get(), "empty", std::string_view(""));
    const std::vector<std::string> column = {"a", "", "a longer one"};
    h5::write_column(file.get(), "names", std::span<const std::string>(column), {"", ""});
  }
  h5::Handle file = h5::open_file_read(path_);
  EXPECT_EQ(h5::string_attribute(file.get(), "name"), "h\xc3\xa9llo");
  EXPECT_EQ(h5::string_attribute(file.get(), "empty"), "");
  EXPECT_EQ(h5::read_string_column(file.get(), "names"),
            (std::vector<std::string>{"a", "", "a longer one"}));
  h5::Handle attr(H5Aopen(file.get(), "name", H5P_DEFAULT), H5Aclose);
  h5::Handle attr_type(H5Aget_type(attr.get()), H5Tclose);
  EXPECT_EQ(H5Tis_variable_str(attr_type.get()), 0)
      << "a variable-length string lives in the global heap";
  h5::Handle set = h5::open_dataset(file.get(), "names");
  h5::Handle set_type(H5Dget_type(set.get()), H5Tclose);
  EXPECT_EQ(H5Tis_variable_str(set_type.get()), 0);
}

TEST_F(H5Integrity, VariableLengthStringsOfVersionOneStillRead) {
  {
    h5::Handle file = h5::create_file(path_);
    h5::Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(type.get(), H5T_VARIABLE);
    h5::Handle space(H5Screate(H5S_SCALAR), H5Sclose);
    h5::Handle attr(
        H5Acreate2(file.get(), "old", type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    const char* value = "written by schema version 1";
    ASSERT_GE(H5Awrite(attr.get(), type.get(), &value), 0);
  }
  h5::Handle file = h5::open_file_read(path_);
  EXPECT_EQ(h5::string_attribute(file.get(), "old"), "written by schema version 1");
}

TEST_F(H5Integrity, EveryDatasetThatHoldsValuesHasAChecksum) {
  {
    h5::Handle file = h5::create_file(path_);
    const std::vector<std::int64_t> ints = {1, 2, 3};
    h5::write_column(file.get(), "ints", std::span<const std::int64_t>(ints), {"", ""});
    const std::vector<double> matrix = {1, 2, 3, 4, 5, 6};
    h5::write_matrix(file.get(), "matrix", 2, 3, std::span<const double>(matrix), {"s", ""});
    h5::write_column(file.get(), "none", std::span<const std::int64_t>(), {"", ""});
  }
  h5::Handle file = h5::open_file_read(path_);
  for (const char* name : {"ints", "matrix"}) {
    h5::Handle set = h5::open_dataset(file.get(), name);
    h5::Handle props(H5Dget_create_plist(set.get()), H5Pclose);
    EXPECT_EQ(H5Pget_layout(props.get()), H5D_CHUNKED) << name;
    EXPECT_GT(H5Pget_filter_by_id2(props.get(), H5Z_FILTER_FLETCHER32, nullptr, nullptr, nullptr, 0,
                                   nullptr, nullptr),
              -1)
        << name << " has no Fletcher-32 filter";
  }
  EXPECT_TRUE(h5::read_int_column(file.get(), "none").empty());
  const auto m = h5::read_matrix(file.get(), "matrix");
  EXPECT_EQ(m.rows, 2U);
  EXPECT_EQ(m.cols, 3U);
  EXPECT_EQ(m.values, (std::vector<double>{1, 2, 3, 4, 5, 6}));
}

TEST_F(H5Integrity, DamagedValuesNameTheDataset) {
  write_sample();
  haddr_t chunk = HADDR_UNDEF;
  {
    h5::Handle file = h5::open_file_read(path_);
    h5::Handle g = h5::open_group(file.get(), "g");
    h5::Handle set = h5::open_dataset(g.get(), "col");
    h5::Handle space(H5Dget_space(set.get()), H5Sclose);
    hsize_t size = 0;
    ASSERT_GE(H5Dget_chunk_info(set.get(), space.get(), 0, nullptr, nullptr, &chunk, &size), 0);
  }
  damage(chunk + 100);
  h5::Handle file = h5::open_file_read(path_);
  h5::Handle g = h5::open_group(file.get(), "g");
  try {
    h5::read_double_column(g.get(), "col");
    FAIL() << "a damaged chunk was read";
  } catch (const h5::Error& e) {
    EXPECT_TRUE(e.checksum_failed);
    EXPECT_STREQ(e.what(), "checksum failed reading /g/col");
  }
}

TEST_F(H5Integrity, DamagedMetadataNamesTheObject) {
  write_sample();
  H5O_info_t info{};
  {
    h5::Handle file = h5::open_file_read(path_);
    h5::Handle g = h5::open_group(file.get(), "g");
    ASSERT_GE(H5Oget_info2(g.get(), &info, H5O_INFO_BASIC), 0);
  }
  damage(info.addr + 40);  // inside the group's object header, among its attributes
  h5::Handle file = h5::open_file_read(path_);
  try {
    h5::Handle g = h5::open_group(file.get(), "g");
    h5::string_attribute(g.get(), "l");
    FAIL() << "a damaged object header was read";
  } catch (const h5::Error& e) {
    EXPECT_TRUE(e.checksum_failed);
    EXPECT_NE(std::string(e.what()).find("checksum failed opening group /g"), std::string::npos)
        << e.what();
  }
}

TEST_F(H5Integrity, DamagedSuperblockIsNamedAsAChecksum) {
  write_sample();
  damage(20);  // the superblock's base address: version 2 has a checksum over it
  try {
    h5::open_file_read(path_);
    FAIL() << "a damaged superblock was read";
  } catch (const h5::Error& e) {
    EXPECT_TRUE(e.checksum_failed) << e.what();
  }
}

TEST_F(H5Integrity, AStringTooLongForTheObjectHeaderIsRefused) {
  h5::Handle file = h5::create_file(path_);
  const std::string long_text(h5::kLongestStringAttribute + 1, 'x');
  EXPECT_THROW(h5::set_attribute(file.get(), "config", std::string_view(long_text)), h5::Error);
  const std::string longest(h5::kLongestStringAttribute, 'x');
  h5::set_attribute(file.get(), "config", std::string_view(longest));
  EXPECT_EQ(h5::string_attribute(file.get(), "config"), longest);
}

// preflight writes single values; an attribute of several (another writer's, or planted) is
// refused rather than read past the one value it would be read into.
TEST_F(H5Integrity, AnAttributeOfSeveralValuesIsRefused) {
  {
    h5::Handle file = h5::create_file(path_);
    const hsize_t dims[1] = {3};
    h5::Handle space(H5Screate_simple(1, dims, nullptr), H5Sclose);
    h5::Handle attr(H5Acreate2(file.get(), "world_size", H5T_NATIVE_DOUBLE, space.get(),
                               H5P_DEFAULT, H5P_DEFAULT),
                    H5Aclose);
    const double values[3] = {1, 2, 3};
    ASSERT_GE(H5Awrite(attr.get(), H5T_NATIVE_DOUBLE, values), 0);
  }
  h5::Handle file = h5::open_file_read(path_);
  EXPECT_THROW(h5::double_attribute(file.get(), "world_size"), h5::Error);
  EXPECT_THROW(h5::int_attribute(file.get(), "world_size"), h5::Error);
}

// HDF5 1.10's superblock version 3 marks a file open for writing until it is closed: a killed
// run would leave a file HDF5 refuses to open. Version 2 has a checksum and no such mark.
TEST_F(H5Integrity, AFileWhoseWriterDiedStillOpens) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    h5::Handle file = h5::create_file(path_);
    h5::Handle g = h5::create_group(file.get(), "cases");
    h5::flush(file.get());
    _exit(0);  // as if killed: nothing closed
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  h5::Handle file = h5::open_file_read(path_);
  EXPECT_TRUE(h5::exists(file.get(), "cases"));
}

}  // namespace
