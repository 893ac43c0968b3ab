// Thin RAII and typed helpers over the HDF5 C API, shared by the results writer and reader.
// Every failure throws h5::Error naming the object; HDF5's own error stack printing is off.
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace preflight::h5 {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

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

Handle create_file(const std::string& path);  // fails if the file exists
Handle open_file_read(const std::string& path);
Handle open_file_write(const std::string& path);
void flush(hid_t file);

bool exists(hid_t parent, std::string_view path);
Handle create_group(hid_t parent, std::string_view name);
Handle open_group(hid_t parent, std::string_view name);
std::vector<std::string> child_names(hid_t group);

// Attributes, replaced when they exist.
void set_attribute(hid_t object, std::string_view name, std::string_view value);
void set_attribute(hid_t object, std::string_view name, std::int64_t value);
void set_attribute(hid_t object, std::string_view name, std::uint64_t value);
void set_attribute(hid_t object, std::string_view name, double value);
bool has_attribute(hid_t object, std::string_view name);
std::string string_attribute(hid_t object, std::string_view name);
std::int64_t int_attribute(hid_t object, std::string_view name);
double double_attribute(hid_t object, std::string_view name);

// Where a column's unit and meaning go, as attributes on the dataset.
struct ColumnInfo {
  std::string_view unit;
  std::string_view description;
};

// One-dimensional column datasets.
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

// A rows x cols matrix of doubles, chunked by rows and deflate-compressed.
void write_matrix(hid_t group, std::string_view name, std::size_t rows, std::size_t cols,
                  std::span<const double> values, const ColumnInfo& info);

}  // namespace preflight::h5
