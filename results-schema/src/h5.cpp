#include "preflight/schema/h5.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "preflight/schema/layout.hpp"

namespace preflight::h5 {
namespace {

std::string str(std::string_view s) {
  return std::string(s);
}

hid_t check(hid_t id, std::string_view what) {
  if (id < 0) throw Error("HDF5: cannot " + str(what));
  return id;
}

void check_status(herr_t status, std::string_view what) {
  if (status < 0) throw Error("HDF5: cannot " + str(what));
}

Handle string_type() {
  Handle type(check(H5Tcopy(H5T_C_S1), "copy string type"), H5Tclose);
  check_status(H5Tset_size(type.get(), H5T_VARIABLE), "set string size");
  check_status(H5Tset_cset(type.get(), H5T_CSET_UTF8), "set string charset");
  return type;
}

Handle scalar_space() {
  return {check(H5Screate(H5S_SCALAR), "create dataspace"), H5Sclose};
}

Handle vector_space(std::size_t n) {
  const hsize_t dims[1] = {n};
  return {check(H5Screate_simple(1, dims, nullptr), "create dataspace"), H5Sclose};
}

Handle fresh_attribute(hid_t object, std::string_view name, hid_t type) {
  const std::string n = str(name);
  if (H5Aexists(object, n.c_str()) > 0) check_status(H5Adelete(object, n.c_str()), "replace " + n);
  Handle space = scalar_space();
  return {check(H5Acreate2(object, n.c_str(), type, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                "create attribute " + n),
          H5Aclose};
}

template <typename T>
void set_numeric_attribute(hid_t object, std::string_view name, hid_t type, T value) {
  Handle attr = fresh_attribute(object, name, type);
  check_status(H5Awrite(attr.get(), type, &value), "write attribute " + str(name));
}

void annotate(hid_t dataset, const ColumnInfo& info) {
  set_attribute(dataset, schema::kUnitAttribute, info.unit);
  if (!info.description.empty())
    set_attribute(dataset, schema::kDescriptionAttribute, info.description);
}

template <typename T>
void write_numeric_column(hid_t group, std::string_view name, hid_t type, std::span<const T> v,
                          const ColumnInfo& info) {
  const std::string n = str(name);
  Handle space = vector_space(v.size());
  Handle set(
      check(H5Dcreate2(group, n.c_str(), type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
            "create dataset " + n),
      H5Dclose);
  if (!v.empty())
    check_status(H5Dwrite(set.get(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()),
                 "write dataset " + n);
  annotate(set.get(), info);
}

template <typename T>
std::vector<T> read_numeric_column(hid_t group, std::string_view name, hid_t type) {
  const std::string n = str(name);
  Handle set(check(H5Dopen2(group, n.c_str(), H5P_DEFAULT), "open dataset " + n), H5Dclose);
  Handle space(check(H5Dget_space(set.get()), "get dataspace of " + n), H5Sclose);
  const hssize_t count = H5Sget_simple_extent_npoints(space.get());
  if (count < 0) throw Error("HDF5: cannot size dataset " + n);
  std::vector<T> out(static_cast<std::size_t>(count));
  if (!out.empty())
    check_status(H5Dread(set.get(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()),
                 "read dataset " + n);
  return out;
}

}  // namespace

Handle& Handle::operator=(Handle&& other) noexcept {
  if (this != &other) {
    reset();
    id_ = std::exchange(other.id_, -1);
    closer_ = other.closer_;
  }
  return *this;
}

void Handle::reset() {
  if (id_ >= 0 && closer_ != nullptr) closer_(id_);
  id_ = -1;
}

void silence_library_errors() {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

Handle create_file(const std::string& path) {
  return {check(H5Fcreate(path.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT),
                "create " + path + " (does it exist already, or is the directory missing?)"),
          H5Fclose};
}

Handle open_file_read(const std::string& path) {
  return {check(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), "open " + path), H5Fclose};
}

Handle open_file_write(const std::string& path) {
  return {check(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), "open " + path + " for writing"),
          H5Fclose};
}

void flush(hid_t file) {
  check_status(H5Fflush(file, H5F_SCOPE_GLOBAL), "flush file");
}

bool exists(hid_t parent, std::string_view path) {
  return H5Lexists(parent, str(path).c_str(), H5P_DEFAULT) > 0;
}

Handle create_group(hid_t parent, std::string_view name) {
  return {check(H5Gcreate2(parent, str(name).c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                "create group " + str(name)),
          H5Gclose};
}

Handle open_group(hid_t parent, std::string_view name) {
  return {check(H5Gopen2(parent, str(name).c_str(), H5P_DEFAULT), "open group " + str(name)),
          H5Gclose};
}

std::vector<std::string> child_names(hid_t group) {
  std::vector<std::string> names;
  auto collect = [](hid_t, const char* name, const H5L_info_t*, void* data) -> herr_t {
    static_cast<std::vector<std::string>*>(data)->emplace_back(name);
    return 0;
  };
  check_status(H5Literate(group, H5_INDEX_NAME, H5_ITER_INC, nullptr, collect, &names),
               "list group members");
  return names;
}

void set_attribute(hid_t object, std::string_view name, std::string_view value) {
  Handle type = string_type();
  Handle attr = fresh_attribute(object, name, type.get());
  const std::string v = str(value);
  const char* data = v.c_str();
  check_status(H5Awrite(attr.get(), type.get(), &data), "write attribute " + str(name));
}

void set_attribute(hid_t object, std::string_view name, std::int64_t value) {
  set_numeric_attribute(object, name, H5T_NATIVE_INT64, value);
}

void set_attribute(hid_t object, std::string_view name, std::uint64_t value) {
  set_numeric_attribute(object, name, H5T_NATIVE_UINT64, value);
}

void set_attribute(hid_t object, std::string_view name, double value) {
  set_numeric_attribute(object, name, H5T_NATIVE_DOUBLE, value);
}

bool has_attribute(hid_t object, std::string_view name) {
  return H5Aexists(object, str(name).c_str()) > 0;
}

std::string string_attribute(hid_t object, std::string_view name) {
  const std::string n = str(name);
  Handle attr(check(H5Aopen(object, n.c_str(), H5P_DEFAULT), "open attribute " + n), H5Aclose);
  Handle stored(check(H5Aget_type(attr.get()), "get type of attribute " + n), H5Tclose);
  if (H5Tget_class(stored.get()) != H5T_STRING)
    throw Error("HDF5: attribute " + n + " is no string");
  if (H5Tis_variable_str(stored.get()) > 0) {
    Handle type = string_type();
    char* data = nullptr;
    check_status(H5Aread(attr.get(), type.get(), &data), "read attribute " + n);
    std::string out = data != nullptr ? data : "";
    H5free_memory(data);
    return out;
  }
  const std::size_t size = H5Tget_size(stored.get());
  std::string out(size, '\0');
  check_status(H5Aread(attr.get(), stored.get(), out.data()), "read attribute " + n);
  out.resize(std::min(out.find('\0'), out.size()));
  return out;
}

std::int64_t int_attribute(hid_t object, std::string_view name) {
  const std::string n = str(name);
  Handle attr(check(H5Aopen(object, n.c_str(), H5P_DEFAULT), "open attribute " + n), H5Aclose);
  std::int64_t value = 0;
  check_status(H5Aread(attr.get(), H5T_NATIVE_INT64, &value), "read attribute " + n);
  return value;
}

double double_attribute(hid_t object, std::string_view name) {
  const std::string n = str(name);
  Handle attr(check(H5Aopen(object, n.c_str(), H5P_DEFAULT), "open attribute " + n), H5Aclose);
  double value = 0;
  check_status(H5Aread(attr.get(), H5T_NATIVE_DOUBLE, &value), "read attribute " + n);
  return value;
}

void write_column(hid_t group, std::string_view name, std::span<const std::int64_t> values,
                  const ColumnInfo& info) {
  write_numeric_column(group, name, H5T_NATIVE_INT64, values, info);
}

void write_column(hid_t group, std::string_view name, std::span<const std::uint64_t> values,
                  const ColumnInfo& info) {
  write_numeric_column(group, name, H5T_NATIVE_UINT64, values, info);
}

void write_column(hid_t group, std::string_view name, std::span<const double> values,
                  const ColumnInfo& info) {
  write_numeric_column(group, name, H5T_NATIVE_DOUBLE, values, info);
}

void write_column(hid_t group, std::string_view name, std::span<const std::string> values,
                  const ColumnInfo& info) {
  std::vector<const char*> pointers;
  pointers.reserve(values.size());
  for (const auto& v : values) pointers.push_back(v.c_str());
  Handle type = string_type();
  write_numeric_column<const char*>(group, name, type.get(), pointers, info);
}

std::vector<std::int64_t> read_int_column(hid_t group, std::string_view name) {
  return read_numeric_column<std::int64_t>(group, name, H5T_NATIVE_INT64);
}

std::vector<double> read_double_column(hid_t group, std::string_view name) {
  return read_numeric_column<double>(group, name, H5T_NATIVE_DOUBLE);
}

std::vector<std::string> read_string_column(hid_t group, std::string_view name) {
  Handle type = string_type();
  std::vector<char*> raw = read_numeric_column<char*>(group, name, type.get());
  std::vector<std::string> out;
  out.reserve(raw.size());
  for (char* s : raw) {
    out.emplace_back(s != nullptr ? s : "");
    H5free_memory(s);
  }
  return out;
}

void write_matrix(hid_t group, std::string_view name, std::size_t rows, std::size_t cols,
                  std::span<const double> values, const ColumnInfo& info) {
  if (values.size() != rows * cols) throw Error("HDF5: matrix " + str(name) + " has wrong size");
  const std::string n = str(name);
  const hsize_t dims[2] = {rows, cols};
  Handle space(check(H5Screate_simple(2, dims, nullptr), "create dataspace"), H5Sclose);
  Handle props(check(H5Pcreate(H5P_DATASET_CREATE), "create properties"), H5Pclose);
  if (rows > 0 && cols > 0) {
    // Chunks of whole rows (iterations), about 256 KiB each, compressed: per-rank samples of
    // thousands of ranks stay small and a reader can take a row range cheaply.
    const hsize_t row_chunk = std::clamp<hsize_t>(32768 / cols, 1, rows);
    const hsize_t chunk[2] = {row_chunk, cols};
    check_status(H5Pset_chunk(props.get(), 2, chunk), "chunk " + n);
    check_status(H5Pset_shuffle(props.get()), "shuffle " + n);
    check_status(H5Pset_deflate(props.get(), 4), "compress " + n);
  }
  Handle set(check(H5Dcreate2(group, n.c_str(), H5T_NATIVE_DOUBLE, space.get(), H5P_DEFAULT,
                              props.get(), H5P_DEFAULT),
                   "create dataset " + n),
             H5Dclose);
  if (!values.empty())
    check_status(
        H5Dwrite(set.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()),
        "write dataset " + n);
  annotate(set.get(), info);
}

}  // namespace preflight::h5
