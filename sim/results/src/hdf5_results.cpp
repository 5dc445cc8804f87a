// gpucap: the HDF5 results file writer and reader. Every name they write or read is a row of
// the layout table (gpucap/hdf5_layout.hpp), which docs/results-format.md is generated from.
#include "gpucap/hdf5_results.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <future>
#include <hdf5.h>
#include <hdf5_hl.h>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <sys/stat.h>
#include <system_error>
#include <type_traits>
#include <unistd.h>
#include <vector>

#include "gpucap/detail/text.hpp"
#include "gpucap/hdf5_chunks.hpp"
#include "gpucap/hdf5_layout.hpp"
#include "gpucap/parallel_for.hpp"

namespace gpucap {
namespace {

/// Fixed string widths (bytes) of the compound summary tables; longer text is truncated.
constexpr std::size_t kMetricNameBytes = kHdf5MetricNameBytes;
constexpr std::size_t kUnitBytes = kHdf5UnitBytes;
constexpr std::size_t kPoolNameBytes = kHdf5PoolNameBytes;
/// Datasets with at least this many elements are chunked and deflated; smaller ones contiguous.
constexpr hsize_t kCompressMinElements = 4096;
/// Upper bound on the elements of one chunk of a metric dataset (131072 doubles = 1 MiB).
constexpr hsize_t kMaxChunkElements = 131072;
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

/// Records the description of the innermost error (where HDF5 detected it).
herr_t innermost_error(unsigned n, const H5E_error2_t* err, void* data) {
  if (n == 0 && err != nullptr && err->desc != nullptr) {
    *static_cast<std::string*>(data) = err->desc;
  }
  return 0;
}

/// The innermost message of HDF5's current error stack, or "" when the stack is empty.
std::string hdf5_error_detail() {
  std::string detail;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost_error, &detail);
  return detail;
}

/// Error context of one call: builds messages that name the file.
class Context {
 public:
  Context(const char* action, std::string path) : action_(action), path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("cannot " + std::string(action_) + " HDF5 results file '" +
                             text::excerpt(path_, 300) + "': " + what);
  }
  /// Reports that the action `what` ("opening ...") failed, with HDF5's own description.
  [[noreturn]] void fail_hdf5(const std::string& what) const {
    const std::string detail = hdf5_error_detail();
    fail(what + " failed" + (detail.empty() ? std::string() : " (HDF5: " + detail + ")"));
  }
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

template <typename T>
void write_scalar_attr(const Context& c, hid_t loc, const std::string& loc_path, const char* name,
                       hid_t native_type, T value) {
  const std::string what = "attribute '" + std::string(name) + "' of '" + loc_path + "'";
  Handle space = make_space(c, {});
  Handle attr =
      c.attribute(H5Acreate2(loc, name, native_type, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                  "creating " + what);
  c.check_status(H5Awrite(attr.get(), native_type, &value), "writing " + what);
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

template <typename T>
constexpr Hdf5Type layout_type() {
  if constexpr (std::is_same_v<T, int32_t>) return Hdf5Type::int32;
  if constexpr (std::is_same_v<T, uint32_t>) return Hdf5Type::uint32;
  if constexpr (std::is_same_v<T, uint64_t>) return Hdf5Type::uint64;
  if constexpr (std::is_same_v<T, double>) return Hdf5Type::float64;
  return Hdf5Type::none;
}

/// Refuses an item of another kind, type or rank than the code handles.
void check_item(const Context& c, const Hdf5Item& item, Hdf5Kind kind, Hdf5Type type, bool array) {
  if (item.kind != kind || item.type != type || (*item.shape != '\0') != array)
    c.fail("internal error: '" + hdf5_item_path(item) + "' is used against its layout row");
}

template <typename T>
void write_attr(const Context& c, hid_t loc, const Hdf5Item& item, T value) {
  check_item(c, item, Hdf5Kind::attribute, layout_type<T>(), false);
  write_scalar_attr<T>(c, loc, item.parent, item.name, native_type(item.type), value);
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

/// Datasets of one shape [points, replications, trailing...] whose values lie strided in one
/// row-major array of (point, replication) rows: element (p, r, t) of dataset d (t the flat
/// index of the trailing dimensions) is source[(p * replications + r) * row_width +
/// d * dataset_stride + t * trailing_stride].
struct MetricSource {
  const double* source = nullptr;
  std::size_t row_width = 0;
  std::size_t dataset_stride = 0;
  std::size_t trailing_stride = 1;
};

/// The chunk shape of a metric dataset of shape `dims` ([points, replications, trailing...]):
/// one point, a run of replications, every trailing dimension whole; at most kMaxChunkElements
/// (when the trailing dimensions alone exceed it, one replication and a run of the last
/// dimension). The run of replications depends on the trailing dimensions only (clamped to the
/// dataset), so datasets extendible along replications (unlimited maxdims) could keep it.
std::vector<hsize_t> metric_chunk_shape(const std::vector<hsize_t>& dims) {
  std::vector<hsize_t> chunk = dims;
  chunk[0] = 1;
  hsize_t inner = 1;
  for (std::size_t i = 2; i < dims.size(); ++i) inner *= dims[i];
  chunk[1] = std::max<hsize_t>(
      1, std::min<hsize_t>(dims[1], kMaxChunkElements / std::max<hsize_t>(1, inner)));
  if (inner > kMaxChunkElements) {  // many pools x bins: split the trailing dimensions too
    for (std::size_t i = 2; i < chunk.size(); ++i) chunk[i] = 1;
    chunk.back() = std::min<hsize_t>(dims.back(), kMaxChunkElements);
  }
  return chunk;
}

/// Writes one double dataset per entry of `infos` (shape `dims`, values from `src`), each with
/// its unit and description. Chunked (metric_chunk_shape) and checksummed (Fletcher32); with at
/// least kCompressMinElements elements also shuffled and deflated. The chunks are gathered
/// from `src` and encoded on `threads` threads (hdf5_chunks.hpp), a bounded batch at a time,
/// and written whole with H5Dwrite_chunk in a fixed order: the file's bytes do not depend on
/// the thread count.
void write_metric_datasets(const Context& c, hid_t loc, const std::string& loc_path,
                           const std::vector<MetricInfo>& infos, const MetricSource& src,
                           const std::vector<hsize_t>& dims, unsigned threads) {
  const std::size_t count = infos.size();
  const hsize_t elements = element_count(dims);
  const bool compress = elements >= kCompressMinElements;
  const std::vector<hsize_t> chunk = elements > 0 ? metric_chunk_shape(dims) : dims;
  std::vector<Handle> datasets;
  for (const MetricInfo& info : infos) {
    const std::string full = join_path(loc_path, info.name);
    const std::string what = "dataset '" + full + "'";
    Handle space = make_space(c, dims);
    Handle dcpl = c.plist(H5Pcreate(H5P_DATASET_CREATE), "creating a dataset property list");
    if (elements > 0) {
      c.check_status(H5Pset_chunk(dcpl.get(), static_cast<int>(chunk.size()), chunk.data()),
                     "setting the chunk shape of " + what);
      // The pipeline encode_chunk reproduces, in this order.
      if (compress) {
        c.check_status(H5Pset_shuffle(dcpl.get()), "enabling the byte shuffle for " + what);
        c.check_status(H5Pset_deflate(dcpl.get(), kChunkDeflateLevel),
                       "enabling deflate for " + what);
      }
      c.check_status(H5Pset_fletcher32(dcpl.get()), "enabling checksums for " + what);
    }
    datasets.push_back(c.dataset(H5Dcreate2(loc, info.name, H5T_IEEE_F64LE, space.get(),
                                            H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
                                 "creating " + what));
    write_string_attr(c, datasets.back().get(), full, h5::kMetricUnit.name, info.unit);
    write_string_attr(c, datasets.back().get(), full, h5::kMetricDescription.name,
                      info.description);
  }
  if (elements == 0 || count == 0) return;

  // The chunk grid: points x runs of replications x runs of the flat trailing index.
  const std::size_t reps = dims[1];
  std::size_t inner = 1;
  for (std::size_t i = 2; i < dims.size(); ++i) inner *= dims[i];
  // Split: the trailing dimensions exceed a chunk, which holds one row's run of the last one.
  const bool split = dims.size() > 2 && inner > kMaxChunkElements;
  const std::size_t chunk_rows = chunk[1];
  const std::size_t last = dims.size() > 2 ? dims.back() : 1;
  const std::size_t chunk_inner = split ? chunk.back() : inner;  // trailing values per row
  const std::size_t chunk_elements = chunk_rows * chunk_inner;
  const std::size_t row_blocks = (reps + chunk_rows - 1) / chunk_rows;
  const std::size_t inner_blocks =
      split ? (inner / last) * ((last + chunk_inner - 1) / chunk_inner) : 1;
  const std::size_t jobs = dims[0] * row_blocks * inner_blocks;
  const std::size_t blocks_per_row = split ? (last + chunk_inner - 1) / chunk_inner : 1;

  struct Job {
    std::size_t point, row0, rows, t0, values;  // rows x values of the chunk hold data
    std::vector<hsize_t> offset;                // the chunk's first element in the dataset
  };
  const auto job_of = [&](std::size_t j) {
    Job job;
    const std::size_t ib = j % inner_blocks, rb = (j / inner_blocks) % row_blocks;
    job.point = j / inner_blocks / row_blocks;
    job.row0 = rb * chunk_rows;
    job.rows = std::min(chunk_rows, reps - job.row0);
    job.offset.assign(dims.size(), 0);
    job.offset[0] = job.point;
    job.offset[1] = job.row0;
    if (split) {
      const std::size_t prefix = ib / blocks_per_row, b0 = (ib % blocks_per_row) * chunk_inner;
      job.t0 = prefix * last + b0;
      job.values = std::min(chunk_inner, last - b0);
      std::size_t rest = prefix;  // the prefix's index along every trailing dim but the last
      for (std::size_t i = dims.size() - 1; i-- > 2;) {
        job.offset[i] = rest % dims[i];
        rest /= dims[i];
      }
      job.offset.back() = b0;
    } else {
      job.t0 = 0;
      job.values = inner;
    }
    return job;
  };

  // Encoded chunks of a batch of jobs (count per job), in job order; bounded to about
  // kBatchBytes of raw values (at least one job per thread, whole rounds of them).
  const unsigned workers = resolve_parallel_threads(threads);
  constexpr std::size_t kBatchBytes = std::size_t{64} << 20;
  const std::size_t job_bytes = count * chunk_elements * sizeof(double);
  const std::size_t batch =  // whole rounds of the workers
      workers *
      std::max<std::size_t>(1, kBatchBytes / std::max<std::size_t>(1, job_bytes) / workers);
  std::vector<std::vector<unsigned char>> encoded(std::min(batch, jobs) * count);
  for (std::size_t first = 0; first < jobs; first += batch) {
    const std::size_t n = std::min(batch, jobs - first);
    parallel_for(n, workers, [&](std::size_t k) {
      const Job job = job_of(first + k);
      // The job's chunks gathered (uninitialized but for edge chunks: they need the fill value).
      const std::unique_ptr<double[]> values(new double[count * chunk_elements]);
      thread_local std::vector<unsigned char> scratch;
      if (job.rows < chunk_rows || job.values < chunk_inner)
        std::fill(values.get(), values.get() + count * chunk_elements, 0.0);
      for (std::size_t i = 0; i < job.rows; ++i) {
        const double* row = src.source + (job.point * reps + job.row0 + i) * src.row_width +
                            job.t0 * src.trailing_stride;
        for (std::size_t d = 0; d < count; ++d) {
          const double* from = row + d * src.dataset_stride;
          double* to = values.get() + d * chunk_elements + i * chunk_inner;
          for (std::size_t t = 0; t < job.values; ++t) to[t] = from[t * src.trailing_stride];
        }
      }
      for (std::size_t d = 0; d < count; ++d)
        encode_chunk(values.get() + d * chunk_elements, chunk_elements, compress, scratch,
                     encoded[k * count + d]);
    });
    for (std::size_t k = 0; k < n; ++k) {
      const Job job = job_of(first + k);
      for (std::size_t d = 0; d < count; ++d) {
        const std::vector<unsigned char>& bytes = encoded[k * count + d];
        c.check_status(H5Dwrite_chunk(datasets[d].get(), H5P_DEFAULT, 0, job.offset.data(),
                                      bytes.size(), bytes.data()),
                       "writing a chunk of dataset '" + join_path(loc_path, infos[d].name) + "'");
      }
    }
  }
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

/// Current time as ISO-8601 UTC, e.g. "2026-11-29T22:40:50Z".
std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

/// A 64-bit checksum of everything read_results_hdf5 returns, built from the values (not the
/// bytes of the file), so that it is the same on any machine. Words are mixed with a 64-bit
/// multiply-xorshift; a changed bit anywhere changes the result with probability 1 - 2^-64.
class ContentHash {
 public:
  void word(uint64_t w) {
    state_ = (state_ ^ w) * 0x9E3779B97F4A7C15ull;
    state_ ^= state_ >> 29;
  }
  void number(double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    word(bits);
  }
  void text(const std::string& s) {
    word(s.size());
    for (std::size_t i = 0; i < s.size(); i += 8) {
      uint64_t w = 0;
      for (std::size_t k = 0; k < 8 && i + k < s.size(); ++k)
        w |= static_cast<uint64_t>(static_cast<unsigned char>(s[i + k])) << (8 * k);
      word(w);
    }
  }
  void numbers(const std::vector<double>& values) {
    word(values.size());
    for (double v : values) number(v);
  }
  void summaries(const std::vector<MetricSummary>& values) {
    word(values.size());
    for (const MetricSummary& s : values) {
      word(s.n);
      for (double v : {s.mean, s.std, s.ci95_low, s.ci95_high, s.p5, s.p50, s.p95}) number(v);
    }
  }
  uint64_t value() const { return state_ ^ (state_ >> 31); }

 private:
  uint64_t state_ = 0x6A09E667F3BCC908ull;
};

/// `format`: the file's format version (the data files count from version 3). `absent`: scalar
/// metrics the file lacks (written before them; read as 0): hashed as the file's writer did,
/// without their columns.
uint64_t content_checksum(const RunResults& r, int format,
                          const std::vector<std::size_t>& absent = {}) {
  ContentHash h;
  for (const std::string* s : {&r.gpucap_version, &r.scenario_name, &r.scenario_text,
                               &r.scenario_original_text, &r.backend, &r.device})
    h.text(*s);
  h.word(r.scenario_overrides.size());
  for (const auto& [path, value] : r.scenario_overrides) {
    h.text(path);
    h.text(value);
  }
  for (uint64_t v : {r.seed, static_cast<uint64_t>(r.points), static_cast<uint64_t>(r.replications),
                     r.first_replication, static_cast<uint64_t>(static_cast<int64_t>(r.threads)),
                     static_cast<uint64_t>(r.timeseries_bins)})
    h.word(v);
  h.number(r.wall_time_s);
  h.number(r.timeseries_step_s);
  h.word(r.pool_names.size());
  for (const std::string& name : r.pool_names) h.text(name);
  h.word(r.sweep.size());
  for (const SweepParameter& p : r.sweep) {
    h.text(p.path);
    h.word(p.values.size());
    for (const std::string& v : p.values) h.text(v);
  }
  if (absent.empty()) {
    h.numbers(r.scalars);
  } else {  // the columns the file holds, in the metric table's order
    const auto present = [&absent](std::size_t i) {
      return std::find(absent.begin(), absent.end(), i % kScalarMetricCount) == absent.end();
    };
    std::vector<double> scalars;
    for (std::size_t i = 0; i < r.scalars.size(); ++i)
      if (present(i)) scalars.push_back(r.scalars[i]);
    h.numbers(scalars);
  }
  h.numbers(r.pool_values);
  h.numbers(r.timeseries);
  if (absent.empty()) {
    h.summaries(r.summary);
  } else {
    std::vector<MetricSummary> summary;
    for (std::size_t i = 0; i < r.summary.size(); ++i)
      if (std::find(absent.begin(), absent.end(), i % kScalarMetricCount) == absent.end())
        summary.push_back(r.summary[i]);
    h.summaries(summary);
  }
  h.summaries(r.pool_summary);
  if (format >= 3) {
    h.word(r.data_files.size());
    for (const DataFileRecord& f : r.data_files) {
      h.text(f.path);
      h.text(f.resolved_path);
      h.word(f.size_bytes);
      h.text(f.sha256);
    }
  }
  // Version 4's goals and stopping rule; a file with neither hashes as version 3 did.
  if (format >= 4 && (!r.stopping_rule.empty() || !r.goals.empty())) {
    h.text(r.stopping_rule);
    h.word(r.goals.size());
    for (const GoalSpec& g : r.goals) {
      h.text(g.name);
      h.text(g.definition());
      h.text(g.description);
      h.number(g.target);
    }
    for (uint8_t met : r.goal_met) h.word(met);
  }
  // Version 5's kept rows: a file that kept them all hashes as version 4 did.
  if (format >= 5 && !r.all_rows()) {
    h.word(r.rows_per_point());
    h.summaries(r.difference_summary);
    for (const GoalSummary& g : r.goal_summary) h.word(g.met);
  }
  // The per-job records (/jobs); a file without them hashes as before.
  if (r.job_replications > 0) {
    h.word(r.job_replications);
    h.word(r.job_classes.size());
    for (const std::string& name : r.job_classes) h.text(name);
    h.word(r.jobs.size());
    for (const JobRecord& j : r.jobs) {
      for (uint64_t w : {j.point, j.replication, j.job, static_cast<uint64_t>(j.job_class),
                         static_cast<uint64_t>(static_cast<int64_t>(j.pool)),
                         static_cast<uint64_t>(j.runs), static_cast<uint64_t>(j.preemptions)})
        h.word(w);
      for (double v : {j.arrival_s, j.start_s, j.end_s, j.cost_usd}) h.number(v);
    }
  }
  return h.value();
}

/// The buffer of an in-memory (core driver) HDF5 file, kept when HDF5 frees it at close.
/// Memory past the file's end is zeroed (no stale heap bytes reach the file), and image()
/// trims the image to the end-of-allocation address of its (version 2 or 3) superblock.
class MemoryImage {
 public:
  struct Span {
    char* data;
    std::size_t size;
  };

  MemoryImage() = default;
  MemoryImage(const MemoryImage&) = delete;
  MemoryImage& operator=(const MemoryImage&) = delete;
  ~MemoryImage() {
    std::free(buffer_);
    std::free(final_);
  }

  static H5FD_file_image_callbacks_t callbacks(MemoryImage* image) {
    H5FD_file_image_callbacks_t cb{};
    cb.image_malloc = [](std::size_t size, H5FD_file_image_op_t, void* udata) -> void* {
      return static_cast<MemoryImage*>(udata)->grow(nullptr, size);
    };
    cb.image_memcpy = [](void* dest, const void* src, std::size_t size, H5FD_file_image_op_t,
                         void*) -> void* { return std::memcpy(dest, src, size); };
    cb.image_realloc = [](void* ptr, std::size_t size, H5FD_file_image_op_t, void* udata) -> void* {
      return static_cast<MemoryImage*>(udata)->grow(ptr, size);
    };
    cb.image_free = [](void* ptr, H5FD_file_image_op_t op, void* udata) -> herr_t {
      static_cast<MemoryImage*>(udata)->release(ptr, op);
      return 0;
    };
    cb.udata_copy = [](void* udata) -> void* { return udata; };  // shared, owned by the caller
    cb.udata_free = [](void*) -> herr_t { return 0; };
    cb.udata = image;
    return cb;
  }

  /// The final image, trimmed to the file's end (empty when HDF5 did not close the file). It
  /// stays owned by this object: no copy of what may be gigabytes.
  Span image() const {
    if (final_ == nullptr) return {nullptr, 0};
    std::size_t size = final_size_;
    // Superblock v2/v3: signature (8 bytes), version, sizes of offsets and lengths, flags,
    // base address (8), extension address (8), end-of-file address (8) at byte 28.
    // The superblock follows the user block (at 0 without one). HDF5 writes its end-of-file
    // address counting the user block (as h5py's files show: base 512, end = the file's size).
    static const unsigned char kSignature[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    for (const std::size_t at : {std::size_t{0}, kUserBlockBytes}) {
      const char* sb = final_ + at;
      if (at + 36 > size || std::memcmp(sb, kSignature, 8) != 0 || !(sb[8] == 2 || sb[8] == 3) ||
          sb[9] != 8)
        continue;
      uint64_t eof = 0;
      for (int i = 7; i >= 0; --i) eof = (eof << 8) | static_cast<unsigned char>(sb[28 + i]);
      if (eof > at && eof <= size) size = static_cast<std::size_t>(eof);
      break;
    }
    return {final_, size};
  }

 private:
  void* grow(void* ptr, std::size_t size) {
    if (ptr != nullptr && ptr != buffer_) return nullptr;  // not ours: refuse
    char* grown = static_cast<char*>(std::realloc(buffer_, size));
    if (grown == nullptr) return nullptr;
    if (size > size_) std::memset(grown + size_, 0, size - size_);
    buffer_ = grown;
    size_ = size;
    return grown;
  }
  void release(void* ptr, H5FD_file_image_op_t op) {
    if (ptr == nullptr || ptr != buffer_) {
      std::free(ptr);
      return;
    }
    if (op == H5FD_FILE_IMAGE_OP_FILE_CLOSE) {
      std::free(final_);
      final_ = buffer_;
      final_size_ = size_;
    } else {
      std::free(buffer_);
    }
    buffer_ = nullptr;
    size_ = 0;
  }

  char* buffer_ = nullptr;
  std::size_t size_ = 0;
  char* final_ = nullptr;
  std::size_t final_size_ = 0;
};

/// Throws unless every array of `r` has the size its layout in results.hpp requires.
void check_sizes(const Context& c, const RunResults& r) {
  const std::size_t pr = r.points * r.rows_per_point();  // the rows kept
  const auto expect = [&](const char* name, std::size_t actual, std::size_t expected,
                          const std::string& formula) {
    if (actual != expected) {
      c.fail(std::string(name) + " has " + std::to_string(actual) + " values, expected " + formula +
             " = " + std::to_string(expected));
    }
  };
  expect("scalars", r.scalars.size(), pr * kScalarMetricCount,
         "points x replications x " + std::to_string(kScalarMetricCount));
  expect("pool_values", r.pool_values.size(), pr * r.pool_count() * kPoolMetricCount,
         "points x replications x pools x " + std::to_string(kPoolMetricCount));
  expect("summary", r.summary.size(), r.points * kScalarMetricCount,
         "points x " + std::to_string(kScalarMetricCount));
  expect("pool_summary", r.pool_summary.size(), r.points * r.pool_count() * kPoolMetricCount,
         "points x pools x " + std::to_string(kPoolMetricCount));
  for (const SweepParameter& p : r.sweep) {
    expect(("sweep parameter '" + p.path + "'").c_str(), p.values.size(), r.points, "points");
  }
  expect("timeseries", r.timeseries.size(), pr * r.pool_count() * r.timeseries_bins,
         "points x replications x pools x bins");
  if (!r.all_rows())
    expect("difference_summary", r.difference_summary.size(), r.points * kScalarMetricCount,
           "points x " + std::to_string(kScalarMetricCount));
  expect("goal_summary", r.goal_summary.size(), r.points * r.goals.size(), "points x goals");
  if (r.points > UINT32_MAX || r.pool_count() > UINT32_MAX) c.fail("too many points or pools");
}

void write_dimensions(const Context& c, hid_t file, const RunResults& r);

/// /jobs: the per-job records, one column per field.
void write_jobs(const Context& c, hid_t file, const RunResults& r) {
  Handle group = create_ordered_group(c, file, h5::kJobsGroup);
  write_attr<uint64_t>(c, group.get(), h5::kJobsReplications, r.job_replications);
  write_strings_dataset(c, group.get(), h5::kJobClasses, r.job_classes, {r.job_classes.size()});
  const std::size_t n = r.jobs.size();
  std::vector<uint64_t> point(n), replication(n), job(n);
  std::vector<uint32_t> job_class(n), runs(n), preemptions(n);
  std::vector<int32_t> pool(n);
  std::vector<double> arrival(n), start(n), end(n), wait(n), cost(n);
  for (std::size_t i = 0; i < n; ++i) {
    const JobRecord& j = r.jobs[i];
    point[i] = j.point;
    replication[i] = j.replication;
    job[i] = j.job;
    job_class[i] = j.job_class;
    runs[i] = j.runs;
    preemptions[i] = j.preemptions;
    pool[i] = j.pool;
    arrival[i] = j.arrival_s;
    start[i] = j.start_s;
    end[i] = j.end_s;
    wait[i] = j.start_s - j.arrival_s;
    cost[i] = j.cost_usd;
  }
  const hid_t g = group.get();
  write_column(c, g, h5::kJobPoint, point, H5T_STD_U64LE);
  write_column(c, g, h5::kJobReplication, replication, H5T_STD_U64LE);
  write_column(c, g, h5::kJobId, job, H5T_STD_U64LE);
  write_column(c, g, h5::kJobClass, job_class, H5T_STD_U32LE);
  write_column(c, g, h5::kJobArrival, arrival, H5T_IEEE_F64LE);
  write_column(c, g, h5::kJobStart, start, H5T_IEEE_F64LE);
  write_column(c, g, h5::kJobEnd, end, H5T_IEEE_F64LE);
  write_column(c, g, h5::kJobWait, wait, H5T_IEEE_F64LE);
  write_column(c, g, h5::kJobPool, pool, H5T_STD_I32LE);
  write_column(c, g, h5::kJobRuns, runs, H5T_STD_U32LE);
  write_column(c, g, h5::kJobPreemptions, preemptions, H5T_STD_U32LE);
  write_column(c, g, h5::kJobCost, cost, H5T_IEEE_F64LE);
}

/// Writes every object of the file; `threads` encode the large datasets' chunks.
void write_file(const Context& c, hid_t file, const RunResults& r, unsigned threads) {
  // reps: the rows the file holds per point (all that ran unless the run kept fewer).
  const std::size_t points = r.points, reps = r.rows_per_point(), pools = r.pool_count();

  // Root attributes.
  write_string_attr(c, file, h5::kGpucapVersion, r.gpucap_version);
  write_string_attr(c, file, h5::kScenarioName, r.scenario_name);
  write_string_attr(c, file, h5::kScenario, r.scenario_text);
  write_string_attr(c, file, h5::kScenarioSource, r.scenario_original_text);
  {
    std::vector<std::string> paths, values;
    for (const auto& [path, value] : r.scenario_overrides) {
      paths.push_back(path);
      values.push_back(value);
    }
    write_strings_attr(c, file, h5::kOverridePaths, paths, {paths.size()});
    write_strings_attr(c, file, h5::kOverrideValues, values, {values.size()});
  }
  write_string_attr(c, file, h5::kBackend, r.backend);
  write_string_attr(c, file, h5::kDevice, r.device);
  write_attr<uint64_t>(c, file, h5::kSeed, r.seed);
  write_attr<uint64_t>(c, file, h5::kReplications, r.replications);
  write_attr<uint64_t>(c, file, h5::kKeptReplications, reps);
  write_attr<uint64_t>(c, file, h5::kFirstReplication, r.first_replication);
  write_attr<uint64_t>(c, file, h5::kPoints, points);
  write_attr<int32_t>(c, file, h5::kThreads, r.threads);
  write_attr<double>(c, file, h5::kWallTime, r.wall_time_s);
  write_string_attr(c, file, h5::kCreatedUtc, utc_now());
  write_string_attr(c, file, h5::kStoppingRule, r.stopping_rule);
  write_attr<int32_t>(c, file, h5::kFormatVersion, kResultsFormatVersion);
  // The content checksum (one pass over every value, a serial hash) is computed on a thread of
  // its own while the datasets are encoded; its attribute, created here in its place, gets the
  // value at the end.
  std::future<uint64_t> checksum;
  try {
    checksum =
        std::async(std::launch::async, [&r] { return content_checksum(r, kResultsFormatVersion); });
  } catch (const std::system_error&) {  // no thread to spare: compute it here
    checksum = std::async(std::launch::deferred,
                          [&r] { return content_checksum(r, kResultsFormatVersion); });
  }
  check_item(c, h5::kContentChecksum, Hdf5Kind::attribute, Hdf5Type::uint64, false);
  Handle checksum_attr;
  {
    Handle space = make_space(c, {});
    checksum_attr = c.attribute(H5Acreate2(file, h5::kContentChecksum.name, H5T_NATIVE_UINT64,
                                           space.get(), H5P_DEFAULT, H5P_DEFAULT),
                                "creating " + hdf5_item_path(h5::kContentChecksum));
  }

  // /summary, point-major.
  {
    std::vector<SummaryRow> rows(points * kScalarMetricCount);
    for (std::size_t p = 0; p < points; ++p) {
      for (std::size_t m = 0; m < kScalarMetricCount; ++m) {
        SummaryRow& row = rows[p * kScalarMetricCount + m];
        row.point = static_cast<uint32_t>(p);
        copy_fixed(row.metric, kMetricNameBytes, kScalarMetricInfo[m].name);
        copy_fixed(row.unit, kUnitBytes, kScalarMetricInfo[m].unit);
        set_stats(row, r.summary[p * kScalarMetricCount + m]);
      }
    }
    write_compound_dataset(c, file, h5::kSummary, false, rows);
    if (!r.all_rows()) {  // /difference_summary: the same rows, of the differences
      for (std::size_t i = 0; i < rows.size(); ++i) set_stats(rows[i], r.difference_summary[i]);
      write_compound_dataset(c, file, h5::kDifferenceSummary, false, rows);
    }
  }

  // /replications/<metric>: [points, replications].
  {
    Handle group = create_ordered_group(c, file, h5::kReplicationsGroup);
    const std::vector<MetricInfo> infos(std::begin(kScalarMetricInfo), std::end(kScalarMetricInfo));
    write_metric_datasets(c, group.get(), h5::kScalarMetric.parent, infos,
                          {r.scalars.data(), kScalarMetricCount, 1, 1}, {points, reps}, threads);
  }

  // /pools/<metric>: [points, replications, pools], plus the pool names.
  {
    Handle group = create_ordered_group(c, file, h5::kPoolsGroup);
    write_strings_attr(c, group.get(), h5::kPoolNamesAttr, r.pool_names, {pools});
    write_strings_dataset(c, group.get(), h5::kPoolNames, r.pool_names, {pools});
    // Row (point, replication) holds [pool][metric]: dataset m starts at m, pools kPoolMetricCount
    // apart.
    const std::vector<MetricInfo> infos(std::begin(kPoolMetricInfo), std::end(kPoolMetricInfo));
    write_metric_datasets(c, group.get(), h5::kPoolMetric.parent, infos,
                          {r.pool_values.data(), pools * kPoolMetricCount, 1, kPoolMetricCount},
                          {points, reps, pools}, threads);
  }

  // /timeseries/gpus_in_use: [points, replications, pools, bins], when recorded.
  if (r.timeseries_bins > 0) {
    Handle group = create_ordered_group(c, file, h5::kTimeseriesGroup);
    write_attr<double>(c, group.get(), h5::kTimeseriesStep, r.timeseries_step_s);
    const MetricInfo info{h5::kGpusInUse.name, h5::kGpusInUse.unit, h5::kGpusInUse.description};
    write_metric_datasets(c, group.get(), h5::kGpusInUse.parent, {info},
                          {r.timeseries.data(), pools * r.timeseries_bins, 0, 1},
                          {points, reps, pools, r.timeseries_bins}, threads);
  }

  // /pool_summary, ordered [point][pool][metric].
  {
    std::vector<PoolSummaryRow> rows(points * pools * kPoolMetricCount);
    for (std::size_t p = 0; p < points; ++p) {
      for (std::size_t k = 0; k < pools; ++k) {
        for (std::size_t m = 0; m < kPoolMetricCount; ++m) {
          const std::size_t i = (p * pools + k) * kPoolMetricCount + m;
          PoolSummaryRow& row = rows[i];
          row.point = static_cast<uint32_t>(p);
          row.pool = static_cast<uint32_t>(k);
          copy_fixed(row.pool_name, kPoolNameBytes, r.pool_names[k]);
          copy_fixed(row.metric, kMetricNameBytes, kPoolMetricInfo[m].name);
          copy_fixed(row.unit, kUnitBytes, kPoolMetricInfo[m].unit);
          set_stats(row, r.pool_summary[i]);
        }
      }
    }
    write_compound_dataset(c, file, h5::kPoolSummary, true, rows);
  }

  // /sweep: attributes parameters and points; datasets paths and values when parameters > 0.
  {
    Handle group =
        c.group(H5Gcreate2(file, h5::kSweepGroup.name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                "creating group '" + hdf5_item_path(h5::kSweepGroup) + "'");
    const std::size_t params = r.sweep.size();
    write_attr<int32_t>(c, group.get(), h5::kSweepParameters, static_cast<int32_t>(params));
    write_attr<uint64_t>(c, group.get(), h5::kSweepPoints, points);
    if (params > 0) {
      std::vector<std::string> paths, values;
      for (const SweepParameter& p : r.sweep) {
        paths.push_back(p.path);
        values.insert(values.end(), p.values.begin(), p.values.end());
      }
      write_strings_dataset(c, group.get(), h5::kSweepPaths, paths, {params});
      write_strings_dataset(c, group.get(), h5::kSweepValues, values, {params, points});
    }
  }

  // /goals: definitions and, per replication, whether each was met (only when there are goals).
  if (!r.goals.empty()) {
    Handle group = create_ordered_group(c, file, h5::kGoalsGroup);
    const std::size_t g_count = r.goals.size();
    std::vector<std::string> names, definitions, descriptions, targets;
    for (const GoalSpec& g : r.goals) {
      names.push_back(g.name);
      definitions.push_back(g.definition());
      descriptions.push_back(g.description);
      char target[32] = "";
      if (g.target > 0) std::snprintf(target, sizeof target, "%.17g", g.target);
      targets.push_back(target);
    }
    write_strings_dataset(c, group.get(), h5::kGoalNames, names, {g_count});
    write_strings_dataset(c, group.get(), h5::kGoalDefinitions, definitions, {g_count});
    write_strings_dataset(c, group.get(), h5::kGoalDescriptions, descriptions, {g_count});
    write_strings_dataset(c, group.get(), h5::kGoalTargets, targets, {g_count});
    const std::vector<double> met(r.goal_met.begin(), r.goal_met.end());
    const MetricInfo info{h5::kGoalMet.name, "", h5::kGoalMet.description};
    write_metric_datasets(c, group.get(), h5::kGoalMet.parent, {info}, {met.data(), g_count, 0, 1},
                          {points, reps, g_count}, threads);
    std::vector<uint64_t> met_count;
    for (const GoalSummary& g : r.goal_summary) met_count.push_back(g.met);
    write_uint64_dataset(c, group.get(), h5::kGoalMetCount, met_count);
  }

  if (r.job_replications > 0) write_jobs(c, file, r);

  // /inputs: the data files' provenance, one row each (empty datasets when none).
  {
    Handle group = create_ordered_group(c, file, h5::kInputsGroup);
    const std::size_t n = r.data_files.size();
    std::vector<std::string> paths, resolved, digests;
    std::vector<uint64_t> sizes;
    for (const DataFileRecord& f : r.data_files) {
      paths.push_back(f.path);
      resolved.push_back(f.resolved_path);
      sizes.push_back(f.size_bytes);
      digests.push_back(f.sha256);
    }
    write_strings_dataset(c, group.get(), h5::kInputPath, paths, {n});
    write_strings_dataset(c, group.get(), h5::kInputResolvedPath, resolved, {n});
    write_uint64_dataset(c, group.get(), h5::kInputSize, sizes);
    write_strings_dataset(c, group.get(), h5::kInputSha256, digests, {n});
  }

  write_dimensions(c, file, r);

  const uint64_t content = checksum.get();
  c.check_status(H5Awrite(checksum_attr.get(), H5T_NATIVE_UINT64, &content),
                 "writing " + hdf5_item_path(h5::kContentChecksum));
}

// ------------------------------------------------------------------------------------------
// Named dimensions (format 4): HDF5 dimension scales as netCDF-4 writes them, so that netCDF
// readers (xarray with h5netcdf) see dimensions point, replication, pool and time with their
// coordinates instead of anonymous ones. The dimensions live in the root group; netCDF's scoping
// makes them visible in every group below it.

/// Whether `text` is a plain decimal number (digits, sign, point, exponent: "4", "-2.5e+1"),
/// parsed whole into `value`; "inf", "nan", hexadecimal and durations ("1h") are not.
bool plain_number(const std::string& text, double& value) {
  if (text.empty() || text.size() > 64) return false;
  bool digit = false;
  for (const char ch : text) {
    if (ch >= '0' && ch <= '9')
      digit = true;
    else if (std::strchr("+-.eE", ch) == nullptr)
      return false;
  }
  if (!digit) return false;
  char* end = nullptr;
  value = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && std::isfinite(value);
}

/// Makes the dataset `path` (of `file`) a dimension scale named after it.
void make_scale(const Context& c, hid_t file, const std::string& path, const std::string& name) {
  Handle dset = c.dataset(H5Dopen2(file, path.c_str(), H5P_DEFAULT), "opening '" + path + "'");
  c.check_status(H5DSset_scale(dset.get(), name.c_str()),
                 "making '" + path + "' the dimension scale '" + name + "'");
}

/// Attaches the scales `scales` (paths; "" leaves that axis anonymous) to the axes of `path`.
void attach_scales(const Context& c, hid_t file, const std::string& path,
                   const std::vector<std::string>& scales) {
  Handle dset = c.dataset(H5Dopen2(file, path.c_str(), H5P_DEFAULT), "opening '" + path + "'");
  for (std::size_t axis = 0; axis < scales.size(); ++axis) {
    if (scales[axis].empty()) continue;
    Handle scale = c.dataset(H5Dopen2(file, scales[axis].c_str(), H5P_DEFAULT),
                             "opening '" + scales[axis] + "'");
    c.check_status(
        H5DSattach_scale(dset.get(), scale.get(), static_cast<unsigned>(axis)),
        "attaching '" + scales[axis] + "' to axis " + std::to_string(axis) + " of '" + path + "'");
  }
}

/// Writes a one-dimensional float64 dataset `name` in `loc` with its unit and description.
void write_coordinate(const Context& c, hid_t loc, const std::string& full, const char* name,
                      const std::vector<double>& values, const char* unit,
                      const std::string& description) {
  const std::string what = "dataset '" + full + "'";
  Handle space = make_space(c, {values.size()});
  Handle dcpl = checksummed_rows(c, values.size(), what);
  Handle dset = c.dataset(
      H5Dcreate2(loc, name, H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
      "creating " + what);
  if (!values.empty())
    c.check_status(
        H5Dwrite(dset.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()),
        "writing " + what);
  write_string_attr(c, dset.get(), full, h5::kMetricUnit.name, unit);
  write_string_attr(c, dset.get(), full, h5::kMetricDescription.name, description);
}

/// Whether a sweep path can name a root dataset that netCDF readers take as a coordinate: no
/// '/', no white space (the `coordinates` attribute separates names by spaces), not a name the
/// root group already has.
bool usable_coordinate_name(const std::string& path) {
  if (path.empty() || path == "." || path == "..") return false;
  for (const char ch : path)
    if (ch == '/' || std::isspace(static_cast<unsigned char>(ch)) || ch == '\0') return false;
  for (const Hdf5Item* item : kHdf5Layout)
    if (std::strcmp(item->parent, "/") == 0 && path == item->name) return false;
  return true;
}

/// The coordinate datasets and dimension scales of format 4, attached to every array dataset.
void write_dimensions(const Context& c, hid_t file, const RunResults& r) {
  const std::size_t points = r.points, reps = r.rows_per_point();
  {
    std::vector<uint64_t> indices(points);
    for (std::size_t p = 0; p < points; ++p) indices[p] = p;
    write_uint64_dataset(c, file, h5::kPointCoordinate, indices);
    indices.resize(reps);
    for (std::size_t i = 0; i < reps; ++i) indices[i] = r.first_replication + i;
    write_uint64_dataset(c, file, h5::kReplicationCoordinate, indices);
  }
  write_strings_dataset(c, file, h5::kPoolCoordinate, r.pool_names, {r.pool_count()});
  const std::string point = hdf5_item_path(h5::kPointCoordinate);
  const std::string replication = hdf5_item_path(h5::kReplicationCoordinate);
  const std::string pool = hdf5_item_path(h5::kPoolCoordinate);
  const std::string time = hdf5_item_path(h5::kTimeCoordinate);
  make_scale(c, file, point, h5::kPointCoordinate.name);
  make_scale(c, file, replication, h5::kReplicationCoordinate.name);
  make_scale(c, file, pool, h5::kPoolCoordinate.name);
  if (r.timeseries_bins > 0) {
    std::vector<double> starts(r.timeseries_bins);
    for (std::size_t b = 0; b < starts.size(); ++b)
      starts[b] = static_cast<double>(b) * r.timeseries_step_s;
    write_coordinate(c, file, time, h5::kTimeCoordinate.name, starts, h5::kTimeCoordinate.unit,
                     h5::kTimeCoordinate.description);
    make_scale(c, file, time, h5::kTimeCoordinate.name);
  }

  // The sweep parameters as coordinates along point: numbers when every value is one.
  std::string coordinates;
  for (const SweepParameter& p : r.sweep) {
    if (!usable_coordinate_name(p.path) ||
        H5Lexists(file, p.path.c_str(), H5P_DEFAULT) != 0)  // taken (or a repeated path)
      continue;
    std::vector<double> numbers(p.values.size());
    bool numeric = true;
    for (std::size_t i = 0; i < p.values.size() && numeric; ++i)
      numeric = plain_number(p.values[i], numbers[i]);
    const std::string full = "/" + p.path;
    if (numeric) {
      write_coordinate(c, file, full, p.path.c_str(), numbers, "",
                       "sweep parameter " + p.path + " at each point");
    } else {
      write_strings_dataset(c, file, "/", p.path.c_str(), p.values, {points});
      Handle dset =
          c.dataset(H5Dopen2(file, p.path.c_str(), H5P_DEFAULT), "opening '" + full + "'");
      write_string_attr(c, dset.get(), full, h5::kMetricUnit.name, "");
      write_string_attr(c, dset.get(), full, h5::kMetricDescription.name,
                        "sweep parameter " + p.path + " at each point");
    }
    attach_scales(c, file, full, {point});
    coordinates += (coordinates.empty() ? "" : " ") + p.path;
  }
  if (!coordinates.empty()) write_string_attr(c, file, h5::kCoordinates, coordinates);

  // Every array dataset's axes.
  for (const MetricInfo& m : kScalarMetricInfo)
    attach_scales(c, file, join_path(h5::kScalarMetric.parent, m.name), {point, replication});
  for (const MetricInfo& m : kPoolMetricInfo)
    attach_scales(c, file, join_path(h5::kPoolMetric.parent, m.name), {point, replication, pool});
  attach_scales(c, file, hdf5_item_path(h5::kPoolNames), {pool});
  if (r.timeseries_bins > 0)
    attach_scales(c, file, hdf5_item_path(h5::kGpusInUse), {point, replication, pool, time});
  // The summary tables and the data files' table index themselves: a row's dimension is its table.
  make_scale(c, file, hdf5_item_path(h5::kSummary), h5::kSummary.name);
  make_scale(c, file, hdf5_item_path(h5::kPoolSummary), h5::kPoolSummary.name);
  const std::string input = hdf5_item_path(h5::kInputPath);
  make_scale(c, file, input, h5::kInputPath.name);
  for (const Hdf5Item* item : {&h5::kInputResolvedPath, &h5::kInputSize, &h5::kInputSha256})
    attach_scales(c, file, hdf5_item_path(*item), {input});
  if (!r.sweep.empty()) {
    const std::string paths = hdf5_item_path(h5::kSweepPaths);
    make_scale(c, file, paths, h5::kSweepPaths.name);
    attach_scales(c, file, hdf5_item_path(h5::kSweepValues), {paths, point});
  }
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

std::vector<hsize_t> extent(const Context& c, hid_t space, const std::string& what) {
  const int rank = H5Sget_simple_extent_ndims(space);
  if (rank < 0) c.fail_hdf5("querying the shape of " + what);
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  if (rank > 0 && H5Sget_simple_extent_dims(space, dims.data(), nullptr) < 0) {
    c.fail_hdf5("querying the shape of " + what);
  }
  return dims;
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

template <typename T>
T read_scalar_attr(const Context& c, hid_t loc, const std::string& loc_path, const char* name,
                   hid_t native_type) {
  const std::string what = "attribute '" + std::string(name) + "' of '" + loc_path + "'";
  Handle attr = open_attr(c, loc, loc_path, name);
  T value{};
  c.check_status(H5Aread(attr.get(), native_type, &value), "reading " + what);
  return value;
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

/// Refuses a count attribute beyond what gpucap writes (a corrupt or hostile file), before
/// anything is allocated from it.
void check_count(const Context& c, std::size_t value, const char* name) {
  if (value > kMaxResultsReplications)
    c.fail("attribute '" + std::string(name) + "' is " + std::to_string(value) +
           ", beyond the format's limit of " + std::to_string(kMaxResultsReplications));
}

std::vector<std::string> read_strings_dataset(const Context& c, hid_t loc,
                                              const std::string& loc_path, const char* name,
                                              const std::vector<hsize_t>& expected_dims) {
  const std::string what = "dataset '" + join_path(loc_path, name) + "'";
  Handle dset = open_dataset(c, loc, loc_path, name);
  expect_dims(c, dataset_dims(c, dset.get(), what), expected_dims, what);
  return read_strings(c, dset.get(), false, what);
}

/// Reads the double dataset `name` (shape `dims`) into `data` (resized to its element count).
/// Scalar metrics that files written before them lack: they read as 0 there, which is exact
/// (replica_preemptions, requests_restarted: such files could not run replicas on spot or
/// marketplace pools).
bool reads_as_zero_when_absent(std::size_t m) {
  return m == kReplicaPreemptions || m == kRequestsRestarted;
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

template <typename T>
T read_attr(const Context& c, hid_t loc, const Hdf5Item& item) {
  check_item(c, item, Hdf5Kind::attribute, layout_type<T>(), false);
  return read_scalar_attr<T>(c, loc, item.parent, item.name, native_type(item.type));
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

/// Whether the file has the root attribute `item` (optional in older files).
bool has_root_attr(hid_t file, const Hdf5Item& item) {
  return H5Aexists_by_name(file, item.parent, item.name, H5P_DEFAULT) > 0;
}

template <std::size_t N>
std::size_t metric_index(const Context& c, const MetricInfo (&table)[N], const std::string& name,
                         const std::string& what) {
  for (std::size_t i = 0; i < N; ++i) {
    if (name == table[i].name) return i;
  }
  c.fail(what + " names unknown metric '" + name + "'");
}

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

std::size_t to_size(const Context& c, uint64_t value, const char* name) {
  if (value > SIZE_MAX) c.fail(std::string("attribute '") + name + "' is too large");
  return static_cast<std::size_t>(value);
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

/// /jobs into r.jobs, r.job_classes and r.job_replications (wait_s is derived: not read).
void read_jobs(const Context& c, hid_t file, RunResults& r) {
  Handle group = open_group(c, file, h5::kJobsGroup);
  const hid_t g = group.get();
  r.job_replications = to_size(c, read_attr<uint64_t>(c, g, h5::kJobsReplications),
                               h5::kJobsReplications.name);
  if (r.job_replications > r.rows_per_point())
    c.fail("attribute '" + hdf5_item_path(h5::kJobsReplications) + "' is " +
           std::to_string(r.job_replications) + ", more than the file's " +
           std::to_string(r.rows_per_point()) + " replications");
  hsize_t classes = 0, n = 0;
  {
    const std::string what = "dataset '" + hdf5_item_path(h5::kJobClasses) + "'";
    Handle dset = open_dataset(c, g, h5::kJobClasses);
    const std::vector<hsize_t> dims = dataset_dims(c, dset.get(), what);
    if (dims.size() != 1) c.fail(what + " is not one-dimensional");
    classes = dims[0];
  }
  {
    const std::string what = "dataset '" + hdf5_item_path(h5::kJobId) + "'";
    Handle dset = open_dataset(c, g, h5::kJobId);
    const std::vector<hsize_t> dims = dataset_dims(c, dset.get(), what);
    if (dims.size() != 1) c.fail(what + " is not one-dimensional");
    n = dims[0];
  }
  r.job_classes = read_strings_dataset(c, g, h5::kJobClasses, {classes});
  const auto point = read_column<uint64_t>(c, g, h5::kJobPoint, n);
  const auto replication = read_column<uint64_t>(c, g, h5::kJobReplication, n);
  const auto job = read_column<uint64_t>(c, g, h5::kJobId, n);
  const auto job_class = read_column<uint32_t>(c, g, h5::kJobClass, n);
  const auto arrival = read_column<double>(c, g, h5::kJobArrival, n);
  const auto start = read_column<double>(c, g, h5::kJobStart, n);
  const auto end = read_column<double>(c, g, h5::kJobEnd, n);
  const auto pool = read_column<int32_t>(c, g, h5::kJobPool, n);
  const auto runs = read_column<uint32_t>(c, g, h5::kJobRuns, n);
  const auto preemptions = read_column<uint32_t>(c, g, h5::kJobPreemptions, n);
  const auto cost = read_column<double>(c, g, h5::kJobCost, n);
  r.jobs.resize(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < r.jobs.size(); ++i) {
    if (point[i] >= r.points || job_class[i] >= classes || pool[i] < -1 ||
        pool[i] >= static_cast<int64_t>(r.pool_count()))
      c.fail("job record " + std::to_string(i) + " of '/jobs' names a point, class or pool " +
             "that the file does not have");
    JobRecord& j = r.jobs[i];
    j.point = point[i];
    j.replication = replication[i];
    j.job = job[i];
    j.job_class = job_class[i];
    j.arrival_s = arrival[i];
    j.start_s = start[i];
    j.end_s = end[i];
    j.pool = pool[i];
    j.runs = runs[i];
    j.preemptions = preemptions[i];
    j.cost_usd = cost[i];
  }
}

/// /goals into r.goals (conditions parsed again against the pool names) and r.goal_met, then
/// their summaries. The rows must be read already.
void read_goals(const Context& c, hid_t file, RunResults& r) {
  Handle group = open_group(c, file, h5::kGoalsGroup);
  const std::string what = "dataset '" + hdf5_item_path(h5::kGoalNames) + "'";
  hsize_t n = 0;
  {
    Handle dset = open_dataset(c, group.get(), h5::kGoalNames);
    const std::vector<hsize_t> dims = dataset_dims(c, dset.get(), what);
    if (dims.size() != 1 || dims[0] == 0 || dims[0] > kMaxGoals)
      c.fail(what + " must list 1 to " + std::to_string(kMaxGoals) + " goals");
    n = dims[0];
  }
  const auto names = read_strings_dataset(c, group.get(), h5::kGoalNames, {n});
  const auto definitions = read_strings_dataset(c, group.get(), h5::kGoalDefinitions, {n});
  const auto descriptions = read_strings_dataset(c, group.get(), h5::kGoalDescriptions, {n});
  const auto targets = read_strings_dataset(c, group.get(), h5::kGoalTargets, {n});
  for (std::size_t g = 0; g < names.size(); ++g) {
    GoalSpec spec;
    spec.name = names[g];
    spec.description = descriptions[g];
    if (!valid_goal_name(spec.name)) c.fail("goal name '" + text::excerpt(spec.name) + "' is not valid");
    try {
      std::string rest = definitions[g];
      for (;;) {
        const std::size_t and_at = rest.find(" and ");
        spec.conditions.push_back(parse_goal_condition(rest.substr(0, and_at), r.pool_names));
        if (and_at == std::string::npos) break;
        rest = rest.substr(and_at + 5);
      }
    } catch (const std::invalid_argument& e) {
      c.fail("goal '" + text::excerpt(spec.name) + "': " + e.what());
    }
    if (!targets[g].empty()) {
      char* end = nullptr;
      spec.target = std::strtod(targets[g].c_str(), &end);
      if (*end != '\0' || !(spec.target > 0 && spec.target < 1))
        c.fail("goal '" + text::excerpt(spec.name) + "': target '" + text::excerpt(targets[g]) +
               "' is not a probability");
    }
    r.goals.push_back(std::move(spec));
  }
  std::vector<double> met;
  read_metric_dataset(c, group.get(), h5::kGoalMet.parent, h5::kGoalMet.name,
                      {static_cast<hsize_t>(r.points), static_cast<hsize_t>(r.rows_per_point()), n},
                      met);
  r.goal_met.resize(met.size());
  for (std::size_t i = 0; i < met.size(); ++i) {
    if (met[i] != 0 && met[i] != 1) c.fail("dataset '" + hdf5_item_path(h5::kGoalMet) + "' holds a value other than 0 or 1");
    r.goal_met[i] = met[i] == 1 ? 1 : 0;
  }
  if (r.all_rows()) {
    r.summarize_goals();
    return;
  }
  // Fewer rows than replications: the counts over all of them.
  const std::vector<uint64_t> counts =
      read_uint64_dataset(c, group.get(), h5::kGoalMetCount, r.points * n);
  r.goal_summary.resize(counts.size());
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] > r.replications)
      c.fail("dataset '" + hdf5_item_path(h5::kGoalMetCount) +
             "' counts more replications "
             "than ran");
    r.goal_summary[i] = summarize_goal(counts[i], r.replications);
  }
}

/// Places rows of a [point][scalar metric] summary table (/summary, /difference_summary) by
/// their point and metric name; `seen` marks those placed (a second row for one is refused).
void place_scalar_summaries(const Context& c, const std::vector<SummaryRow>& rows,
                            std::size_t points, const std::string& what, std::vector<char>& seen,
                            std::vector<MetricSummary>& out) {
  for (const SummaryRow& row : rows) {
    if (row.point >= points) c.fail(what + " has a row for point out of range");
    const std::size_t m =
        metric_index(c, kScalarMetricInfo, from_fixed(row.metric, kMetricNameBytes), what);
    const std::size_t i = row.point * kScalarMetricCount + m;
    if (seen[i]++) c.fail(what + " has duplicate rows");
    out[i] = get_stats(row);
  }
}

RunResults read_file(const Context& c, hid_t file) {
  RunResults r;
  const int32_t format = read_attr<int32_t>(c, file, h5::kFormatVersion);
  if (format < 1 || format > kResultsFormatVersion) {
    c.fail("unsupported " + std::string(h5::kFormatVersion.name) + " " + std::to_string(format) +
           " (this build reads 1 to " + std::to_string(kResultsFormatVersion) + ")");
  }
  r.gpucap_version = read_string_attr(c, file, h5::kGpucapVersion);
  r.scenario_name = read_string_attr(c, file, h5::kScenarioName);
  r.scenario_text = read_string_attr(c, file, h5::kScenario);
  if (format >= 2) {
    r.scenario_original_text = read_string_attr(c, file, h5::kScenarioSource);
    const std::vector<std::string> paths = read_strings_attr(c, file, h5::kOverridePaths);
    const std::vector<std::string> values = read_strings_attr(c, file, h5::kOverrideValues);
    if (paths.size() != values.size())
      c.fail(std::string("attributes '") + h5::kOverridePaths.name + "' and '" +
             h5::kOverrideValues.name + "' differ in length");
    for (std::size_t i = 0; i < paths.size(); ++i)
      r.scenario_overrides.emplace_back(paths[i], values[i]);
  } else {
    r.scenario_original_text = r.scenario_text;
  }
  r.backend = read_string_attr(c, file, h5::kBackend);
  if (has_root_attr(file, h5::kDevice)) r.device = read_string_attr(c, file, h5::kDevice);
  r.seed = read_attr<uint64_t>(c, file, h5::kSeed);
  r.replications =
      to_size(c, read_attr<uint64_t>(c, file, h5::kReplications), h5::kReplications.name);
  r.points = to_size(c, read_attr<uint64_t>(c, file, h5::kPoints), h5::kPoints.name);
  if (has_root_attr(file, h5::kFirstReplication))
    r.first_replication = read_attr<uint64_t>(c, file, h5::kFirstReplication);
  r.threads = read_attr<int32_t>(c, file, h5::kThreads);
  check_count(c, r.replications, h5::kReplications.name);
  check_count(c, r.points, h5::kPoints.name);
  // Replication indices are 64-bit: a range past 2^64 would wrap to replication 0.
  if (r.replications > 0 && r.first_replication > UINT64_MAX - (r.replications - 1))
    c.fail(std::string("attributes '") + h5::kFirstReplication.name + "' (" +
           std::to_string(r.first_replication) + ") and '" + h5::kReplications.name + "' (" +
           std::to_string(r.replications) +
           ") give replication indices past 2^64 - 1, which no run can have");
  if (format >= 5) {
    const uint64_t kept = read_attr<uint64_t>(c, file, h5::kKeptReplications);
    if (kept > r.replications)
      c.fail(std::string("attribute '") + h5::kKeptReplications.name + "' (" +
             std::to_string(kept) + ") exceeds '" + h5::kReplications.name + "' (" +
             std::to_string(r.replications) + ")");
    if (kept < r.replications) r.kept_rows = static_cast<std::size_t>(kept);
  }
  r.wall_time_s = read_attr<double>(c, file, h5::kWallTime);
  // reps: the rows the file holds per point.
  const std::size_t points = r.points, reps = r.rows_per_point();
  const hsize_t hp = points, hr = reps;

  // Per-replication scalars back to [point][replication][metric].
  std::vector<std::size_t> absent_metrics;  // older files: see reads_as_zero_when_absent
  {
    const char* const parent = h5::kScalarMetric.parent;
    Handle group = open_group(c, file, h5::kReplicationsGroup);
    {  // the attributes must agree with the data before they size anything
      const std::string what = "dataset '" + join_path(parent, kScalarMetricInfo[0].name) + "'";
      Handle dset = open_dataset(c, group.get(), parent, kScalarMetricInfo[0].name);
      expect_dims(c, dataset_dims(c, dset.get(), what), {hp, hr}, what);
    }
    r.scalars.assign(points * reps * kScalarMetricCount, 0.0);
    std::vector<double> data;
    for (std::size_t m = 0; m < kScalarMetricCount; ++m) {
      if (reads_as_zero_when_absent(m) &&
          H5Lexists(group.get(), kScalarMetricInfo[m].name, H5P_DEFAULT) <= 0) {
        absent_metrics.push_back(m);  // 0 in every replication (r.scalars is zeroed)
        continue;
      }
      read_metric_dataset(c, group.get(), parent, kScalarMetricInfo[m].name, {hp, hr}, data);
      for (std::size_t i = 0; i < data.size(); ++i) r.scalars[i * kScalarMetricCount + m] = data[i];
    }
  }

  // Pools: names, then values back to [point][replication][pool][metric].
  {
    Handle group = open_group(c, file, h5::kPoolsGroup);
    {
      const std::string what = "dataset '" + hdf5_item_path(h5::kPoolNames) + "'";
      Handle dset = open_dataset(c, group.get(), h5::kPoolNames);
      const std::vector<hsize_t> dims = dataset_dims(c, dset.get(), what);
      if (dims.size() != 1) c.fail(what + " is not one-dimensional");
      r.pool_names = read_strings(c, dset.get(), false, what);
    }
    const std::size_t pools = r.pool_count();
    r.pool_values.assign(points * reps * pools * kPoolMetricCount, 0.0);
    std::vector<double> data;
    for (std::size_t m = 0; m < kPoolMetricCount; ++m) {
      read_metric_dataset(c, group.get(), h5::kPoolMetric.parent, kPoolMetricInfo[m].name,
                          {hp, hr, static_cast<hsize_t>(pools)}, data);
      for (std::size_t i = 0; i < data.size(); ++i) {
        r.pool_values[i * kPoolMetricCount + m] = data[i];
      }
    }
  }

  // The time series, when the file has one.
  if (H5Lexists(file, h5::kTimeseriesGroup.name, H5P_DEFAULT) > 0) {
    Handle group = open_group(c, file, h5::kTimeseriesGroup);
    r.timeseries_step_s = read_attr<double>(c, group.get(), h5::kTimeseriesStep);
    const std::string what = "dataset '" + hdf5_item_path(h5::kGpusInUse) + "'";
    Handle dset = open_dataset(c, group.get(), h5::kGpusInUse);
    const std::vector<hsize_t> dims = dataset_dims(c, dset.get(), what);
    if (dims.size() != 4) c.fail(what + " is not [points, replications, pools, bins]");
    r.timeseries_bins = static_cast<std::size_t>(dims[3]);
    read_metric_dataset(c, group.get(), h5::kGpusInUse.parent, h5::kGpusInUse.name,
                        {hp, hr, static_cast<hsize_t>(r.pool_count()), dims[3]}, r.timeseries);
  }

  // Summaries: rows are placed by (point, pool, metric name), so their order does not matter.
  {
    const std::size_t count = points * kScalarMetricCount;
    const std::string what = "dataset '" + hdf5_item_path(h5::kSummary) + "'";
    const auto rows = read_compound_dataset<SummaryRow>(
        c, file, h5::kSummary, false, points * (kScalarMetricCount - absent_metrics.size()));
    r.summary.assign(count, MetricSummary{});
    std::vector<char> seen(count, 0);
    for (const std::size_t m : absent_metrics)
      for (std::size_t p = 0; p < points; ++p) {
        const double* first = r.scalars.data() + p * reps * kScalarMetricCount + m;
        r.summary[p * kScalarMetricCount + m] =
            summarize(column_moments(first, reps, kScalarMetricCount),
                      std::vector<double>(reps, 0.0), metric_range(kScalarMetricInfo[m]));
        seen[p * kScalarMetricCount + m] = 1;
      }
    place_scalar_summaries(c, rows, points, what, seen, r.summary);
  }
  if (!r.all_rows()) {  // the differences from point 0, over every replication
    const std::size_t count = points * kScalarMetricCount;
    const std::string what = "dataset '" + hdf5_item_path(h5::kDifferenceSummary) + "'";
    const auto rows =
        read_compound_dataset<SummaryRow>(c, file, h5::kDifferenceSummary, false, count);
    r.difference_summary.assign(count, MetricSummary{});
    std::vector<char> seen(count, 0);
    place_scalar_summaries(c, rows, points, what, seen, r.difference_summary);
  }
  {
    const std::size_t pools = r.pool_count();
    const std::size_t count = points * pools * kPoolMetricCount;
    const std::string what = "dataset '" + hdf5_item_path(h5::kPoolSummary) + "'";
    const auto rows = read_compound_dataset<PoolSummaryRow>(c, file, h5::kPoolSummary, true, count);
    r.pool_summary.assign(count, MetricSummary{});
    std::vector<char> seen(count, 0);
    for (const PoolSummaryRow& row : rows) {
      if (row.point >= points || row.pool >= pools) {
        c.fail(what + " has a row for a point or pool out of range");
      }
      const std::size_t m =
          metric_index(c, kPoolMetricInfo, from_fixed(row.metric, kMetricNameBytes), what);
      const std::size_t i = (row.point * pools + row.pool) * kPoolMetricCount + m;
      if (seen[i]++) c.fail(what + " has duplicate rows");
      r.pool_summary[i] = get_stats(row);
    }
  }

  // Sweep.
  {
    Handle group = open_group(c, file, h5::kSweepGroup);
    const int32_t params = read_attr<int32_t>(c, group.get(), h5::kSweepParameters);
    if (params < 0)
      c.fail(std::string("attribute '") + h5::kSweepParameters.name + "' of '" +
             h5::kSweepParameters.parent + "' is negative");
    if (params > 0) {
      const hsize_t hparams = static_cast<hsize_t>(params);
      const std::vector<std::string> paths =
          read_strings_dataset(c, group.get(), h5::kSweepPaths, {hparams});
      const std::vector<std::string> values =
          read_strings_dataset(c, group.get(), h5::kSweepValues, {hparams, hp});
      r.sweep.resize(paths.size());
      for (std::size_t i = 0; i < paths.size(); ++i) {
        r.sweep[i].path = paths[i];
        r.sweep[i].values.assign(values.begin() + static_cast<std::ptrdiff_t>(i * points),
                                 values.begin() + static_cast<std::ptrdiff_t>((i + 1) * points));
      }
    }
  }
  // The data files' provenance (format 3 on; older files have none).
  if (format >= 3) {
    Handle group = open_group(c, file, h5::kInputsGroup);
    const std::string what = "dataset '" + hdf5_item_path(h5::kInputPath) + "'";
    hsize_t n = 0;
    {
      Handle dset = open_dataset(c, group.get(), h5::kInputPath);
      const std::vector<hsize_t> dims = dataset_dims(c, dset.get(), what);
      if (dims.size() != 1) c.fail(what + " is not one-dimensional");
      n = dims[0];
    }
    const auto paths = read_strings_dataset(c, group.get(), h5::kInputPath, {n});
    const auto resolved = read_strings_dataset(c, group.get(), h5::kInputResolvedPath, {n});
    const auto sizes = read_uint64_dataset(c, group.get(), h5::kInputSize, n);
    const auto digests = read_strings_dataset(c, group.get(), h5::kInputSha256, {n});
    for (std::size_t i = 0; i < paths.size(); ++i)
      r.data_files.push_back({paths[i], resolved[i], sizes[i], digests[i]});
  }
  if (format >= 4) {
    r.stopping_rule = read_string_attr(c, file, h5::kStoppingRule);
    if (H5Lexists(file, h5::kGoalsGroup.name, H5P_DEFAULT) > 0) read_goals(c, file, r);
    if (H5Lexists(file, h5::kJobsGroup.name, H5P_DEFAULT) > 0) read_jobs(c, file, r);
  }
  if (format >= 2) {
    const uint64_t stored = read_attr<uint64_t>(c, file, h5::kContentChecksum);
    const uint64_t computed = content_checksum(r, format, absent_metrics);
    if (stored != computed) {
      char detail[96];
      std::snprintf(detail, sizeof detail, "stored %016llx, computed %016llx",
                    static_cast<unsigned long long>(stored),
                    static_cast<unsigned long long>(computed));
      c.fail(std::string("the file is corrupt: its content does not match its checksum (") +
             detail + ")");
    }
  }
  return r;
}

// ------------------------------------------------------------------------------------------
// The file's checksum, in the user block (the first kUserBlockBytes bytes; see
// gpucap/hdf5_layout.hpp).
// The checksum covers every byte after the user block.

constexpr const auto& kUserBlockMagic = kHdf5UserBlockMagic;

uint64_t bytes_checksum(const char* data, std::size_t size) {
  ContentHash h;
  h.word(size);
  std::size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    uint64_t w;
    std::memcpy(&w, data + i, 8);
    h.word(w);
  }
  uint64_t tail = 0;
  for (std::size_t k = 0; i + k < size; ++k)
    tail |= static_cast<uint64_t>(static_cast<unsigned char>(data[i + k])) << (8 * k);
  h.word(tail);
  return h.value();
}

/// Fills the user block (the first kUserBlockBytes of `image`, which HDF5 left as zeros).
void write_user_block(char* image, std::size_t size) {
  char header[kUserBlockBytes] = {};
  std::snprintf(header, sizeof header, "%schecksum: %016llx\nbytes: %llu\n", kUserBlockMagic,
                static_cast<unsigned long long>(
                    bytes_checksum(image + kUserBlockBytes, size - kUserBlockBytes)),
                static_cast<unsigned long long>(size));
  std::memcpy(image, header, sizeof header);
}

/// True when `image` starts with gpucap's user block and its checksum and size hold; throws
/// when the user block is there but they do not; false when there is none (a file written
/// before format 2, or rewritten by another tool).
bool verify_user_block(const Context& c, const std::vector<char>& image) {
  const std::size_t magic = sizeof kUserBlockMagic - 1;
  if (image.size() < kUserBlockBytes || std::memcmp(image.data(), kUserBlockMagic, magic) != 0)
    return false;
  const std::string header(image.data() + magic, image.data() + kUserBlockBytes);
  unsigned long long stored = 0, size = 0;
  if (std::sscanf(header.c_str(), "checksum: %16llx\nbytes: %llu\n", &stored, &size) != 2)
    c.fail("the file is corrupt: its header is damaged");
  if (size != image.size())
    c.fail("the file is corrupt or truncated: it has " + std::to_string(image.size()) +
           " bytes, its header says " + std::to_string(size));
  const uint64_t computed =
      bytes_checksum(image.data() + kUserBlockBytes, image.size() - kUserBlockBytes);
  if (computed != stored) {
    char detail[96];
    std::snprintf(detail, sizeof detail, "stored %016llx, computed %016llx", stored,
                  static_cast<unsigned long long>(computed));
    c.fail(std::string("the file is corrupt: its bytes do not match its checksum (") + detail +
           "); it was damaged or changed after gpucap wrote it");
  }
  return true;
}

/// True when an HDF5 superblock signature is at byte 0 or at a power of two from 512 on.
bool has_hdf5_signature(const std::vector<char>& image) {
  static const char kSignature[8] = {'\x89', 'H', 'D', 'F', '\r', '\n', '\x1a', '\n'};
  for (std::size_t at = 0; at + 8 <= image.size(); at = at == 0 ? 512 : at * 2)
    if (std::memcmp(image.data() + at, kSignature, 8) == 0) return true;
  return false;
}

/// The whole file at `path` (a regular file), as bytes.
std::vector<char> read_whole_file(const Context& c, const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) c.fail(std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    c.fail("not a regular file");
  }
  std::vector<char> bytes;
  bytes.reserve(static_cast<std::size_t>(st.st_size));
  char block[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, block, sizeof block);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      c.fail(std::strerror(error));
    }
    if (n == 0) break;
    bytes.insert(bytes.end(), block, block + n);
  }
  ::close(fd);
  return bytes;
}

}  // namespace

OutputReport write_results_hdf5(const RunResults& results, const std::string& path,
                                const OutputOptions& options) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const Context c("write", path);
  check_sizes(c, results);
  OutputOptions checked = options;
  checked.inputs.insert(checked.inputs.end(), results.input_files.begin(),
                        results.input_files.end());
  // The file is built in memory (HDF5's core driver, no backing store: HDF5 itself never opens
  // a path), then written by write_output_atomically, which owns every file-system decision.
  MemoryImage captured;
  {
    Handle fapl = c.plist(H5Pcreate(H5P_FILE_ACCESS), "creating a file access property list");
    // Closing the file fails (rather than being deferred) if a handle were left open.
    c.check_status(H5Pset_fclose_degree(fapl.get(), H5F_CLOSE_SEMI), "setting close degree");
    // HDF5 1.8 object headers: dense attribute storage, no 64 KiB attribute limit, and
    // checksummed metadata (object headers, B-trees, heaps' indexes, superblock).
    c.check_status(H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V18, H5F_LIBVER_LATEST),
                   "setting library version bounds");
    c.check_status(H5Pset_fapl_core(fapl.get(), std::size_t{1} << 20, 0),
                   "selecting the in-memory driver");
    H5FD_file_image_callbacks_t callbacks = MemoryImage::callbacks(&captured);
    c.check_status(H5Pset_file_image_callbacks(fapl.get(), &callbacks),
                   "setting the in-memory image callbacks");
    // The name only identifies the in-memory file inside this process.
    static std::atomic<uint64_t> serial{0};
    const std::string memory_name = "gpucap-results-in-memory-" + std::to_string(::getpid()) + "-" +
                                    std::to_string(serial.fetch_add(1));
    // The first 512 bytes are a user block that HDF5 leaves to us: the file's checksum.
    Handle fcpl = c.plist(H5Pcreate(H5P_FILE_CREATE), "creating a file creation property list");
    c.check_status(H5Pset_userblock(fcpl.get(), kUserBlockBytes), "reserving the user block");
    Handle file(c.check(H5Fcreate(memory_name.c_str(), H5F_ACC_EXCL, fcpl.get(), fapl.get()),
                        "creating the file in memory"),
                H5Fclose);
    write_file(c, file.get(), results, options.threads);
    // Closing writes the final superblock (its status flags cleared, its checksum right); the
    // image is taken from the core driver as it frees it. (H5Fget_file_image on the open file
    // clears the flags without updating the superblock's checksum in HDF5 1.10.)
    c.check_status(file.close(), "closing the file in memory");
  }
  const MemoryImage::Span image = captured.image();
  if (image.size <= kUserBlockBytes) c.fail("the in-memory file image was not handed back by HDF5");
  write_user_block(image.data, image.size);
  try {
    return write_output_atomically(path, image.data, image.size, checked);
  } catch (const OutputError& e) {
    throw OutputError(std::string("HDF5 results: ") + e.what());
  }
}

RunResults read_results_hdf5(const std::string& path) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const Context c("read", path);
  // The bytes are read once and checked before HDF5 parses any of them (HDF5 1.10 trusts the
  // lengths in its global heap: a damaged file could crash it); HDF5 then reads that same
  // verified copy from memory, so the file cannot change in between.
  std::vector<char> image = read_whole_file(c, path);
  if (!verify_user_block(c, image) && !has_hdf5_signature(image)) c.fail("not an HDF5 file");
  Handle fapl = c.plist(H5Pcreate(H5P_FILE_ACCESS), "creating a file access property list");
  c.check_status(H5Pset_fapl_core(fapl.get(), std::size_t{1} << 20, 0),
                 "selecting the in-memory driver");
  c.check_status(H5Pset_file_image(fapl.get(), image.data(), image.size()),
                 "handing the file's bytes to HDF5");
  static std::atomic<uint64_t> serial{0};
  const std::string memory_name = "gpucap-results-read-" + std::to_string(::getpid()) + "-" +
                                  std::to_string(serial.fetch_add(1));
  Handle file(c.check(H5Fopen(memory_name.c_str(), H5F_ACC_RDONLY, fapl.get()), "opening the file"),
              H5Fclose);
  return read_file(c, file.get());
}

// ------------------------------------------------------------------------------------------
// The layout table in words (gpucap/hdf5_layout.hpp).

std::string hdf5_item_path(const Hdf5Item& item) {
  if (item.kind == Hdf5Kind::attribute) return std::string(item.parent) + "@" + item.name;
  if (*item.parent == '\0') return item.name;
  return join_path(item.parent, item.name);
}

std::string hdf5_type_name(Hdf5Type type, std::size_t bytes) {
  switch (type) {
    case Hdf5Type::none:
      return "";
    case Hdf5Type::int32:
      return "int32";
    case Hdf5Type::uint32:
      return "uint32";
    case Hdf5Type::uint64:
      return "uint64";
    case Hdf5Type::float64:
      return "float64";
    case Hdf5Type::string:
      return "string";
    case Hdf5Type::fixed_string:
      return "fixed string, " + std::to_string(bytes) + " bytes";
    case Hdf5Type::compound:
      return "compound";
  }
  return "";
}

namespace {

/// `text` padded with spaces to `width`, and at least one space after it.
std::string pad(const std::string& text, std::size_t width) {
  return text.size() < width ? text + std::string(width - text.size(), ' ') : text + " ";
}

/// An item's type as the tables show it: "string (variable)", "string array [O]", "uint64".
std::string type_cell(const Hdf5Item& item) {
  std::string type = hdf5_type_name(item.type);
  if (item.type == Hdf5Type::string) type += *item.shape ? " array" : " (variable)";
  return *item.shape ? type + " " + item.shape : type;
}

std::string meaning_cell(const Hdf5Item& item) {
  std::string text = item.description;
  if (*item.presence) text += std::string(" (") + item.presence + ")";
  return text;
}

std::string overview_markdown() {
  // Rows of (path, kind, note), then printed in aligned columns.
  std::vector<std::array<std::string, 3>> rows;
  rows.push_back({"bytes 0-" + std::to_string(kHdf5UserBlockBytes - 1),
                  "user block: \"" +
                      std::string(kHdf5UserBlockMagic, sizeof kHdf5UserBlockMagic - 2) +
                      "\", checksum, size",
                  ""});
  for (const Hdf5Item* item : kHdf5Layout) {
    if (item->kind == Hdf5Kind::attribute) continue;
    const std::string path = hdf5_item_path(*item);
    const std::string note = *item->presence ? item->presence : item->description;
    if (item->kind == Hdf5Kind::dataset) {
      rows.push_back({path, pad(hdf5_type_name(item->type), 9) + item->shape, note});
    } else if (path == "/") {
      rows.push_back({path, item->description, ""});
    } else {
      std::vector<std::string> attributes;
      for (const Hdf5Item* a : kHdf5Layout)
        if (a->kind == Hdf5Kind::attribute && path == a->parent) attributes.push_back(a->name);
      std::string kind = "group";
      if (!attributes.empty())
        kind += std::string(attributes.size() == 1 ? ", attribute " : ", attributes ") +
                text::join(attributes, ", ");
      rows.push_back({path, kind, note});
    }
  }
  std::size_t path_width = 0, kind_width = 0;
  for (const auto& row : rows) {
    path_width = std::max(path_width, row[0].size() + 2);
    if (!row[2].empty()) kind_width = std::max(kind_width, row[1].size() + 2);
  }
  std::string out = "```\n";
  for (const auto& row : rows)
    out += pad(row[0], path_width) + (row[2].empty() ? row[1] : pad(row[1], kind_width) + row[2]) +
           "\n";
  return out + "```\n";
}

std::string notation_markdown() {
  return "This is format version " + std::to_string(kResultsFormatVersion) + " (root attribute `" +
         h5::kFormatVersion.name + "`). Notation: " + kHdf5Notation +
         ", `M` = number of scalar metrics (" + std::to_string(kScalarMetricCount) +
         "), `N` = number of pool metrics (" + std::to_string(kPoolMetricCount) + ").\n";
}

std::string root_attributes_markdown() {
  std::string out =
      "| attribute | type | unit | meaning |\n|-----------|------|------|---------|\n";
  for (const Hdf5Item* item : kHdf5Layout)
    if (item->kind == Hdf5Kind::attribute && std::string(item->parent) == "/")
      out += std::string("| `") + item->name + "` | " + type_cell(*item) + " | " + item->unit +
             " | " + meaning_cell(*item) + " |\n";
  return out;
}

std::string group_attributes_markdown() {
  std::string out =
      "| on | attribute | type | unit | meaning |\n|----|-----------|------|------|---------|\n";
  for (const Hdf5Item* item : kHdf5Layout)
    if (item->kind == Hdf5Kind::attribute && std::string(item->parent) != "/") {
      const bool generic = std::string(item->parent) == kHdf5EveryMetricDataset;
      out += "| " + (generic ? std::string(item->parent) : "`" + std::string(item->parent) + "`") +
             " | `" + item->name + "` | " + type_cell(*item) + " | " + item->unit + " | " +
             meaning_cell(*item) + " |\n";
    }
  return out;
}

std::string fields_markdown(bool pool) {
  std::string out = "| field | type | meaning |\n|-------|------|---------|\n";
  std::string order;
  for (const Hdf5Field* f : kHdf5SummaryFields) {
    if (f->pool_only && !pool) continue;
    order += (order.empty() ? "" : ", ") + std::string(f->name);
    if (pool && !f->pool_only) continue;  // the pool table lists what it adds
    out += std::string("| `") + f->name + "` | " + hdf5_type_name(f->type, f->bytes) + " | " +
           f->description + " |\n";
  }
  return out + "\nField order: `" + order + "`.\n";
}

}  // namespace

std::string hdf5_layout_markdown(const std::string& part) {
  if (part == "notation") return notation_markdown();
  if (part == "overview") return overview_markdown();
  if (part == "root-attributes") return root_attributes_markdown();
  if (part == "group-attributes") return group_attributes_markdown();
  if (part == "summary-fields") return fields_markdown(false);
  if (part == "pool-summary-fields") return fields_markdown(true);
  throw std::invalid_argument("hdf5_layout_markdown: no part '" + part +
                              "'; the parts are notation, overview, root-attributes, "
                              "group-attributes, summary-fields, pool-summary-fields");
}

}  // namespace gpucap
