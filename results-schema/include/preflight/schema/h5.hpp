// Thin RAII and typed helpers over the HDF5 C API, shared by the results writer and reader.
// Every failure throws h5::Error naming the object by its path in the file; HDF5's own error
// stack printing is off.
//
// What they write is checked when it is read (results-schema/SPEC.md, "Integrity"): metadata
// in the HDF5 1.8/1.10 formats, which carry checksums; every dataset that holds values
// chunked with a Fletcher-32 checksum; strings of fixed length, in the object header, never in
// the global heap; attributes kept in their object's header (checksummed) rather than in a
// fractal heap, where long values would go unchecked.
#pragma once

#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace preflight::h5 {

struct Error : std::runtime_error {
  explicit Error(const std::string& message, bool checksum = false)
      : std::runtime_error(message), checksum_failed(checksum) {}
  // HDF5 found a checksum that does not match: the file's bytes changed after it was written.
  bool checksum_failed;
};

// The longest string an attribute may hold: an attribute must fit in one object header message
// (64 KiB with its name and type), or HDF5 moves it where no checksum covers it.
inline constexpr std::size_t kLongestStringAttribute = 60 * 1024;

// Owns one hid_t and closes it with the matching H5?close.
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle() = default;
  Handle(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  Handle(Handle&& other) noexcept : id_(other.id_), closer_(other.closer_) { other.id_ = -1; }
  Handle& operator=(Handle&& other) noexcept;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { reset(); }

  hid_t get() const { return id_; }
  explicit operator bool() const { return id_ >= 0; }
  void reset();

 private:
  hid_t id_ = -1;
  Closer closer_ = nullptr;
};

// Silences HDF5's automatic error printing for the life of the process; call once.
void silence_library_errors();

// Files written with checksums on their metadata (see above); reading takes any format.
Handle create_file(const std::string& path);  // fails if the file exists
Handle open_file_read(const std::string& path);
Handle open_file_write(const std::string& path);
void flush(hid_t file);

bool exists(hid_t parent, std::string_view path);
Handle create_group(hid_t parent, std::string_view name);
Handle open_group(hid_t parent, std::string_view name);
std::vector<std::string> child_names(hid_t group);
Handle open_dataset(hid_t parent, std::string_view name);
bool is_string_dataset(hid_t parent, std::string_view name);

// Attributes, replaced when they exist. A string longer than kLongestStringAttribute throws.
void set_attribute(hid_t object, std::string_view name, std::string_view value);
void set_attribute(hid_t object, std::string_view name, std::int64_t value);
void set_attribute(hid_t object, std::string_view name, std::uint64_t value);
void set_attribute(hid_t object, std::string_view name, double value);
bool has_attribute(hid_t object, std::string_view name);
std::vector<std::string> attribute_names(hid_t object);
bool is_string_attribute(hid_t object, std::string_view name);
// Fixed-length or (files of schema version 1) variable-length strings.
std::string string_attribute(hid_t object, std::string_view name);
std::int64_t int_attribute(hid_t object, std::string_view name);
double double_attribute(hid_t object, std::string_view name);

// One attribute as stored: a string's text, an integer (exact, and as a double), or a number.
struct AttributeValue {
  bool is_string = false, is_integer = false;
  std::string text;
  std::int64_t integer = 0;
  double number = 0;
};
// Every attribute of `object` in one pass, by name: a reader of thousands of objects (a soak's
// cases) makes a third of the library calls that has_attribute and a typed read each make.
// Throws as the typed reads do (an attribute of several values, a damaged header).
std::map<std::string, AttributeValue, std::less<>> read_attributes(hid_t object);

// Where a column's unit and meaning go, as attributes on the dataset.
struct ColumnInfo {
  std::string_view unit;
  std::string_view description;
};

// One-dimensional column datasets, chunked with a checksum when not empty.
void write_column(hid_t group, std::string_view name, std::span<const std::int64_t> values,
                  const ColumnInfo& info);
void write_column(hid_t group, std::string_view name, std::span<const std::uint64_t> values,
                  const ColumnInfo& info);
void write_column(hid_t group, std::string_view name, std::span<const double> values,
                  const ColumnInfo& info);
void write_column(hid_t group, std::string_view name, std::span<const std::string> values,
                  const ColumnInfo& info);
std::vector<std::int64_t> read_int_column(hid_t group, std::string_view name);
std::vector<double> read_double_column(hid_t group, std::string_view name);
std::vector<std::string> read_string_column(hid_t group, std::string_view name);
// A column and its attributes through one open of the dataset (a soak's report reads hundreds of
// thousands): its strings where it holds strings, else its numbers as doubles.
struct DeclaredColumn {
  std::map<std::string, AttributeValue, std::less<>> attributes;
  std::vector<double> numbers;
  std::vector<std::string> strings;
};
DeclaredColumn read_declared_column(hid_t group, std::string_view name);

// A rows x cols matrix of doubles, chunked by rows, deflate-compressed and checksummed.
void write_matrix(hid_t group, std::string_view name, std::size_t rows, std::size_t cols,
                  std::span<const double> values, const ColumnInfo& info);
struct Matrix {
  std::size_t rows = 0, cols = 0;
  std::vector<double> values;  // row-major
};
Matrix read_matrix(hid_t group, std::string_view name);
// The same into `out`, reusing its storage: a reader of many large matrices in turn (the report,
// a matrix per case and size) then does not map fresh pages for each.
void read_matrix(hid_t group, std::string_view name, Matrix& out);

}  // namespace preflight::h5
