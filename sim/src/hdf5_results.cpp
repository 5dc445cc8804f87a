// gpucap: the HDF5 results file writer and reader (layout in docs/results-format.md).
#include "gpucap/hdf5_results.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <hdf5.h>
#include <stdexcept>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "gpucap/detail/text.hpp"

namespace gpucap {
namespace {

/// Fixed string widths (bytes) of the compound summary tables; longer text is truncated.
constexpr std::size_t kMetricNameBytes = 32;
constexpr std::size_t kUnitBytes = 16;
constexpr std::size_t kPoolNameBytes = 64;
/// Datasets with at least this many elements are chunked and deflated; smaller ones contiguous.
constexpr hsize_t kCompressMinElements = 4096;
/// Upper bound on the elements of one chunk (65536 doubles = 512 KiB).
constexpr hsize_t kMaxChunkElements = 65536;
constexpr unsigned kDeflateLevel = 4;
/// The user block at the start of every file: gpucap's header with the file's checksum.
constexpr std::size_t kUserBlockBytes = 512;

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

/// Names of the required fields of each compound table (checked when reading).
constexpr const char* kSummaryFields[] = {"point",    "metric",    "n",  "mean", "std",
                                          "ci95_low", "ci95_high", "p5", "p50",  "p95"};

template <typename Row>
void insert_stat_fields(const Context& c, hid_t type) {
  const struct {
    const char* name;
    std::size_t offset;
  } fields[] = {{"n", HOFFSET(Row, n)},
                {"mean", HOFFSET(Row, mean)},
                {"std", HOFFSET(Row, std)},
                {"ci95_low", HOFFSET(Row, ci95_low)},
                {"ci95_high", HOFFSET(Row, ci95_high)},
                {"p5", HOFFSET(Row, p5)},
                {"p50", HOFFSET(Row, p50)},
                {"p95", HOFFSET(Row, p95)}};
  for (const auto& field : fields) {
    const hid_t member = std::strcmp(field.name, "n") == 0 ? H5T_NATIVE_UINT64 : H5T_NATIVE_DOUBLE;
    c.check_status(H5Tinsert(type, field.name, field.offset, member),
                   std::string("building the compound field '") + field.name + "'");
  }
}

/// The in-memory compound type of SummaryRow (pool == false) or PoolSummaryRow (pool == true).
Handle summary_type(const Context& c, bool pool) {
  const std::size_t size = pool ? sizeof(PoolSummaryRow) : sizeof(SummaryRow);
  Handle type = c.type(H5Tcreate(H5T_COMPOUND, size), "creating a compound type");
  Handle metric = fixed_string_type(c, kMetricNameBytes);
  Handle unit = fixed_string_type(c, kUnitBytes);
  const auto insert = [&](const char* name, std::size_t offset, hid_t member) {
    c.check_status(H5Tinsert(type.get(), name, offset, member),
                   std::string("building the compound field '") + name + "'");
  };
  if (pool) {
    Handle pool_name = fixed_string_type(c, kPoolNameBytes);
    insert("point", HOFFSET(PoolSummaryRow, point), H5T_NATIVE_UINT32);
    insert("pool", HOFFSET(PoolSummaryRow, pool), H5T_NATIVE_UINT32);
    insert("pool_name", HOFFSET(PoolSummaryRow, pool_name), pool_name.get());
    insert("metric", HOFFSET(PoolSummaryRow, metric), metric.get());
    insert("unit", HOFFSET(PoolSummaryRow, unit), unit.get());
    insert_stat_fields<PoolSummaryRow>(c, type.get());
  } else {
    insert("point", HOFFSET(SummaryRow, point), H5T_NATIVE_UINT32);
    insert("metric", HOFFSET(SummaryRow, metric), metric.get());
    insert("unit", HOFFSET(SummaryRow, unit), unit.get());
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

/// Writes a double dataset of shape `dims` ([points, replications, ...]) with its unit and
/// description. Chunked along replications and checksummed (Fletcher32); deflated as well when
/// it has >= 4096 elements.
void write_metric_dataset(const Context& c, hid_t loc, const std::string& loc_path,
                          const MetricInfo& info, const std::vector<double>& data,
                          const std::vector<hsize_t>& dims) {
  const std::string full = join_path(loc_path, info.name);
  const std::string what = "dataset '" + full + "'";
  Handle space = make_space(c, dims);
  Handle dcpl = c.plist(H5Pcreate(H5P_DATASET_CREATE), "creating a dataset property list");
  const hsize_t elements = element_count(dims);
  if (elements > 0) {
    // One point per chunk, a run of replications, every trailing dimension (pools) whole.
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
    c.check_status(H5Pset_chunk(dcpl.get(), static_cast<int>(chunk.size()), chunk.data()),
                   "setting the chunk shape of " + what);
    if (elements >= kCompressMinElements)
      c.check_status(H5Pset_deflate(dcpl.get(), kDeflateLevel), "enabling deflate for " + what);
    c.check_status(H5Pset_fletcher32(dcpl.get()), "enabling checksums for " + what);
  }
  Handle dset = c.dataset(
      H5Dcreate2(loc, info.name, H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
      "creating " + what);
  if (elements > 0) {
    c.check_status(
        H5Dwrite(dset.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()),
        "writing " + what);
  }
  write_string_attr(c, dset.get(), full, "unit", info.unit);
  write_string_attr(c, dset.get(), full, "description", info.description);
}

/// Creates a group whose links h5py lists in creation order (the metric table order).
Handle create_ordered_group(const Context& c, hid_t loc, const char* name) {
  Handle gcpl = c.plist(H5Pcreate(H5P_GROUP_CREATE), "creating a group property list");
  c.check_status(
      H5Pset_link_creation_order(gcpl.get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED),
      "tracking link creation order");
  return c.group(H5Gcreate2(loc, name, H5P_DEFAULT, gcpl.get(), H5P_DEFAULT),
                 std::string("creating group '/") + name + "'");
}

template <typename T>
void write_compound_dataset(const Context& c, hid_t loc, const char* name, bool pool,
                            const std::vector<T>& rows) {
  const std::string what = std::string("dataset '/") + name + "'";
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

uint64_t content_checksum(const RunResults& r) {
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
  h.numbers(r.scalars);
  h.numbers(r.pool_values);
  h.numbers(r.timeseries);
  h.summaries(r.summary);
  h.summaries(r.pool_summary);
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
  const std::size_t pr = r.points * r.replications;
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
  if (r.points > UINT32_MAX || r.pool_count() > UINT32_MAX) c.fail("too many points or pools");
}

void write_file(const Context& c, hid_t file, const RunResults& r) {
  const std::size_t points = r.points, reps = r.replications, pools = r.pool_count();

  // Root attributes.
  write_string_attr(c, file, "/", "gpucap_version", r.gpucap_version);
  write_string_attr(c, file, "/", "scenario_name", r.scenario_name);
  write_string_attr(c, file, "/", "scenario", r.scenario_text);
  write_string_attr(c, file, "/", "scenario_source", r.scenario_original_text);
  {
    std::vector<std::string> paths, values;
    for (const auto& [path, value] : r.scenario_overrides) {
      paths.push_back(path);
      values.push_back(value);
    }
    write_strings_attr(c, file, "/", "override_paths", paths, {paths.size()});
    write_strings_attr(c, file, "/", "override_values", values, {values.size()});
  }
  write_string_attr(c, file, "/", "backend", r.backend);
  write_string_attr(c, file, "/", "device", r.device);
  write_scalar_attr<uint64_t>(c, file, "/", "seed", H5T_NATIVE_UINT64, r.seed);
  write_scalar_attr<uint64_t>(c, file, "/", "replications", H5T_NATIVE_UINT64, reps);
  write_scalar_attr<uint64_t>(c, file, "/", "first_replication", H5T_NATIVE_UINT64,
                              r.first_replication);
  write_scalar_attr<uint64_t>(c, file, "/", "points", H5T_NATIVE_UINT64, points);
  write_scalar_attr<int32_t>(c, file, "/", "threads", H5T_NATIVE_INT32, r.threads);
  write_scalar_attr<double>(c, file, "/", "wall_time_s", H5T_NATIVE_DOUBLE, r.wall_time_s);
  write_string_attr(c, file, "/", "created_utc", utc_now());
  write_scalar_attr<int32_t>(c, file, "/", "format_version", H5T_NATIVE_INT32,
                             kResultsFormatVersion);
  write_scalar_attr<uint64_t>(c, file, "/", "content_checksum", H5T_NATIVE_UINT64,
                              content_checksum(r));

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
    write_compound_dataset(c, file, "summary", false, rows);
  }

  // /replications/<metric>: [points, replications].
  {
    Handle group = create_ordered_group(c, file, "replications");
    std::vector<double> data(points * reps);
    for (std::size_t m = 0; m < kScalarMetricCount; ++m) {
      for (std::size_t i = 0; i < points * reps; ++i) {
        data[i] = r.scalars[i * kScalarMetricCount + m];
      }
      write_metric_dataset(c, group.get(), "/replications", kScalarMetricInfo[m], data,
                           {points, reps});
    }
  }

  // /pools/<metric>: [points, replications, pools], plus the pool names.
  {
    Handle group = create_ordered_group(c, file, "pools");
    write_strings_attr(c, group.get(), "/pools", "pool_names", r.pool_names, {pools});
    write_strings_dataset(c, group.get(), "/pools", "names", r.pool_names, {pools});
    std::vector<double> data(points * reps * pools);
    for (std::size_t m = 0; m < kPoolMetricCount; ++m) {
      for (std::size_t i = 0; i < data.size(); ++i) {
        data[i] = r.pool_values[i * kPoolMetricCount + m];
      }
      write_metric_dataset(c, group.get(), "/pools", kPoolMetricInfo[m], data,
                           {points, reps, pools});
    }
  }

  // /timeseries/gpus_in_use: [points, replications, pools, bins], when recorded.
  if (r.timeseries_bins > 0) {
    Handle group = create_ordered_group(c, file, "timeseries");
    write_scalar_attr<double>(c, group.get(), "/timeseries", "step_s", H5T_NATIVE_DOUBLE,
                              r.timeseries_step_s);
    const MetricInfo info{"gpus_in_use", "GPUs",
                          "mean GPUs in use per pool over each bin of step_s seconds"};
    write_metric_dataset(c, group.get(), "/timeseries", info, r.timeseries,
                         {points, reps, pools, r.timeseries_bins});
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
    write_compound_dataset(c, file, "pool_summary", true, rows);
  }

  // /sweep: attributes parameters and points; datasets paths and values when parameters > 0.
  {
    Handle group = c.group(H5Gcreate2(file, "sweep", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                           "creating group '/sweep'");
    const std::size_t params = r.sweep.size();
    write_scalar_attr<int32_t>(c, group.get(), "/sweep", "parameters", H5T_NATIVE_INT32,
                               static_cast<int32_t>(params));
    write_scalar_attr<uint64_t>(c, group.get(), "/sweep", "points", H5T_NATIVE_UINT64, points);
    if (params > 0) {
      std::vector<std::string> paths, values;
      for (const SweepParameter& p : r.sweep) {
        paths.push_back(p.path);
        values.insert(values.end(), p.values.begin(), p.values.end());
      }
      write_strings_dataset(c, group.get(), "/sweep", "paths", paths, {params});
      write_strings_dataset(c, group.get(), "/sweep", "values", values, {params, points});
    }
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

template <std::size_t N>
std::size_t metric_index(const Context& c, const MetricInfo (&table)[N], const std::string& name,
                         const std::string& what) {
  for (std::size_t i = 0; i < N; ++i) {
    if (name == table[i].name) return i;
  }
  c.fail(what + " names unknown metric '" + name + "'");
}

template <typename Row>
std::vector<Row> read_compound_dataset(const Context& c, hid_t file, const char* name, bool pool,
                                       std::size_t expected_rows) {
  const std::string what = std::string("dataset '/") + name + "'";
  Handle dset = open_dataset(c, file, "/", name);
  expect_dims(c, dataset_dims(c, dset.get(), what), {expected_rows}, what);
  Handle file_type = c.type(H5Dget_type(dset.get()), "getting the type of " + what);
  if (H5Tget_class(file_type.get()) != H5T_COMPOUND) c.fail(what + " is not a compound table");
  std::vector<const char*> fields(std::begin(kSummaryFields), std::end(kSummaryFields));
  if (pool) fields.push_back("pool");
  for (const char* field : fields) {
    if (H5Tget_member_index(file_type.get(), field) < 0) {
      c.fail(what + " lacks the field '" + field + "'");
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

RunResults read_file(const Context& c, hid_t file) {
  RunResults r;
  const int32_t format =
      read_scalar_attr<int32_t>(c, file, "/", "format_version", H5T_NATIVE_INT32);
  if (format < 1 || format > kResultsFormatVersion) {
    c.fail("unsupported format_version " + std::to_string(format) + " (this build reads 1 to " +
           std::to_string(kResultsFormatVersion) + ")");
  }
  r.gpucap_version = read_string_attr(c, file, "/", "gpucap_version");
  r.scenario_name = read_string_attr(c, file, "/", "scenario_name");
  r.scenario_text = read_string_attr(c, file, "/", "scenario");
  if (format >= 2) {
    r.scenario_original_text = read_string_attr(c, file, "/", "scenario_source");
    const std::vector<std::string> paths = read_strings_attr(c, file, "/", "override_paths");
    const std::vector<std::string> values = read_strings_attr(c, file, "/", "override_values");
    if (paths.size() != values.size())
      c.fail("attributes 'override_paths' and 'override_values' differ in length");
    for (std::size_t i = 0; i < paths.size(); ++i)
      r.scenario_overrides.emplace_back(paths[i], values[i]);
  } else {
    r.scenario_original_text = r.scenario_text;
  }
  r.backend = read_string_attr(c, file, "/", "backend");
  if (H5Aexists_by_name(file, "/", "device", H5P_DEFAULT) > 0)
    r.device = read_string_attr(c, file, "/", "device");
  r.seed = read_scalar_attr<uint64_t>(c, file, "/", "seed", H5T_NATIVE_UINT64);
  r.replications =
      to_size(c, read_scalar_attr<uint64_t>(c, file, "/", "replications", H5T_NATIVE_UINT64),
              "replications");
  r.points =
      to_size(c, read_scalar_attr<uint64_t>(c, file, "/", "points", H5T_NATIVE_UINT64), "points");
  if (H5Aexists_by_name(file, "/", "first_replication", H5P_DEFAULT) > 0)
    r.first_replication =
        read_scalar_attr<uint64_t>(c, file, "/", "first_replication", H5T_NATIVE_UINT64);
  r.threads = read_scalar_attr<int32_t>(c, file, "/", "threads", H5T_NATIVE_INT32);
  check_count(c, r.replications, "replications");
  check_count(c, r.points, "points");
  r.wall_time_s = read_scalar_attr<double>(c, file, "/", "wall_time_s", H5T_NATIVE_DOUBLE);
  const std::size_t points = r.points, reps = r.replications;
  const hsize_t hp = points, hr = reps;

  // Per-replication scalars back to [point][replication][metric].
  {
    Handle group = open_group(c, file, "/", "replications");
    {  // the attributes must agree with the data before they size anything
      const std::string what =
          std::string("dataset '/replications/") + kScalarMetricInfo[0].name + "'";
      Handle dset = open_dataset(c, group.get(), "/replications", kScalarMetricInfo[0].name);
      expect_dims(c, dataset_dims(c, dset.get(), what), {hp, hr}, what);
    }
    r.scalars.assign(points * reps * kScalarMetricCount, 0.0);
    std::vector<double> data;
    for (std::size_t m = 0; m < kScalarMetricCount; ++m) {
      read_metric_dataset(c, group.get(), "/replications", kScalarMetricInfo[m].name, {hp, hr},
                          data);
      for (std::size_t i = 0; i < data.size(); ++i) r.scalars[i * kScalarMetricCount + m] = data[i];
    }
  }

  // Pools: names, then values back to [point][replication][pool][metric].
  {
    Handle group = open_group(c, file, "/", "pools");
    {
      const std::string what = "dataset '/pools/names'";
      Handle dset = open_dataset(c, group.get(), "/pools", "names");
      const std::vector<hsize_t> dims = dataset_dims(c, dset.get(), what);
      if (dims.size() != 1) c.fail(what + " is not one-dimensional");
      r.pool_names = read_strings(c, dset.get(), false, what);
    }
    const std::size_t pools = r.pool_count();
    r.pool_values.assign(points * reps * pools * kPoolMetricCount, 0.0);
    std::vector<double> data;
    for (std::size_t m = 0; m < kPoolMetricCount; ++m) {
      read_metric_dataset(c, group.get(), "/pools", kPoolMetricInfo[m].name,
                          {hp, hr, static_cast<hsize_t>(pools)}, data);
      for (std::size_t i = 0; i < data.size(); ++i) {
        r.pool_values[i * kPoolMetricCount + m] = data[i];
      }
    }
  }

  // The time series, when the file has one.
  if (H5Lexists(file, "timeseries", H5P_DEFAULT) > 0) {
    Handle group = open_group(c, file, "/", "timeseries");
    r.timeseries_step_s =
        read_scalar_attr<double>(c, group.get(), "/timeseries", "step_s", H5T_NATIVE_DOUBLE);
    const std::string what = "dataset '/timeseries/gpus_in_use'";
    Handle dset = open_dataset(c, group.get(), "/timeseries", "gpus_in_use");
    const std::vector<hsize_t> dims = dataset_dims(c, dset.get(), what);
    if (dims.size() != 4) c.fail(what + " is not [points, replications, pools, bins]");
    r.timeseries_bins = static_cast<std::size_t>(dims[3]);
    read_metric_dataset(c, group.get(), "/timeseries", "gpus_in_use",
                        {hp, hr, static_cast<hsize_t>(r.pool_count()), dims[3]}, r.timeseries);
  }

  // Summaries: rows are placed by (point, pool, metric name), so their order does not matter.
  {
    const std::size_t count = points * kScalarMetricCount;
    const auto rows = read_compound_dataset<SummaryRow>(c, file, "summary", false, count);
    r.summary.assign(count, MetricSummary{});
    std::vector<char> seen(count, 0);
    for (const SummaryRow& row : rows) {
      if (row.point >= points) c.fail("dataset '/summary' has a row for point out of range");
      const std::size_t m = metric_index(
          c, kScalarMetricInfo, from_fixed(row.metric, kMetricNameBytes), "dataset '/summary'");
      const std::size_t i = row.point * kScalarMetricCount + m;
      if (seen[i]++) c.fail("dataset '/summary' has duplicate rows");
      r.summary[i] = get_stats(row);
    }
  }
  {
    const std::size_t pools = r.pool_count();
    const std::size_t count = points * pools * kPoolMetricCount;
    const auto rows = read_compound_dataset<PoolSummaryRow>(c, file, "pool_summary", true, count);
    r.pool_summary.assign(count, MetricSummary{});
    std::vector<char> seen(count, 0);
    for (const PoolSummaryRow& row : rows) {
      if (row.point >= points || row.pool >= pools) {
        c.fail("dataset '/pool_summary' has a row for a point or pool out of range");
      }
      const std::size_t m = metric_index(
          c, kPoolMetricInfo, from_fixed(row.metric, kMetricNameBytes), "dataset '/pool_summary'");
      const std::size_t i = (row.point * pools + row.pool) * kPoolMetricCount + m;
      if (seen[i]++) c.fail("dataset '/pool_summary' has duplicate rows");
      r.pool_summary[i] = get_stats(row);
    }
  }

  // Sweep.
  {
    Handle group = open_group(c, file, "/", "sweep");
    const int32_t params =
        read_scalar_attr<int32_t>(c, group.get(), "/sweep", "parameters", H5T_NATIVE_INT32);
    if (params < 0) c.fail("attribute 'parameters' of '/sweep' is negative");
    if (params > 0) {
      const hsize_t hparams = static_cast<hsize_t>(params);
      const std::vector<std::string> paths =
          read_strings_dataset(c, group.get(), "/sweep", "paths", {hparams});
      const std::vector<std::string> values =
          read_strings_dataset(c, group.get(), "/sweep", "values", {hparams, hp});
      r.sweep.resize(paths.size());
      for (std::size_t i = 0; i < paths.size(); ++i) {
        r.sweep[i].path = paths[i];
        r.sweep[i].values.assign(values.begin() + static_cast<std::ptrdiff_t>(i * points),
                                 values.begin() + static_cast<std::ptrdiff_t>((i + 1) * points));
      }
    }
  }
  if (format >= 2) {
    const uint64_t stored =
        read_scalar_attr<uint64_t>(c, file, "/", "content_checksum", H5T_NATIVE_UINT64);
    const uint64_t computed = content_checksum(r);
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
// The file's checksum, in the user block (the first kUserBlockBytes bytes):
//   "GPUCAP RESULTS FILE\nchecksum: <16 hex digits>\nbytes: <file size>\n", then zeros.
// The checksum covers every byte after the user block.

constexpr char kUserBlockMagic[] = "GPUCAP RESULTS FILE\n";

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
    write_file(c, file.get(), results);
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

}  // namespace gpucap
