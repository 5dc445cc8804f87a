// gpucap: the HDF5 plumbing that the results file's writer and reader share (private to
// sim/results/src): identifiers closed by their owner, errors that name the file, the types
// and rows of the summary tables, and low-level typed helpers that write and read one
// attribute or dataset. Every helper taking an Hdf5Item spells the name through its layout row
// (gpucap/hdf5_layout.hpp) and refuses a value of another kind, type or rank than the row's.
#pragma once
#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "gpucap/hdf5_layout.hpp"
#include "gpucap/metrics.hpp"
#include "gpucap/summary.hpp"

namespace gpucap::hdf5_detail {

/// Fixed string widths (bytes) of the compound summary tables; longer text is truncated.
constexpr std::size_t kMetricNameBytes = kHdf5MetricNameBytes;
constexpr std::size_t kUnitBytes = kHdf5UnitBytes;
constexpr std::size_t kPoolNameBytes = kHdf5PoolNameBytes;
/// The user block at the start of every file: gpucap's header with the file's checksum.
constexpr std::size_t kUserBlockBytes = kHdf5UserBlockBytes;

/// Owns one HDF5 identifier and closes it with the matching H5?close function.
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle() = default;
  Handle(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& other) noexcept : id_(other.id_), closer_(other.closer_) {
    other.id_ = H5I_INVALID_HID;
  }
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) {
      close();
      id_ = other.id_;
      closer_ = other.closer_;
      other.id_ = H5I_INVALID_HID;
    }
    return *this;
  }
  ~Handle() { close(); }

  hid_t get() const { return id_; }
  /// Closes the identifier now; returns the close function's status (negative on failure).
  herr_t close() {
    herr_t status = 0;
    if (id_ >= 0 && closer_ != nullptr) status = closer_(id_);
    id_ = H5I_INVALID_HID;
    return status;
  }

 private:
  hid_t id_ = H5I_INVALID_HID;
  Closer closer_ = nullptr;
};

/// The innermost message of HDF5's current error stack, or "" when the stack is empty.
std::string hdf5_error_detail();

/// Error context of one call: builds messages that name the file.
class Context {
 public:
  Context(const char* action, std::string path) : action_(action), path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string& what) const;
  /// Reports that the action `what` ("opening ...") failed, with HDF5's own description.
  [[noreturn]] void fail_hdf5(const std::string& what) const;
  hid_t check(hid_t id, const std::string& what) const {
    if (id < 0) fail_hdf5(what);
    return id;
  }
  void check_status(herr_t status, const std::string& what) const {
    if (status < 0) fail_hdf5(what);
  }
  Handle type(hid_t id, const std::string& what) const { return {check(id, what), H5Tclose}; }
  Handle space(hid_t id, const std::string& what) const { return {check(id, what), H5Sclose}; }
  Handle plist(hid_t id, const std::string& what) const { return {check(id, what), H5Pclose}; }
  Handle group(hid_t id, const std::string& what) const { return {check(id, what), H5Gclose}; }
  Handle dataset(hid_t id, const std::string& what) const { return {check(id, what), H5Dclose}; }
  Handle attribute(hid_t id, const std::string& what) const { return {check(id, what), H5Aclose}; }

 private:
  const char* action_;
  std::string path_;
};

std::string join_path(const std::string& group, const std::string& name);
std::string dims_text(const std::vector<hsize_t>& dims);
/// Copies `text` into a fixed, null-padded field of `width` bytes (truncating).
void copy_fixed(char* field, std::size_t width, const std::string& text);
std::string from_fixed(const char* field, std::size_t width);

// ------------------------------------------------------------------------------------------
// Types and spaces.

Handle vlen_string_type(const Context& c);
Handle fixed_string_type(const Context& c, std::size_t width);

/// One row of /summary (in memory; the file type is the packed version of this).
struct SummaryRow {
  uint32_t point;
  char metric[kMetricNameBytes];
  char unit[kUnitBytes];
  uint64_t n;
  double mean, std, ci95_low, ci95_high, p5, p50, p95;
};

/// One row of /pool_summary.
struct PoolSummaryRow {
  uint32_t point;
  uint32_t pool;
  char pool_name[kPoolNameBytes];
  char metric[kMetricNameBytes];
  char unit[kUnitBytes];
  uint64_t n;
  double mean, std, ci95_low, ci95_high, p5, p50, p95;
};

/// The native HDF5 type of a numeric layout type.
hid_t native_type(Hdf5Type type);

/// The in-memory compound type of SummaryRow (pool == false) or PoolSummaryRow (pool == true).
Handle summary_type(const Context& c, bool pool);

template <typename Row>
void set_stats(Row& row, const MetricSummary& s) {
  row.n = s.n;
  row.mean = s.mean;
  row.std = s.std;
  row.ci95_low = s.ci95_low;
  row.ci95_high = s.ci95_high;
  row.p5 = s.p5;
  row.p50 = s.p50;
  row.p95 = s.p95;
}

template <typename Row>
MetricSummary get_stats(const Row& row) {
  MetricSummary s;
  s.n = static_cast<std::size_t>(row.n);
  s.mean = row.mean;
  s.std = row.std;
  s.ci95_low = row.ci95_low;
  s.ci95_high = row.ci95_high;
  s.p5 = row.p5;
  s.p50 = row.p50;
  s.p95 = row.p95;
  return s;
}

/// A simple dataspace of `dims` (scalar when `dims` is empty). Zero-sized dimensions are fine.
Handle make_space(const Context& c, const std::vector<hsize_t>& dims);
hsize_t element_count(const std::vector<hsize_t>& dims);

// The layout table's items (gpucap/hdf5_layout.hpp): the name and the HDF5 type come from their
// row, and a value of another type than the row's is refused (a gpucap bug, caught by tests).

template <typename T>
constexpr Hdf5Type layout_type() {
  if constexpr (std::is_same_v<T, int32_t>) return Hdf5Type::int32;
  if constexpr (std::is_same_v<T, uint32_t>) return Hdf5Type::uint32;
  if constexpr (std::is_same_v<T, uint64_t>) return Hdf5Type::uint64;
  if constexpr (std::is_same_v<T, double>) return Hdf5Type::float64;
  return Hdf5Type::none;
}

/// Refuses an item of another kind, type or rank than the code handles.
void check_item(const Context& c, const Hdf5Item& item, Hdf5Kind kind, Hdf5Type type, bool array);

// ------------------------------------------------------------------------------------------
// Writing one attribute or dataset.

/// Writes a scalar attribute `name` of `native_type` on `loc` (at `loc_path`).
void write_scalar_attr(const Context& c, hid_t loc, const std::string& loc_path, const char* name,
                       hid_t native_type, const void* value);
/// Writes `values` as a variable-length UTF-8 string attribute: scalar when `dims` is empty.
void write_strings_attr(const Context& c, hid_t loc, const std::string& loc_path, const char* name,
                        const std::vector<std::string>& values, const std::vector<hsize_t>& dims);
void write_string_attr(const Context& c, hid_t loc, const std::string& loc_path, const char* name,
                       const std::string& value);

template <typename T>
void write_attr(const Context& c, hid_t loc, const Hdf5Item& item, T value) {
  check_item(c, item, Hdf5Kind::attribute, layout_type<T>(), false);
  write_scalar_attr(c, loc, item.parent, item.name, native_type(item.type), &value);
}
void write_string_attr(const Context& c, hid_t loc, const Hdf5Item& item, const std::string& value);
void write_strings_attr(const Context& c, hid_t loc, const Hdf5Item& item,
                        const std::vector<std::string>& values, const std::vector<hsize_t>& dims);

/// Creation properties of a table of `elements` rows in chunks of at most 4096, with Fletcher32
/// checksums; default (contiguous) properties when it is empty.
Handle checksummed_rows(const Context& c, std::size_t elements, const std::string& what);

/// Writes a variable-length UTF-8 string dataset of shape `dims` (row-major `values`).
void write_strings_dataset(const Context& c, hid_t loc, const std::string& loc_path,
                           const char* name, const std::vector<std::string>& values,
                           const std::vector<hsize_t>& dims);
void write_strings_dataset(const Context& c, hid_t loc, const Hdf5Item& item,
                           const std::vector<std::string>& values,
                           const std::vector<hsize_t>& dims);

/// Writes a one-dimensional uint64 dataset (checksummed rows).
void write_uint64_dataset(const Context& c, hid_t loc, const Hdf5Item& item,
                          const std::vector<uint64_t>& values);

/// Writes a one-dimensional column of a table (/jobs) in the item's type, checksummed; a
/// float64 column carries the unit and description attributes of every metric dataset.
template <typename T>
void write_column(const Context& c, hid_t loc, const Hdf5Item& item, const std::vector<T>& values,
                  hid_t file_type) {
  check_item(c, item, Hdf5Kind::dataset, item.type, true);
  const std::string what = "dataset '" + hdf5_item_path(item) + "'";
  Handle space = make_space(c, {values.size()});
  Handle dcpl = checksummed_rows(c, values.size(), what);
  Handle dset = c.dataset(
      H5Dcreate2(loc, item.name, file_type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
      "creating " + what);
  if (!values.empty())
    c.check_status(H5Dwrite(dset.get(), native_type(item.type), H5S_ALL, H5S_ALL, H5P_DEFAULT,
                            values.data()),
                   "writing " + what);
  if (item.type == Hdf5Type::float64) {  // like every float64 dataset: unit and description
    write_string_attr(c, dset.get(), hdf5_item_path(item), h5::kMetricUnit.name, item.unit);
    write_string_attr(c, dset.get(), hdf5_item_path(item), h5::kMetricDescription.name,
                      item.description);
  }
}

/// Creates the group `item`, whose links h5py lists in creation order (the metric table order).
Handle create_ordered_group(const Context& c, hid_t loc, const Hdf5Item& item);

template <typename T>
void write_compound_dataset(const Context& c, hid_t loc, const Hdf5Item& item, bool pool,
                            const std::vector<T>& rows) {
  check_item(c, item, Hdf5Kind::dataset, Hdf5Type::compound, true);
  const char* name = item.name;
  const std::string what = "dataset '" + hdf5_item_path(item) + "'";
  Handle mem_type = summary_type(c, pool);
  Handle file_type = c.type(H5Tcopy(mem_type.get()), "copying a compound type");
  c.check_status(H5Tpack(file_type.get()), "packing a compound type");
  Handle space = make_space(c, {static_cast<hsize_t>(rows.size())});
  Handle dcpl = checksummed_rows(c, rows.size(), what);
  Handle dset = c.dataset(
      H5Dcreate2(loc, name, file_type.get(), space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
      "creating " + what);
  if (!rows.empty()) {
    c.check_status(H5Dwrite(dset.get(), mem_type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, rows.data()),
                   "writing " + what);
  }
}

// ------------------------------------------------------------------------------------------
// Reading one attribute or dataset.

Handle open_group(const Context& c, hid_t loc, const std::string& loc_path, const char* name);
Handle open_dataset(const Context& c, hid_t loc, const std::string& loc_path, const char* name);
Handle open_attr(const Context& c, hid_t loc, const std::string& loc_path, const char* name);
std::vector<hsize_t> dataset_dims(const Context& c, hid_t dset, const std::string& what);
void expect_dims(const Context& c, const std::vector<hsize_t>& actual,
                 const std::vector<hsize_t>& expected, const std::string& what);

/// Reads the scalar attribute `name` of `loc` as `native_type` into `value`.
void read_scalar_attr(const Context& c, hid_t loc, const std::string& loc_path, const char* name,
                      hid_t native_type, void* value);

/// Reads all strings (fixed or variable length) of an attribute or dataset, row-major.
std::vector<std::string> read_strings(const Context& c, hid_t obj, bool is_attr,
                                      const std::string& what);
std::vector<std::string> read_strings_dataset(const Context& c, hid_t loc,
                                              const std::string& loc_path, const char* name,
                                              const std::vector<hsize_t>& expected_dims);
/// Reads the double dataset `name` (shape `dims`) into `data` (resized to its element count).
void read_metric_dataset(const Context& c, hid_t loc, const std::string& loc_path, const char* name,
                         const std::vector<hsize_t>& dims, std::vector<double>& data);

Handle open_group(const Context& c, hid_t loc, const Hdf5Item& item);
Handle open_dataset(const Context& c, hid_t loc, const Hdf5Item& item);

template <typename T>
T read_attr(const Context& c, hid_t loc, const Hdf5Item& item) {
  check_item(c, item, Hdf5Kind::attribute, layout_type<T>(), false);
  T value{};
  read_scalar_attr(c, loc, item.parent, item.name, native_type(item.type), &value);
  return value;
}
std::string read_string_attr(const Context& c, hid_t loc, const Hdf5Item& item);
std::vector<std::string> read_strings_attr(const Context& c, hid_t loc, const Hdf5Item& item);
std::vector<std::string> read_strings_dataset(const Context& c, hid_t loc, const Hdf5Item& item,
                                              const std::vector<hsize_t>& expected_dims);
/// Reads a one-dimensional uint64 dataset of `n` rows.
std::vector<uint64_t> read_uint64_dataset(const Context& c, hid_t loc, const Hdf5Item& item,
                                          hsize_t n);
/// The length of the one-dimensional dataset `item` (refused when it has another rank).
hsize_t column_length(const Context& c, hid_t loc, const Hdf5Item& item);

/// Whether the file has the root attribute `item` (optional in older files).
bool has_root_attr(hid_t file, const Hdf5Item& item);

template <typename Row>
std::vector<Row> read_compound_dataset(const Context& c, hid_t file, const Hdf5Item& item,
                                       bool pool, std::size_t expected_rows) {
  check_item(c, item, Hdf5Kind::dataset, Hdf5Type::compound, true);
  const std::string what = "dataset '" + hdf5_item_path(item) + "'";
  Handle dset = open_dataset(c, file, item);
  expect_dims(c, dataset_dims(c, dset.get(), what), {expected_rows}, what);
  Handle file_type = c.type(H5Dget_type(dset.get()), "getting the type of " + what);
  if (H5Tget_class(file_type.get()) != H5T_COMPOUND) c.fail(what + " is not a compound table");
  for (const Hdf5Field* field : kHdf5SummaryFields) {
    if (field->required && (pool || !field->pool_only) &&
        H5Tget_member_index(file_type.get(), field->name) < 0) {
      c.fail(what + " lacks the field '" + field->name + "'");
    }
  }
  Handle mem_type = summary_type(c, pool);
  std::vector<Row> rows(expected_rows);
  if (!rows.empty()) {
    c.check_status(H5Dread(dset.get(), mem_type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, rows.data()),
                   "reading " + what);
  }
  return rows;
}

/// Reads a one-dimensional column of `n` rows in the item's type.
template <typename T>
std::vector<T> read_column(const Context& c, hid_t loc, const Hdf5Item& item, hsize_t n) {
  check_item(c, item, Hdf5Kind::dataset, item.type, true);
  const std::string what = "dataset '" + hdf5_item_path(item) + "'";
  Handle dset = open_dataset(c, loc, item.parent, item.name);
  expect_dims(c, dataset_dims(c, dset.get(), what), {n}, what);
  std::vector<T> values(static_cast<std::size_t>(n));
  if (!values.empty())
    c.check_status(H5Dread(dset.get(), native_type(item.type), H5S_ALL, H5S_ALL, H5P_DEFAULT,
                           values.data()),
                   "reading " + what);
  return values;
}

}  // namespace gpucap::hdf5_detail
