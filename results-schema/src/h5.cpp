#include "preflight/schema/h5.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <exception>
#include <utility>

#include "preflight/schema/chunk_decode.hpp"
#include "preflight/schema/layout.hpp"

namespace preflight::h5 {
namespace {

std::string str(std::string_view s) {
  return std::string(s);
}

// What HDF5's error stack says about the call that has just failed: whether a checksum did not
// match, and the most specific description. Must run before any other HDF5 call, which would
// clear the stack.
struct Diagnosis {
  bool checksum = false;
  std::string detail;
};

bool mentions_checksum(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower.find("checksum") != std::string::npos;
}

Diagnosis diagnose() {
  Diagnosis d;
  auto visit = [](unsigned depth, const H5E_error2_t* error, void* data) -> herr_t {
    auto& out = *static_cast<Diagnosis*>(data);
    const std::string_view desc = error->desc != nullptr ? error->desc : "";
    out.checksum = out.checksum || mentions_checksum(desc);
    if (depth == 0) out.detail = desc;  // walking upward, the first is the most specific
    return 0;
  };
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, visit, &d);
  return d;
}

// The path of an open object in its file ("/cases/000003"); "" when it has none.
std::string path_of(hid_t object) {
  const ssize_t n = H5Iget_name(object, nullptr, 0);
  if (n <= 0) return "";
  std::string name(static_cast<std::size_t>(n) + 1, '\0');
  H5Iget_name(object, name.data(), name.size());
  name.resize(static_cast<std::size_t>(n));
  return name;
}

// `name` under the open object `parent`, as a path from the file's root.
std::string child_path(hid_t parent, std::string_view name) {
  std::string path = path_of(parent);
  if (path == "/") path.clear();
  path += '/';
  path += name;
  return path;
}

std::string attribute_path(hid_t object, std::string_view name) {
  const std::string base = path_of(object);
  return "attribute '" + str(name) + "' of " + (base.empty() ? "/" : base);
}

// "read the type of" as "reading the type of", for "checksum failed reading ...".
std::string gerund(std::string_view action) {
  const auto space = action.find(' ');
  std::string verb(action.substr(0, space));
  if (verb.size() > 2 && verb.back() == 'e') verb.pop_back();  // write, create, size
  verb += "ing";
  if (space != std::string_view::npos) verb += action.substr(space);
  return verb;
}

// Throws the failure of `action` ("read", "open") on `object` (a path in the file or a file
// name), telling a checksum that did not match from other failures.
[[noreturn]] void fail(const Diagnosis& d, std::string_view action, const std::string& object) {
  if (d.checksum) throw Error("checksum failed " + gerund(action) + " " + object, true);
  throw Error("HDF5: cannot " + str(action) + " " + object +
                  (d.detail.empty() ? "" : " (" + d.detail + ")"),
              false);
}

// Checks an identifier or status; on failure names `name` under `parent` (or `name` alone
// when parent < 0) in the message.
template <typename T>
T check_at(T result, std::string_view action, hid_t parent, std::string_view name) {
  if (result >= 0) return result;
  const Diagnosis d = diagnose();
  fail(d, action, parent >= 0 ? child_path(parent, name) : str(name));
}

template <typename T>
T check_attribute(T result, std::string_view action, hid_t object, std::string_view name) {
  if (result >= 0) return result;
  const Diagnosis d = diagnose();
  fail(d, action, attribute_path(object, name));
}

// Failures of calls that touch no file (types, dataspaces, property lists).
hid_t check(hid_t id, std::string_view what) {
  return check_at(id, what, -1, "");
}

void check_status(herr_t status, std::string_view what) {
  check_at(status, what, -1, "");
}

// Fixed-length UTF-8 strings of `size` bytes, padded with NULs: stored with the object that
// holds them (and its checksum), not in the global heap as variable-length strings are.
Handle string_type(std::size_t size) {
  Handle type(check(H5Tcopy(H5T_C_S1), "copy string type"), H5Tclose);
  check_status(H5Tset_size(type.get(), std::max<std::size_t>(size, 1)), "set string size");
  check_status(H5Tset_strpad(type.get(), H5T_STR_NULLPAD), "set string padding");
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

// Every attribute stays in its object's header, which has a checksum: past HDF5's default of
// 8 attributes they would move to a fractal heap, where a long value is stored unchecked.
constexpr unsigned kAllAttributesCompact = 65535;

Handle creation_properties(hid_t property_class) {
  Handle props(check(H5Pcreate(property_class), "create properties"), H5Pclose);
  check_status(H5Pset_attr_phase_change(props.get(), kAllAttributesCompact, 0),
               "keep attributes in the object header");
  return props;
}

// Sets the formats new objects get: 1.10's, whose chunk indexes carry checksums (1.8's v1
// B-tree has none), and no later ones, so that HDF5 1.10 reads the file.
void use_checksummed_formats(hid_t file, const std::string& path) {
  check_at(H5Fset_libver_bounds(file, H5F_LIBVER_V110, H5F_LIBVER_V110), "choose the formats of",
           -1, path);
}

Handle fresh_attribute(hid_t object, std::string_view name, hid_t type) {
  const std::string n = str(name);
  if (has_attribute(object, name))
    check_attribute(H5Adelete(object, n.c_str()), "replace", object, name);
  Handle space = scalar_space();
  return {
      check_attribute(H5Acreate2(object, n.c_str(), type, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                      "create", object, name),
      H5Aclose};
}

template <typename T>
void set_numeric_attribute(hid_t object, std::string_view name, hid_t type, T value) {
  Handle attr = fresh_attribute(object, name, type);
  check_attribute(H5Awrite(attr.get(), type, &value), "write", object, name);
}

Handle open_attribute(hid_t object, std::string_view name) {
  return {check_attribute(H5Aopen(object, str(name).c_str(), H5P_DEFAULT), "open", object, name),
          H5Aclose};
}

// An attribute to read as one value: one holding several (not what preflight writes) would
// overrun the value it is read into.
Handle open_single_attribute(hid_t object, std::string_view name) {
  Handle attr = open_attribute(object, name);
  Handle space(check_attribute(H5Aget_space(attr.get()), "read the shape of", object, name),
               H5Sclose);
  if (H5Sget_simple_extent_npoints(space.get()) != 1)
    throw Error("HDF5: " + attribute_path(object, name) + " holds " +
                std::to_string(H5Sget_simple_extent_npoints(space.get())) + " values, not one");
  return attr;
}

Handle stored_type(const Handle& attribute, hid_t object, std::string_view name) {
  return {check_attribute(H5Aget_type(attribute.get()), "read the type of", object, name),
          H5Tclose};
}

void annotate(hid_t dataset, const ColumnInfo& info) {
  set_attribute(dataset, schema::kUnitAttribute, info.unit);
  if (!info.description.empty())
    set_attribute(dataset, schema::kDescriptionAttribute, info.description);
}

// A column's chunks hold up to 1 MiB: whole in one chunk in all but huge runs.
constexpr std::size_t kColumnChunkBytes = std::size_t{1} << 20;

// Creation properties of a one-dimensional dataset of n elements of `element_bytes`: chunked
// and checksummed when it holds anything (a chunk needs at least one element).
Handle column_properties(std::size_t n, std::size_t element_bytes, std::string_view name) {
  Handle props = creation_properties(H5P_DATASET_CREATE);
  if (n > 0) {
    const hsize_t chunk[1] = {
        std::clamp<hsize_t>(kColumnChunkBytes / std::max<std::size_t>(element_bytes, 1), 1, n)};
    check_status(H5Pset_chunk(props.get(), 1, chunk), "chunk " + str(name));
    check_status(H5Pset_fletcher32(props.get()), "checksum " + str(name));
  }
  return props;
}

// Writes `data` (n elements of `type`) as a column dataset.
void write_column_data(hid_t group, std::string_view name, hid_t type, std::size_t n,
                       const void* data, const ColumnInfo& info) {
  const std::string nm = str(name);
  Handle space = vector_space(n);
  Handle props = column_properties(n, H5Tget_size(type), name);
  Handle set(check_at(H5Dcreate2(group, nm.c_str(), type, space.get(), H5P_DEFAULT, props.get(),
                                 H5P_DEFAULT),
                      "create dataset", group, name),
             H5Dclose);
  if (n > 0)
    check_at(H5Dwrite(set.get(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), "write", group, name);
  annotate(set.get(), info);
}

template <typename T>
void write_numeric_column(hid_t group, std::string_view name, hid_t type, std::span<const T> v,
                          const ColumnInfo& info) {
  write_column_data(group, name, type, v.size(), v.data(), info);
}

std::size_t element_count(hid_t dataset, hid_t group, std::string_view name) {
  Handle space(check_at(H5Dget_space(dataset), "read the shape of", group, name), H5Sclose);
  return static_cast<std::size_t>(
      check_at(H5Sget_simple_extent_npoints(space.get()), "size", group, name));
}

// The values of the open dataset `set` (`name` under `group`, for messages) as `type`.
template <typename T>
std::vector<T> numbers_of(hid_t set, hid_t group, std::string_view name, hid_t type) {
  std::vector<T> out(element_count(set, group, name));
  if (!out.empty())
    check_at(H5Dread(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), "read", group, name);
  return out;
}

template <typename T>
std::vector<T> read_numeric_column(hid_t group, std::string_view name, hid_t type) {
  Handle set = open_dataset(group, name);
  return numbers_of<T>(set.get(), group, name, type);
}

// Fixed-length string bytes up to their padding.
std::string unpadded(const char* data, std::size_t size) {
  const auto* end = std::find(data, data + size, '\0');
  return {data, static_cast<std::size_t>(end - data)};
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

// Created with format 1.8 as the lowest: superblock version 2, which has a checksum but, unlike
// 1.10's version 3, no "open for writing" mark that a killed run would leave behind (HDF5 then
// refuses to open the file until h5clear removes it). New objects then get 1.10's formats.
Handle create_file(const std::string& path) {
  Handle access(check(H5Pcreate(H5P_FILE_ACCESS), "create file access properties"), H5Pclose);
  check_status(H5Pset_libver_bounds(access.get(), H5F_LIBVER_V18, H5F_LIBVER_V110),
               "choose the formats");
  Handle creation = creation_properties(H5P_FILE_CREATE);
  Handle file(
      check_at(H5Fcreate(path.c_str(), H5F_ACC_EXCL, creation.get(), access.get()), "create", -1,
               path + " (does it exist already, or is the directory missing?)"),
      H5Fclose);
  use_checksummed_formats(file.get(), path);
  return file;
}

Handle open_file_read(const std::string& path) {
  return {
      check_at(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), "open", -1, "the file " + path),
      H5Fclose};
}

Handle open_file_write(const std::string& path) {
  Handle file(check_at(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), "open for writing", -1,
                       "the file " + path),
              H5Fclose);
  use_checksummed_formats(file.get(), path);
  return file;
}

void flush(hid_t file) {
  check_status(H5Fflush(file, H5F_SCOPE_GLOBAL), "flush file");
}

bool exists(hid_t parent, std::string_view path) {
  return check_at(H5Lexists(parent, str(path).c_str(), H5P_DEFAULT), "look for", parent, path) > 0;
}

Handle create_group(hid_t parent, std::string_view name) {
  Handle props = creation_properties(H5P_GROUP_CREATE);
  return {check_at(H5Gcreate2(parent, str(name).c_str(), H5P_DEFAULT, props.get(), H5P_DEFAULT),
                   "create group", parent, name),
          H5Gclose};
}

Handle open_group(hid_t parent, std::string_view name) {
  return {check_at(H5Gopen2(parent, str(name).c_str(), H5P_DEFAULT), "open group", parent, name),
          H5Gclose};
}

// Names come in HDF5's native order and are sorted here: for a name-ordered listing of a group
// with many members, HDF5 1.10 builds a table, and when a checksum fails halfway it frees
// entries it never filled (a crash seen in H5G__link_release_table).
std::vector<std::string> child_names(hid_t group) {
  std::vector<std::string> names;
  auto collect = [](hid_t, const char* name, const H5L_info_t*, void* data) -> herr_t {
    static_cast<std::vector<std::string>*>(data)->emplace_back(name);
    return 0;
  };
  const herr_t status = H5Literate(group, H5_INDEX_NAME, H5_ITER_NATIVE, nullptr, collect, &names);
  if (status < 0) {
    const Diagnosis d = diagnose();
    fail(d, "list the members of", path_of(group));
  }
  std::sort(names.begin(), names.end());
  return names;
}

Handle open_dataset(hid_t parent, std::string_view name) {
  return {check_at(H5Dopen2(parent, str(name).c_str(), H5P_DEFAULT), "open dataset", parent, name),
          H5Dclose};
}

bool is_string_dataset(hid_t parent, std::string_view name) {
  Handle set = open_dataset(parent, name);
  Handle type(check_at(H5Dget_type(set.get()), "read the type of", parent, name), H5Tclose);
  return H5Tget_class(type.get()) == H5T_STRING;
}

void set_attribute(hid_t object, std::string_view name, std::string_view value) {
  if (value.size() > kLongestStringAttribute)
    throw Error("the attribute " + str(name) + " would hold " + std::to_string(value.size()) +
                " bytes; an attribute holds at most " + std::to_string(kLongestStringAttribute) +
                " (a longer one would be stored without a checksum)");
  Handle type = string_type(value.size());
  Handle attr = fresh_attribute(object, name, type.get());
  std::string padded(value);
  padded.resize(H5Tget_size(type.get()), '\0');
  check_attribute(H5Awrite(attr.get(), type.get(), padded.data()), "write", object, name);
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
  return check_attribute(H5Aexists(object, str(name).c_str()), "look for", object, name) > 0;
}

std::vector<std::string> attribute_names(hid_t object) {
  std::vector<std::string> names;
  auto collect = [](hid_t, const char* name, const H5A_info_t*, void* data) -> herr_t {
    static_cast<std::vector<std::string>*>(data)->emplace_back(name);
    return 0;
  };
  // Native order, sorted here, for the reason child_names gives.
  const herr_t status =
      H5Aiterate2(object, H5_INDEX_NAME, H5_ITER_NATIVE, nullptr, collect, &names);
  if (status < 0) {
    const Diagnosis d = diagnose();
    fail(d, "list the attributes of", path_of(object));
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool is_string_attribute(hid_t object, std::string_view name) {
  Handle attr = open_attribute(object, name);
  return H5Tget_class(stored_type(attr, object, name).get()) == H5T_STRING;
}

namespace {

// The value of an open attribute of one value whose stored type is a string.
std::string string_value(const Handle& attr, const Handle& stored, hid_t object,
                         std::string_view name) {
  if (H5Tis_variable_str(stored.get()) > 0) {  // read as stored: its character set as written
    char* data = nullptr;
    check_attribute(H5Aread(attr.get(), stored.get(), &data), "read", object, name);
    std::string out = data != nullptr ? data : "";
    H5free_memory(data);
    return out;
  }
  const std::size_t size = H5Tget_size(stored.get());
  std::string out(size, '\0');
  check_attribute(H5Aread(attr.get(), stored.get(), out.data()), "read", object, name);
  return unpadded(out.data(), out.size());
}

AttributeValue value_of(hid_t object, std::string_view name) {
  Handle attr = open_single_attribute(object, name);
  Handle stored = stored_type(attr, object, name);
  AttributeValue v;
  switch (H5Tget_class(stored.get())) {
    case H5T_STRING:
      v.is_string = true;
      v.text = string_value(attr, stored, object, name);
      break;
    case H5T_INTEGER:  // both as int_attribute and as double_attribute read it
      check_attribute(H5Aread(attr.get(), H5T_NATIVE_INT64, &v.integer), "read", object, name);
      check_attribute(H5Aread(attr.get(), H5T_NATIVE_DOUBLE, &v.number), "read", object, name);
      v.is_integer = true;
      break;
    default:
      check_attribute(H5Aread(attr.get(), H5T_NATIVE_DOUBLE, &v.number), "read", object, name);
  }
  return v;
}

}  // namespace

std::string string_attribute(hid_t object, std::string_view name) {
  Handle attr = open_single_attribute(object, name);
  Handle stored = stored_type(attr, object, name);
  if (H5Tget_class(stored.get()) != H5T_STRING)
    throw Error("HDF5: " + attribute_path(object, name) + " is no string");
  return string_value(attr, stored, object, name);
}

std::map<std::string, AttributeValue, std::less<>> read_attributes(hid_t object) {
  struct Pass {
    hid_t object;
    std::map<std::string, AttributeValue, std::less<>> values;
    std::exception_ptr failed;
  } pass{object, {}, nullptr};
  auto read_one = [](hid_t, const char* name, const H5A_info_t*, void* data) -> herr_t {
    auto& p = *static_cast<Pass*>(data);
    try {
      p.values.emplace(name, value_of(p.object, name));
      return 0;
    } catch (...) {  // not through HDF5's C frames
      p.failed = std::current_exception();
      return -1;
    }
  };
  const herr_t status =
      H5Aiterate2(object, H5_INDEX_NAME, H5_ITER_NATIVE, nullptr, read_one, &pass);
  if (pass.failed) std::rethrow_exception(pass.failed);
  if (status < 0) {
    const Diagnosis d = diagnose();
    fail(d, "list the attributes of", path_of(object));
  }
  return std::move(pass.values);
}

std::int64_t int_attribute(hid_t object, std::string_view name) {
  Handle attr = open_single_attribute(object, name);
  std::int64_t value = 0;
  check_attribute(H5Aread(attr.get(), H5T_NATIVE_INT64, &value), "read", object, name);
  return value;
}

double double_attribute(hid_t object, std::string_view name) {
  Handle attr = open_single_attribute(object, name);
  double value = 0;
  check_attribute(H5Aread(attr.get(), H5T_NATIVE_DOUBLE, &value), "read", object, name);
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

// Each string padded to the longest one's length.
void write_column(hid_t group, std::string_view name, std::span<const std::string> values,
                  const ColumnInfo& info) {
  std::size_t longest = 1;
  for (const auto& v : values) longest = std::max(longest, v.size());
  std::string data(values.size() * longest, '\0');
  for (std::size_t i = 0; i < values.size(); ++i)
    std::copy(values[i].begin(), values[i].end(),
              data.begin() + static_cast<std::ptrdiff_t>(i * longest));
  Handle type = string_type(longest);
  write_column_data(group, name, type.get(), values.size(), data.data(), info);
}

std::vector<std::int64_t> read_int_column(hid_t group, std::string_view name) {
  return read_numeric_column<std::int64_t>(group, name, H5T_NATIVE_INT64);
}

std::vector<double> read_double_column(hid_t group, std::string_view name) {
  return read_numeric_column<double>(group, name, H5T_NATIVE_DOUBLE);
}

namespace {

// The strings of the open dataset `set`, whose stored type is `stored` (a string type).
std::vector<std::string> strings_of(const Handle& set, const Handle& stored, hid_t group,
                                    std::string_view name) {
  const std::size_t n = element_count(set.get(), group, name);
  std::vector<std::string> out;
  out.reserve(n);
  if (n == 0) return out;
  if (H5Tis_variable_str(stored.get()) > 0) {  // as for attributes
    std::vector<char*> raw(n, nullptr);
    check_at(H5Dread(set.get(), stored.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data()), "read",
             group, name);
    for (char* s : raw) {
      out.emplace_back(s != nullptr ? s : "");
      H5free_memory(s);
    }
    return out;
  }
  const std::size_t size = H5Tget_size(stored.get());
  std::string data(n * size, '\0');
  check_at(H5Dread(set.get(), stored.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()), "read",
           group, name);
  for (std::size_t i = 0; i < n; ++i) out.push_back(unpadded(data.data() + i * size, size));
  return out;
}

Handle type_of(hid_t set, hid_t group, std::string_view name) {
  return {check_at(H5Dget_type(set), "read the type of", group, name), H5Tclose};
}

}  // namespace

std::vector<std::string> read_string_column(hid_t group, std::string_view name) {
  Handle set = open_dataset(group, name);
  Handle stored = type_of(set.get(), group, name);
  if (H5Tget_class(stored.get()) != H5T_STRING)
    throw Error("HDF5: " + child_path(group, name) + " holds no strings");
  return strings_of(set, stored, group, name);
}

DeclaredColumn read_declared_column(hid_t group, std::string_view name) {
  Handle set = open_dataset(group, name);
  DeclaredColumn c;
  c.attributes = read_attributes(set.get());
  Handle stored = type_of(set.get(), group, name);
  if (H5Tget_class(stored.get()) == H5T_STRING)
    c.strings = strings_of(set, stored, group, name);
  else
    c.numbers = numbers_of<double>(set.get(), group, name, H5T_NATIVE_DOUBLE);
  return c;
}

void write_matrix(hid_t group, std::string_view name, std::size_t rows, std::size_t cols,
                  std::span<const double> values, const ColumnInfo& info) {
  if (values.size() != rows * cols)
    throw Error("HDF5: matrix " + child_path(group, name) + " has wrong size");
  const std::string n = str(name);
  const hsize_t dims[2] = {rows, cols};
  Handle space(check(H5Screate_simple(2, dims, nullptr), "create dataspace"), H5Sclose);
  Handle props = creation_properties(H5P_DATASET_CREATE);
  if (rows > 0 && cols > 0) {
    // Chunks of whole rows (iterations), about 256 KiB each, compressed: per-rank samples of
    // thousands of ranks stay small and a reader can take a row range cheaply. The checksum
    // comes last, so it covers the compressed bytes as stored.
    const hsize_t row_chunk = std::clamp<hsize_t>(32768 / cols, 1, rows);
    const hsize_t chunk[2] = {row_chunk, cols};
    check_status(H5Pset_chunk(props.get(), 2, chunk), "chunk " + n);
    check_status(H5Pset_shuffle(props.get()), "shuffle " + n);
    check_status(H5Pset_deflate(props.get(), 4), "compress " + n);
    check_status(H5Pset_fletcher32(props.get()), "checksum " + n);
  }
  Handle set(check_at(H5Dcreate2(group, n.c_str(), H5T_NATIVE_DOUBLE, space.get(), H5P_DEFAULT,
                                 props.get(), H5P_DEFAULT),
                      "create dataset", group, name),
             H5Dclose);
  if (!values.empty())
    check_at(H5Dwrite(set.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()),
             "write", group, name);
  annotate(set.get(), info);
}

Matrix read_matrix(hid_t group, std::string_view name) {
  Matrix m;
  read_matrix(group, name, m);
  return m;
}

void read_matrix(hid_t group, std::string_view name, Matrix& m) {
  Handle set = open_dataset(group, name);
  Handle space(check_at(H5Dget_space(set.get()), "read the shape of", group, name), H5Sclose);
  hsize_t dims[2] = {0, 0};
  if (H5Sget_simple_extent_ndims(space.get()) != 2 ||
      H5Sget_simple_extent_dims(space.get(), dims, nullptr) != 2)
    throw Error("HDF5: " + child_path(group, name) + " is not a matrix");
  m.rows = static_cast<std::size_t>(dims[0]);
  m.cols = static_cast<std::size_t>(dims[1]);
  m.values.resize(m.rows * m.cols);
  if (!m.values.empty() && !detail::read_matrix_chunks(set.get(), m.rows, m.cols, m.values.data()))
    check_at(H5Dread(set.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, m.values.data()),
             "read", group, name);
}

}  // namespace preflight::h5
