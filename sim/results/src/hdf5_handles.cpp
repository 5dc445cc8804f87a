// gpucap: the HDF5 plumbing of the results file (see hdf5_handles.hpp).
#include "hdf5_handles.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpucap/detail/text.hpp"

namespace gpucap::hdf5_detail {
namespace {

/// Records the description of the innermost error (where HDF5 detected it).
herr_t innermost_error(unsigned n, const H5E_error2_t* err, void* data) {
  if (n == 0 && err != nullptr && err->desc != nullptr) {
    *static_cast<std::string*>(data) = err->desc;
  }
  return 0;
}

template <typename Row>
void insert_stat_fields(const Context& c, hid_t type) {
  const struct {
    const Hdf5Field& field;
    std::size_t offset;
  } fields[] = {{h5::kFieldN, HOFFSET(Row, n)},
                {h5::kFieldMean, HOFFSET(Row, mean)},
                {h5::kFieldStd, HOFFSET(Row, std)},
                {h5::kFieldCiLow, HOFFSET(Row, ci95_low)},
                {h5::kFieldCiHigh, HOFFSET(Row, ci95_high)},
                {h5::kFieldP5, HOFFSET(Row, p5)},
                {h5::kFieldP50, HOFFSET(Row, p50)},
                {h5::kFieldP95, HOFFSET(Row, p95)}};
  for (const auto& f : fields) {
    c.check_status(H5Tinsert(type, f.field.name, f.offset, native_type(f.field.type)),
                   std::string("building the compound field '") + f.field.name + "'");
  }
}

std::vector<hsize_t> extent(const Context& c, hid_t space, const std::string& what) {
  const int rank = H5Sget_simple_extent_ndims(space);
  if (rank < 0) c.fail_hdf5("querying the shape of " + what);
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  if (rank > 0 && H5Sget_simple_extent_dims(space, dims.data(), nullptr) < 0) {
    c.fail_hdf5("querying the shape of " + what);
  }
  return dims;
}

/// Frees the strings HDF5 allocated for a variable-length string read.
struct VlenStrings {
  std::vector<char*> pointers;
  explicit VlenStrings(std::size_t n) : pointers(n, nullptr) {}
  VlenStrings(const VlenStrings&) = delete;
  VlenStrings& operator=(const VlenStrings&) = delete;
  ~VlenStrings() {
    for (char* p : pointers) {
      if (p != nullptr) H5free_memory(p);
    }
  }
};

std::string read_string_attr(const Context& c, hid_t loc, const std::string& loc_path,
                             const char* name) {
  const std::string what = "attribute '" + std::string(name) + "' of '" + loc_path + "'";
  Handle attr = open_attr(c, loc, loc_path, name);
  std::vector<std::string> values = read_strings(c, attr.get(), true, what);
  if (values.size() != 1) c.fail(what + " is not a single string");
  return values[0];
}

std::vector<std::string> read_strings_attr(const Context& c, hid_t loc, const std::string& loc_path,
                                           const char* name) {
  const std::string what = "attribute '" + std::string(name) + "' of '" + loc_path + "'";
  Handle attr = open_attr(c, loc, loc_path, name);
  return read_strings(c, attr.get(), true, what);
}

}  // namespace

std::string hdf5_error_detail() {
  std::string detail;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost_error, &detail);
  return detail;
}

void Context::fail(const std::string& what) const {
  throw std::runtime_error("cannot " + std::string(action_) + " HDF5 results file '" +
                           text::excerpt(path_, 300) + "': " + what);
}

void Context::fail_hdf5(const std::string& what) const {
  const std::string detail = hdf5_error_detail();
  fail(what + " failed" + (detail.empty() ? std::string() : " (HDF5: " + detail + ")"));
}

std::string join_path(const std::string& group, const std::string& name) {
  return group == "/" ? "/" + name : group + "/" + name;
}

std::string dims_text(const std::vector<hsize_t>& dims) {
  std::string text = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) {
    text += (i > 0 ? ", " : "") + std::to_string(dims[i]);
  }
  return text + "]";
}

/// Copies `text` into a fixed, null-padded field of `width` bytes (truncating).
void copy_fixed(char* field, std::size_t width, const std::string& text) {
  std::memset(field, 0, width);
  std::memcpy(field, text.data(), std::min(width, text.size()));
}

std::string from_fixed(const char* field, std::size_t width) {
  const char* end = std::find(field, field + width, '\0');
  return std::string(field, end);
}

// ------------------------------------------------------------------------------------------
// Types.

Handle vlen_string_type(const Context& c) {
  Handle type = c.type(H5Tcopy(H5T_C_S1), "copying the string type");
  c.check_status(H5Tset_size(type.get(), H5T_VARIABLE), "making a variable-length string type");
  c.check_status(H5Tset_cset(type.get(), H5T_CSET_UTF8), "setting the UTF-8 character set");
  return type;
}

Handle fixed_string_type(const Context& c, std::size_t width) {
  Handle type = c.type(H5Tcopy(H5T_C_S1), "copying the string type");
  c.check_status(H5Tset_size(type.get(), width), "sizing a fixed-length string type");
  c.check_status(H5Tset_strpad(type.get(), H5T_STR_NULLPAD), "setting string padding");
  c.check_status(H5Tset_cset(type.get(), H5T_CSET_UTF8), "setting the UTF-8 character set");
  return type;
}

/// The native HDF5 type of a numeric layout type.
hid_t native_type(Hdf5Type type) {
  switch (type) {
    case Hdf5Type::int32:
      return H5T_NATIVE_INT32;
    case Hdf5Type::uint32:
      return H5T_NATIVE_UINT32;
    case Hdf5Type::uint64:
      return H5T_NATIVE_UINT64;
    case Hdf5Type::float64:
      return H5T_NATIVE_DOUBLE;
    default:
      return H5I_INVALID_HID;
  }
}

/// The in-memory compound type of SummaryRow (pool == false) or PoolSummaryRow (pool == true).
Handle summary_type(const Context& c, bool pool) {
  const std::size_t size = pool ? sizeof(PoolSummaryRow) : sizeof(SummaryRow);
  Handle type = c.type(H5Tcreate(H5T_COMPOUND, size), "creating a compound type");
  Handle metric = fixed_string_type(c, kMetricNameBytes);
  Handle unit = fixed_string_type(c, kUnitBytes);
  const auto insert = [&](const Hdf5Field& field, std::size_t offset, hid_t member) {
    c.check_status(H5Tinsert(type.get(), field.name, offset, member),
                   std::string("building the compound field '") + field.name + "'");
  };
  if (pool) {
    Handle pool_name = fixed_string_type(c, kPoolNameBytes);
    insert(h5::kFieldPoint, HOFFSET(PoolSummaryRow, point), native_type(h5::kFieldPoint.type));
    insert(h5::kFieldPool, HOFFSET(PoolSummaryRow, pool), native_type(h5::kFieldPool.type));
    insert(h5::kFieldPoolName, HOFFSET(PoolSummaryRow, pool_name), pool_name.get());
    insert(h5::kFieldMetric, HOFFSET(PoolSummaryRow, metric), metric.get());
    insert(h5::kFieldUnit, HOFFSET(PoolSummaryRow, unit), unit.get());
    insert_stat_fields<PoolSummaryRow>(c, type.get());
  } else {
    insert(h5::kFieldPoint, HOFFSET(SummaryRow, point), native_type(h5::kFieldPoint.type));
    insert(h5::kFieldMetric, HOFFSET(SummaryRow, metric), metric.get());
    insert(h5::kFieldUnit, HOFFSET(SummaryRow, unit), unit.get());
    insert_stat_fields<SummaryRow>(c, type.get());
  }
  return type;
}

/// A simple dataspace of `dims` (scalar when `dims` is empty). Zero-sized dimensions are fine.
Handle make_space(const Context& c, const std::vector<hsize_t>& dims) {
  if (dims.empty()) return c.space(H5Screate(H5S_SCALAR), "creating a scalar dataspace");
  return c.space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
                 "creating a dataspace of shape " + dims_text(dims));
}

hsize_t element_count(const std::vector<hsize_t>& dims) {
  hsize_t n = 1;
  for (hsize_t d : dims) n *= d;
  return n;
}

// ------------------------------------------------------------------------------------------
// Writing.

void write_scalar_attr(const Context& c, hid_t loc, const std::string& loc_path, const char* name,
                       hid_t native_type, const void* value) {
  const std::string what = "attribute '" + std::string(name) + "' of '" + loc_path + "'";
  Handle space = make_space(c, {});
  Handle attr =
      c.attribute(H5Acreate2(loc, name, native_type, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                  "creating " + what);
  c.check_status(H5Awrite(attr.get(), native_type, value), "writing " + what);
}

/// Writes `values` as a variable-length UTF-8 string attribute: scalar when `dims` is empty.
void write_strings_attr(const Context& c, hid_t loc, const std::string& loc_path, const char* name,
                        const std::vector<std::string>& values, const std::vector<hsize_t>& dims) {
  const std::string what = "attribute '" + std::string(name) + "' of '" + loc_path + "'";
  Handle type = vlen_string_type(c);
  Handle space = make_space(c, dims);
  Handle attr = c.attribute(
      H5Acreate2(loc, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), "creating " + what);
  std::vector<const char*> pointers;
  for (const std::string& v : values) pointers.push_back(v.c_str());
  if (!pointers.empty()) {
    c.check_status(H5Awrite(attr.get(), type.get(), pointers.data()), "writing " + what);
  }
}

void write_string_attr(const Context& c, hid_t loc, const std::string& loc_path, const char* name,
                       const std::string& value) {
  write_strings_attr(c, loc, loc_path, name, {value}, {});
}

// The layout table's items (gpucap/hdf5_layout.hpp): the name and the HDF5 type come from their
// row, and a value of another type than the row's is refused (a gpucap bug, caught by tests).

/// Refuses an item of another kind, type or rank than the code handles.
void check_item(const Context& c, const Hdf5Item& item, Hdf5Kind kind, Hdf5Type type, bool array) {
  if (item.kind != kind || item.type != type || (*item.shape != '\0') != array)
    c.fail("internal error: '" + hdf5_item_path(item) + "' is used against its layout row");
}

void write_string_attr(const Context& c, hid_t loc, const Hdf5Item& item,
                       const std::string& value) {
  check_item(c, item, Hdf5Kind::attribute, Hdf5Type::string, false);
  write_string_attr(c, loc, item.parent, item.name, value);
}

void write_strings_attr(const Context& c, hid_t loc, const Hdf5Item& item,
                        const std::vector<std::string>& values, const std::vector<hsize_t>& dims) {
  check_item(c, item, Hdf5Kind::attribute, Hdf5Type::string, true);
  write_strings_attr(c, loc, item.parent, item.name, values, dims);
}

/// Creation properties of a table of `elements` rows in chunks of at most 4096, with Fletcher32
/// checksums; default (contiguous) properties when it is empty.
Handle checksummed_rows(const Context& c, std::size_t elements, const std::string& what) {
  Handle dcpl = c.plist(H5Pcreate(H5P_DATASET_CREATE), "creating a dataset property list");
  if (elements == 0) return dcpl;
  const hsize_t chunk = std::min<hsize_t>(elements, 4096);
  c.check_status(H5Pset_chunk(dcpl.get(), 1, &chunk), "setting the chunks of " + what);
  c.check_status(H5Pset_fletcher32(dcpl.get()), "enabling checksums for " + what);
  return dcpl;
}

/// Writes a variable-length UTF-8 string dataset of shape `dims` (row-major `values`).
void write_strings_dataset(const Context& c, hid_t loc, const std::string& loc_path,
                           const char* name, const std::vector<std::string>& values,
                           const std::vector<hsize_t>& dims) {
  const std::string what = "dataset '" + join_path(loc_path, name) + "'";
  Handle type = vlen_string_type(c);
  Handle space = make_space(c, dims);
  // HDF5 filters (Fletcher32 among them) cannot apply to variable-length strings, which live in
  // the global heap: the content checksum covers them.
  Handle dset = c.dataset(
      H5Dcreate2(loc, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
      "creating " + what);
  std::vector<const char*> pointers;
  for (const std::string& v : values) pointers.push_back(v.c_str());
  if (!pointers.empty()) {
    c.check_status(H5Dwrite(dset.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, pointers.data()),
                   "writing " + what);
  }
}

void write_strings_dataset(const Context& c, hid_t loc, const Hdf5Item& item,
                           const std::vector<std::string>& values,
                           const std::vector<hsize_t>& dims) {
  check_item(c, item, Hdf5Kind::dataset, Hdf5Type::string, true);
  write_strings_dataset(c, loc, item.parent, item.name, values, dims);
}

/// Writes a one-dimensional uint64 dataset (checksummed rows).
void write_uint64_dataset(const Context& c, hid_t loc, const Hdf5Item& item,
                          const std::vector<uint64_t>& values) {
  check_item(c, item, Hdf5Kind::dataset, Hdf5Type::uint64, true);
  const std::string what = "dataset '" + hdf5_item_path(item) + "'";
  Handle space = make_space(c, {values.size()});
  Handle dcpl = checksummed_rows(c, values.size(), what);
  Handle dset = c.dataset(H5Dcreate2(loc, item.name, H5T_STD_U64LE, space.get(), H5P_DEFAULT,
                                     dcpl.get(), H5P_DEFAULT),
                          "creating " + what);
  if (!values.empty())
    c.check_status(
        H5Dwrite(dset.get(), H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()),
        "writing " + what);
}

/// Creates the group `item`, whose links h5py lists in creation order (the metric table order).
Handle create_ordered_group(const Context& c, hid_t loc, const Hdf5Item& item) {
  check_item(c, item, Hdf5Kind::group, Hdf5Type::none, false);
  Handle gcpl = c.plist(H5Pcreate(H5P_GROUP_CREATE), "creating a group property list");
  c.check_status(
      H5Pset_link_creation_order(gcpl.get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED),
      "tracking link creation order");
  return c.group(H5Gcreate2(loc, item.name, H5P_DEFAULT, gcpl.get(), H5P_DEFAULT),
                 "creating group '" + hdf5_item_path(item) + "'");
}

// ------------------------------------------------------------------------------------------
// Reading.

Handle open_group(const Context& c, hid_t loc, const std::string& loc_path, const char* name) {
  const std::string full = join_path(loc_path, name);
  const htri_t exists = H5Lexists(loc, name, H5P_DEFAULT);
  if (exists < 0) c.fail_hdf5("looking up group '" + full + "'");
  if (exists == 0) c.fail("missing group '" + full + "'");
  return c.group(H5Gopen2(loc, name, H5P_DEFAULT), "opening group '" + full + "'");
}

Handle open_dataset(const Context& c, hid_t loc, const std::string& loc_path, const char* name) {
  const std::string full = join_path(loc_path, name);
  const htri_t exists = H5Lexists(loc, name, H5P_DEFAULT);
  if (exists < 0) c.fail_hdf5("looking up dataset '" + full + "'");
  if (exists == 0) c.fail("missing dataset '" + full + "'");
  return c.dataset(H5Dopen2(loc, name, H5P_DEFAULT), "opening dataset '" + full + "'");
}

Handle open_attr(const Context& c, hid_t loc, const std::string& loc_path, const char* name) {
  const std::string what = "attribute '" + std::string(name) + "' of '" + loc_path + "'";
  const htri_t exists = H5Aexists(loc, name);
  if (exists < 0) c.fail_hdf5("looking up " + what);
  if (exists == 0) c.fail("missing " + what);
  return c.attribute(H5Aopen(loc, name, H5P_DEFAULT), "opening " + what);
}

std::vector<hsize_t> dataset_dims(const Context& c, hid_t dset, const std::string& what) {
  Handle space = c.space(H5Dget_space(dset), "getting the dataspace of " + what);
  return extent(c, space.get(), what);
}

void expect_dims(const Context& c, const std::vector<hsize_t>& actual,
                 const std::vector<hsize_t>& expected, const std::string& what) {
  if (actual != expected) {
    c.fail(what + " has shape " + dims_text(actual) + ", expected " + dims_text(expected));
  }
}

void read_scalar_attr(const Context& c, hid_t loc, const std::string& loc_path, const char* name,
                      hid_t native_type, void* value) {
  const std::string what = "attribute '" + std::string(name) + "' of '" + loc_path + "'";
  Handle attr = open_attr(c, loc, loc_path, name);
  c.check_status(H5Aread(attr.get(), native_type, value), "reading " + what);
}

/// Reads all strings (fixed or variable length) of an attribute or dataset, row-major.
std::vector<std::string> read_strings(const Context& c, hid_t obj, bool is_attr,
                                      const std::string& what) {
  Handle file_type =
      c.type(is_attr ? H5Aget_type(obj) : H5Dget_type(obj), "getting the type of " + what);
  if (H5Tget_class(file_type.get()) != H5T_STRING) c.fail(what + " does not hold strings");
  Handle space =
      c.space(is_attr ? H5Aget_space(obj) : H5Dget_space(obj), "getting the dataspace of " + what);
  const hssize_t count = H5Sget_simple_extent_npoints(space.get());
  if (count < 0) c.fail_hdf5("counting the elements of " + what);
  std::vector<std::string> out(static_cast<std::size_t>(count));
  if (count == 0) return out;

  const htri_t variable = H5Tis_variable_str(file_type.get());
  if (variable < 0) c.fail_hdf5("inspecting the string type of " + what);
  const auto read = [&](hid_t mem_type, void* buffer) {
    const herr_t status = is_attr ? H5Aread(obj, mem_type, buffer)
                                  : H5Dread(obj, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer);
    c.check_status(status, "reading " + what);
  };
  if (variable > 0) {
    Handle mem_type = c.type(H5Tcopy(H5T_C_S1), "copying the string type");
    c.check_status(H5Tset_size(mem_type.get(), H5T_VARIABLE), "sizing a string type");
    c.check_status(H5Tset_cset(mem_type.get(), H5Tget_cset(file_type.get())),
                   "setting a string character set");
    VlenStrings buffer(out.size());
    read(mem_type.get(), buffer.pointers.data());
    for (std::size_t i = 0; i < out.size(); ++i) {
      if (buffer.pointers[i] != nullptr) out[i] = buffer.pointers[i];
    }
  } else {
    const std::size_t width = H5Tget_size(file_type.get());
    if (width == 0) c.fail_hdf5("querying the string width of " + what);
    Handle mem_type = c.type(H5Tcopy(file_type.get()), "copying the string type");
    std::vector<char> buffer(out.size() * width);
    read(mem_type.get(), buffer.data());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = from_fixed(&buffer[i * width], width);
  }
  return out;
}

std::vector<std::string> read_strings_dataset(const Context& c, hid_t loc,
                                              const std::string& loc_path, const char* name,
                                              const std::vector<hsize_t>& expected_dims) {
  const std::string what = "dataset '" + join_path(loc_path, name) + "'";
  Handle dset = open_dataset(c, loc, loc_path, name);
  expect_dims(c, dataset_dims(c, dset.get(), what), expected_dims, what);
  return read_strings(c, dset.get(), false, what);
}

void read_metric_dataset(const Context& c, hid_t loc, const std::string& loc_path, const char* name,
                         const std::vector<hsize_t>& dims, std::vector<double>& data) {
  const std::string what = "dataset '" + join_path(loc_path, name) + "'";
  Handle dset = open_dataset(c, loc, loc_path, name);
  expect_dims(c, dataset_dims(c, dset.get(), what), dims, what);
  data.assign(element_count(dims), 0.0);
  if (!data.empty()) {
    c.check_status(
        H5Dread(dset.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()),
        "reading " + what);
  }
}

// Reading the layout table's items (see the writer's helpers).

Handle open_group(const Context& c, hid_t loc, const Hdf5Item& item) {
  check_item(c, item, Hdf5Kind::group, Hdf5Type::none, false);
  return open_group(c, loc, item.parent, item.name);
}

Handle open_dataset(const Context& c, hid_t loc, const Hdf5Item& item) {
  check_item(c, item, Hdf5Kind::dataset, item.type, *item.shape != '\0');
  return open_dataset(c, loc, item.parent, item.name);
}

std::string read_string_attr(const Context& c, hid_t loc, const Hdf5Item& item) {
  check_item(c, item, Hdf5Kind::attribute, Hdf5Type::string, false);
  return read_string_attr(c, loc, item.parent, item.name);
}

std::vector<std::string> read_strings_attr(const Context& c, hid_t loc, const Hdf5Item& item) {
  check_item(c, item, Hdf5Kind::attribute, Hdf5Type::string, true);
  return read_strings_attr(c, loc, item.parent, item.name);
}

std::vector<std::string> read_strings_dataset(const Context& c, hid_t loc, const Hdf5Item& item,
                                              const std::vector<hsize_t>& expected_dims) {
  check_item(c, item, Hdf5Kind::dataset, Hdf5Type::string, true);
  return read_strings_dataset(c, loc, item.parent, item.name, expected_dims);
}

/// Reads a one-dimensional uint64 dataset of `n` rows.
std::vector<uint64_t> read_uint64_dataset(const Context& c, hid_t loc, const Hdf5Item& item,
                                          hsize_t n) {
  check_item(c, item, Hdf5Kind::dataset, Hdf5Type::uint64, true);
  const std::string what = "dataset '" + hdf5_item_path(item) + "'";
  Handle dset = open_dataset(c, loc, item.parent, item.name);
  expect_dims(c, dataset_dims(c, dset.get(), what), {n}, what);
  std::vector<uint64_t> values(static_cast<std::size_t>(n));
  if (!values.empty())
    c.check_status(
        H5Dread(dset.get(), H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()),
        "reading " + what);
  return values;
}

hsize_t column_length(const Context& c, hid_t loc, const Hdf5Item& item) {
  const std::string what = "dataset '" + hdf5_item_path(item) + "'";
  Handle dset = open_dataset(c, loc, item);
  const std::vector<hsize_t> dims = dataset_dims(c, dset.get(), what);
  if (dims.size() != 1) c.fail(what + " is not one-dimensional");
  return dims[0];
}

/// Whether the file has the root attribute `item` (optional in older files).
bool has_root_attr(hid_t file, const Hdf5Item& item) {
  return H5Aexists_by_name(file, item.parent, item.name, H5P_DEFAULT) > 0;
}

}  // namespace gpucap::hdf5_detail
