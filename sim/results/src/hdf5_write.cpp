// gpucap: the HDF5 results file's writer. The file is built in memory (HDF5's core driver),
// every object in a fixed order, so that its bytes depend on the results alone (and the run's
// own provenance: creation time, wall time, host); then its user block gets the checksum of
// its bytes and it is written atomically (output_file.hpp).
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <iterator>
#include <string>
#include <system_error>
#include <unistd.h>
#include <vector>

#include "gpucap/hdf5_results.hpp"
#include "hdf5_integrity.hpp"
#include "hdf5_items.hpp"
#include "hdf5_write.hpp"

namespace gpucap {
namespace hdf5_detail {
namespace {


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

/// /jobs: the per-job records, one column per field.
void write_jobs(const Context& c, hid_t file, const RunResults& r) {
  Handle group = create_ordered_group(c, file, h5::kJobsGroup);
  write_plain_attributes(c, group.get(), h5::kJobsGroup, r);
  write_strings_dataset(c, group.get(), h5::kJobClasses, r.job_classes, {r.job_classes.size()});
  write_plain_columns(c, group.get(), r.jobs);
}

/// The root attributes, in the file's order; returns the content checksum's attribute, created
/// in its place and written at the end (write_file).
Handle write_root_attributes(const Context& c, hid_t file, const RunResults& r) {
  write_plain_attributes(c, file, h5::kRoot, r);
  write_attr<int32_t>(c, file, h5::kFormatVersion, kResultsFormatVersion);
  check_item(c, h5::kContentChecksum, Hdf5Kind::attribute, Hdf5Type::uint64, false);
  Handle space = make_space(c, {});
  return c.attribute(H5Acreate2(file, h5::kContentChecksum.name, H5T_NATIVE_UINT64, space.get(),
                                H5P_DEFAULT, H5P_DEFAULT),
                     "creating " + hdf5_item_path(h5::kContentChecksum));
}

/// /summary, point-major, and /difference_summary when the file keeps fewer rows than ran.
void write_summary(const Context& c, hid_t file, const RunResults& r) {
  std::vector<SummaryRow> rows(r.points * kScalarMetricCount);
  for (std::size_t p = 0; p < r.points; ++p) {
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

/// /replications/<metric>: [points, replications].
void write_replications(const Context& c, hid_t file, const RunResults& r, unsigned threads) {
  Handle group = create_ordered_group(c, file, h5::kReplicationsGroup);
  const std::vector<MetricInfo> infos(std::begin(kScalarMetricInfo), std::end(kScalarMetricInfo));
  write_metric_datasets(c, group.get(), h5::kScalarMetric.parent, infos,
                        {r.scalars.data(), kScalarMetricCount, 1, 1},
                        {r.points, r.rows_per_point()}, threads);
}

/// /pools/<metric>: [points, replications, pools], plus the pool names.
void write_pools(const Context& c, hid_t file, const RunResults& r, unsigned threads) {
  const std::size_t pools = r.pool_count();
  Handle group = create_ordered_group(c, file, h5::kPoolsGroup);
  write_plain_attributes(c, group.get(), h5::kPoolsGroup, r);
  write_strings_dataset(c, group.get(), h5::kPoolNames, r.pool_names, {pools});
  // Row (point, replication) holds [pool][metric]: dataset m starts at m, pools kPoolMetricCount
  // apart.
  const std::vector<MetricInfo> infos(std::begin(kPoolMetricInfo), std::end(kPoolMetricInfo));
  write_metric_datasets(c, group.get(), h5::kPoolMetric.parent, infos,
                        {r.pool_values.data(), pools * kPoolMetricCount, 1, kPoolMetricCount},
                        {r.points, r.rows_per_point(), pools}, threads);
}

/// /timeseries/gpus_in_use: [points, replications, pools, bins] (only when recorded).
void write_timeseries(const Context& c, hid_t file, const RunResults& r, unsigned threads) {
  const std::size_t pools = r.pool_count();
  Handle group = create_ordered_group(c, file, h5::kTimeseriesGroup);
  write_plain_attributes(c, group.get(), h5::kTimeseriesGroup, r);
  const MetricInfo info{h5::kGpusInUse.name, h5::kGpusInUse.unit, h5::kGpusInUse.description};
  write_metric_datasets(c, group.get(), h5::kGpusInUse.parent, {info},
                        {r.timeseries.data(), pools * r.timeseries_bins, 0, 1},
                        {r.points, r.rows_per_point(), pools, r.timeseries_bins}, threads);
}

/// /settling: the settling probe's mean series (only when the run has one).
void write_settling(const Context& c, hid_t file, const RunResults& r) {
  Handle group = create_ordered_group(c, file, h5::kSettlingGroup);
  write_plain_attributes(c, group.get(), h5::kSettlingGroup, r);
  write_column(c, group.get(), h5::kSettlingMean, r.settling.mean_in_use,
               native_type(Hdf5Type::float64));
  if (r.settling.mean_waiting.size() == r.settling.mean_in_use.size())
    write_column(c, group.get(), h5::kSettlingWaiting, r.settling.mean_waiting,
                 native_type(Hdf5Type::float64));
}

/// /pool_summary, ordered [point][pool][metric].
void write_pool_summary(const Context& c, hid_t file, const RunResults& r) {
  const std::size_t pools = r.pool_count();
  std::vector<PoolSummaryRow> rows(r.points * pools * kPoolMetricCount);
  for (std::size_t p = 0; p < r.points; ++p) {
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

/// /sweep: attributes parameters and points; datasets paths and values when parameters > 0.
void write_sweep(const Context& c, hid_t file, const RunResults& r) {
  Handle group =
      c.group(H5Gcreate2(file, h5::kSweepGroup.name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
              "creating group '" + hdf5_item_path(h5::kSweepGroup) + "'");
  const std::size_t params = r.sweep.size();
  write_plain_attributes(c, group.get(), h5::kSweepGroup, r);
  if (params > 0) {
    std::vector<std::string> paths, values;
    for (const SweepParameter& p : r.sweep) {
      paths.push_back(p.path);
      values.insert(values.end(), p.values.begin(), p.values.end());
    }
    write_strings_dataset(c, group.get(), h5::kSweepPaths, paths, {params});
    write_strings_dataset(c, group.get(), h5::kSweepValues, values, {params, r.points});
  }
}

/// /goals: definitions and, per replication, whether each was met (only when there are goals).
void write_goals(const Context& c, hid_t file, const RunResults& r, unsigned threads) {
  Handle group = create_ordered_group(c, file, h5::kGoalsGroup);
  const std::size_t g_count = r.goals.size();
  write_plain_columns(c, group.get(), r.goals);
  const std::vector<double> met(r.goal_met.begin(), r.goal_met.end());
  const MetricInfo info{h5::kGoalMet.name, "", h5::kGoalMet.description};
  write_metric_datasets(c, group.get(), h5::kGoalMet.parent, {info}, {met.data(), g_count, 0, 1},
                        {r.points, r.rows_per_point(), g_count}, threads);
  std::vector<uint64_t> met_count;
  for (const GoalSummary& g : r.goal_summary) met_count.push_back(g.met);
  write_uint64_dataset(c, group.get(), h5::kGoalMetCount, met_count);
}

/// /inputs: the data files' provenance, one row each (empty datasets when none).
void write_inputs(const Context& c, hid_t file, const RunResults& r) {
  Handle group = create_ordered_group(c, file, h5::kInputsGroup);
  write_plain_columns(c, group.get(), r.data_files);
}

/// Writes every object of the file; `threads` encode the large datasets' chunks.
void write_file(const Context& c, hid_t file, const RunResults& r, unsigned threads) {
  Handle checksum_attr = write_root_attributes(c, file, r);
  // The content checksum (one pass over every value, a serial hash) is computed on a thread of
  // its own while the datasets are encoded; its attribute, created in its place, gets the value
  // at the end.
  std::future<uint64_t> checksum;
  try {
    checksum =
        std::async(std::launch::async, [&r] { return content_checksum(r, kResultsFormatVersion); });
  } catch (const std::system_error&) {  // no thread to spare: compute it here
    checksum = std::async(std::launch::deferred,
                          [&r] { return content_checksum(r, kResultsFormatVersion); });
  }
  write_summary(c, file, r);
  write_replications(c, file, r, threads);
  write_pools(c, file, r, threads);
  if (r.timeseries_bins > 0) write_timeseries(c, file, r, threads);
  if (r.timeseries_bins == 0 && r.settling.bins > 0 &&
      r.settling.mean_in_use.size() == r.points * r.settling.bins)
    write_settling(c, file, r);
  write_pool_summary(c, file, r);
  write_sweep(c, file, r);
  if (!r.goals.empty()) write_goals(c, file, r, threads);
  if (r.job_replications > 0) write_jobs(c, file, r);
  write_inputs(c, file, r);
  write_dimensions(c, file, r);
  const uint64_t content = checksum.get();
  c.check_status(H5Awrite(checksum_attr.get(), H5T_NATIVE_UINT64, &content),
                 "writing " + hdf5_item_path(h5::kContentChecksum));
}

}  // namespace
}  // namespace hdf5_detail

OutputReport write_results_hdf5(const RunResults& results, const std::string& path,
                                const OutputOptions& options) {
  using namespace hdf5_detail;
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

}  // namespace gpucap
