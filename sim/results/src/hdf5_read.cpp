// gpucap: the HDF5 results file's reader. The file's bytes are read once and checked (user
// block) before HDF5 parses them; every count from the file is bounded before it sizes
// anything; the values read are checked against the file's content checksum.
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>
#include <vector>

#include "gpucap/detail/text.hpp"
#include "gpucap/hdf5_results.hpp"

#include "hdf5_handles.hpp"
#include "hdf5_integrity.hpp"
#include "hdf5_items.hpp"

namespace gpucap {
namespace hdf5_detail {
namespace {

/// Scalar metrics that files written before them lack. replica_preemptions and
/// requests_restarted read as 0 there, which is exact (such files could not run replicas on
/// spot or marketplace pools); the request waits read as NaN, not recorded. The deployment
/// metrics read as a run without deployments writes them (such files could have none): 0, and
/// NaN for the unserved fraction and the restore times (no observation). The cost by purchase
/// option reads as NaN: not recorded (the file's pool costs hold it, but not the pools' options).
/// The commitments' fees read as 0: files written before them had no billing commitments; the
/// queue's drift as NaN (not recorded). The LLM metrics read as NaN: files written before them
/// had no LLM service (a run without one writes NaN).
bool may_be_absent(std::size_t m) {
  if (m >= kTtftMeanS && m <= kCostPerMillionTokensUsd) return true;
  return m == kReplicaPreemptions || m == kRequestsRestarted ||
         (m >= kRequestWaitMeanS && m <= kRequestWaitP99S) ||
         (m >= kInstanceHoursDemanded && m <= kInstancesPeak) ||
         (m >= kCostOnDemandUsd && m <= kCostServerlessUsd) || m == kCostCommitmentsUsd ||
         m == kQueueLengthDrift;
}
double value_when_absent(std::size_t m) {
  const bool unobserved = (m >= kRequestWaitMeanS && m <= kRequestWaitP99S) ||
                          m == kUnservedFraction || (m >= kRestoreMeanS && m <= kRestoreP99S) ||
                          (m >= kCostOnDemandUsd && m <= kCostServerlessUsd) ||
                          m == kQueueLengthDrift ||
                          (m >= kTtftMeanS && m <= kCostPerMillionTokensUsd);
  return unobserved ? std::nan("") : 0.0;
}
static_assert(kInstanceHoursDemanded < kUnservedFraction && kRestoreP99S < kInstancesPeak,
              "the deployment metrics are one run of the table");

/// Pool metrics that files written before them lack: gpu_hours_up reads as NaN (not recorded);
/// utilization_of_quota as the file's `utilization`, which was of the quota then;
/// instance_hours_served as 0 (such files had no deployments).
bool pool_metric_may_be_absent(std::size_t m) {
  return m == kPoolGpuHoursUp || m == kPoolQuotaUtilization || m == kPoolInstanceHoursServed;
}
double pool_value_when_absent(std::size_t m) {
  return m == kPoolInstanceHoursServed ? 0.0 : std::nan("");
}

template <std::size_t N>
std::size_t metric_index(const Context& c, const MetricInfo (&table)[N], const std::string& name,
                         const std::string& what) {
  for (std::size_t i = 0; i < N; ++i) {
    if (name == table[i].name) return i;
  }
  c.fail(what + " names unknown metric '" + name + "'");
}

/// /jobs into r.jobs, r.job_classes and r.job_replications (wait_s is derived: not read).
void read_jobs(const Context& c, hid_t file, RunResults& r, int format) {
  Handle group = open_group(c, file, h5::kJobsGroup);
  const hid_t g = group.get();
  read_plain_attributes(c, g, h5::kJobsGroup, r, format);
  const hsize_t classes = column_length(c, g, h5::kJobClasses);
  const hsize_t n = column_length(c, g, h5::kJobId);
  r.job_classes = read_strings_dataset(c, g, h5::kJobClasses, {classes});
  read_plain_columns(c, g, r, n, r.jobs);
  for (std::size_t i = 0; i < r.jobs.size(); ++i) {
    const JobRecord& j = r.jobs[i];
    if (j.point >= r.points || j.job_class >= classes || j.pool < -1 ||
        j.pool >= static_cast<int64_t>(r.pool_count()))
      c.fail("job record " + std::to_string(i) + " of '/jobs' names a point, class or pool " +
             "that the file does not have");
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
  read_plain_columns(c, group.get(), r, n, r.goals);
  std::vector<double> met;
  read_metric_dataset(c, group.get(), h5::kGoalMet.parent, h5::kGoalMet.name,
                      {static_cast<hsize_t>(r.points), static_cast<hsize_t>(r.rows_per_point()), n},
                      met);
  r.goal_met.resize(met.size());
  for (std::size_t i = 0; i < met.size(); ++i) {
    if (met[i] != 0 && met[i] != 1)
      c.fail("dataset '" + hdf5_item_path(h5::kGoalMet) + "' holds a value other than 0 or 1");
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

/// The root attributes into `r`; returns the file's format version.
int read_root_attributes(const Context& c, hid_t file, RunResults& r) {
  const int32_t format = read_attr<int32_t>(c, file, h5::kFormatVersion);
  if (format < 1 || format > kResultsFormatVersion) {
    c.fail("unsupported " + std::string(h5::kFormatVersion.name) + " " + std::to_string(format) +
           " (this build reads 1 to " + std::to_string(kResultsFormatVersion) + ")");
  }
  read_plain_attributes(c, file, h5::kRoot, r, format);
  if (format < 2) r.scenario_original_text = r.scenario_text;
  return format;
}

/// Per-replication scalars back to [point][replication][metric]; returns the metrics the file
/// lacks (older files: see may_be_absent), value_when_absent in every replication.
std::vector<std::size_t> read_replications(const Context& c, hid_t file, RunResults& r) {
  const hsize_t hp = r.points, hr = r.rows_per_point();
  std::vector<std::size_t> absent_metrics;
  const char* const parent = h5::kScalarMetric.parent;
  Handle group = open_group(c, file, h5::kReplicationsGroup);
  {  // the attributes must agree with the data before they size anything
    const std::string what = "dataset '" + join_path(parent, kScalarMetricInfo[0].name) + "'";
    Handle dset = open_dataset(c, group.get(), parent, kScalarMetricInfo[0].name);
    expect_dims(c, dataset_dims(c, dset.get(), what), {hp, hr}, what);
  }
  r.scalars.assign(r.points * r.rows_per_point() * kScalarMetricCount, 0.0);
  std::vector<double> data;
  for (std::size_t m = 0; m < kScalarMetricCount; ++m) {
    if (may_be_absent(m) && H5Lexists(group.get(), kScalarMetricInfo[m].name, H5P_DEFAULT) <= 0) {
      absent_metrics.push_back(m);  // the same value in every replication
      const double fill = value_when_absent(m);
      for (std::size_t i = m; i < r.scalars.size(); i += kScalarMetricCount) r.scalars[i] = fill;
      continue;
    }
    read_metric_dataset(c, group.get(), parent, kScalarMetricInfo[m].name, {hp, hr}, data);
    for (std::size_t i = 0; i < data.size(); ++i) r.scalars[i * kScalarMetricCount + m] = data[i];
  }
  return absent_metrics;
}

/// Pools: names, then values back to [point][replication][pool][metric]; returns the pool
/// metrics the file lacks (see pool_metric_may_be_absent).
std::vector<std::size_t> read_pools(const Context& c, hid_t file, RunResults& r) {
  const hsize_t hp = r.points, hr = r.rows_per_point();
  Handle group = open_group(c, file, h5::kPoolsGroup);
  {
    const std::string what = "dataset '" + hdf5_item_path(h5::kPoolNames) + "'";
    Handle dset = open_dataset(c, group.get(), h5::kPoolNames);
    const std::vector<hsize_t> dims = dataset_dims(c, dset.get(), what);
    if (dims.size() != 1) c.fail(what + " is not one-dimensional");
    r.pool_names = read_strings(c, dset.get(), false, what);
  }
  const std::size_t pools = r.pool_count();
  r.pool_values.assign(r.points * r.rows_per_point() * pools * kPoolMetricCount, 0.0);
  std::vector<double> data;
  std::vector<std::size_t> absent;
  for (std::size_t m = 0; m < kPoolMetricCount; ++m) {
    if (pool_metric_may_be_absent(m) &&
        H5Lexists(group.get(), kPoolMetricInfo[m].name, H5P_DEFAULT) <= 0) {
      absent.push_back(m);
      static_assert(kPoolUtilization < kPoolQuotaUtilization, "utilization is read first");
      for (std::size_t i = m; i < r.pool_values.size(); i += kPoolMetricCount)
        r.pool_values[i] = m == kPoolQuotaUtilization
                               ? r.pool_values[i - kPoolQuotaUtilization + kPoolUtilization]
                               : pool_value_when_absent(m);
      continue;
    }
    read_metric_dataset(c, group.get(), h5::kPoolMetric.parent, kPoolMetricInfo[m].name,
                        {hp, hr, static_cast<hsize_t>(pools)}, data);
    for (std::size_t i = 0; i < data.size(); ++i) {
      r.pool_values[i * kPoolMetricCount + m] = data[i];
    }
  }
  return absent;
}

/// The time series (the file has /timeseries).
void read_timeseries(const Context& c, hid_t file, RunResults& r, int format) {
  const hsize_t hp = r.points, hr = r.rows_per_point();
  Handle group = open_group(c, file, h5::kTimeseriesGroup);
  read_plain_attributes(c, group.get(), h5::kTimeseriesGroup, r, format);
  const std::string what = "dataset '" + hdf5_item_path(h5::kGpusInUse) + "'";
  Handle dset = open_dataset(c, group.get(), h5::kGpusInUse);
  const std::vector<hsize_t> dims = dataset_dims(c, dset.get(), what);
  if (dims.size() != 4) c.fail(what + " is not [points, replications, pools, bins]");
  r.timeseries_bins = static_cast<std::size_t>(dims[3]);
  read_metric_dataset(c, group.get(), h5::kGpusInUse.parent, h5::kGpusInUse.name,
                      {hp, hr, static_cast<hsize_t>(r.pool_count()), dims[3]}, r.timeseries);
}

/// The settling probe (the file has /settling): its series, [P * B].
void read_settling(const Context& c, hid_t file, RunResults& r, int format) {
  Handle group = open_group(c, file, h5::kSettlingGroup);
  read_plain_attributes(c, group.get(), h5::kSettlingGroup, r, format);
  const std::string what = "dataset '" + hdf5_item_path(h5::kSettlingMean) + "'";
  Handle dset = open_dataset(c, group.get(), h5::kSettlingMean);
  const std::vector<hsize_t> dims = dataset_dims(c, dset.get(), what);
  if (dims.size() != 1 || r.points == 0 || dims[0] % r.points != 0 || dims[0] == 0 ||
      dims[0] / r.points > 1000000)
    c.fail(what + " is not [points * bins] with at most 10^6 bins per point");
  r.settling.bins = static_cast<std::size_t>(dims[0] / r.points);
  r.settling.mean_in_use.resize(static_cast<std::size_t>(dims[0]));
  c.check_status(H5Dread(dset.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                         r.settling.mean_in_use.data()),
                 "reading " + what);
  if (!(r.settling.step_s > 0) || r.settling.replications == 0)
    c.fail("group '" + hdf5_item_path(h5::kSettlingGroup) +
           "' needs step_s > 0 and replications > 0");
  // Jobs waiting: absent from files written before it.
  if (H5Lexists(group.get(), h5::kSettlingWaiting.name, H5P_DEFAULT) > 0) {
    const std::string wwhat = "dataset '" + hdf5_item_path(h5::kSettlingWaiting) + "'";
    Handle wset = open_dataset(c, group.get(), h5::kSettlingWaiting);
    const std::vector<hsize_t> wdims = dataset_dims(c, wset.get(), wwhat);
    if (wdims.size() != 1 || wdims[0] != dims[0])
      c.fail(wwhat + " does not have the shape of '" + hdf5_item_path(h5::kSettlingMean) + "'");
    r.settling.mean_waiting.resize(static_cast<std::size_t>(wdims[0]));
    c.check_status(H5Dread(wset.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                           r.settling.mean_waiting.data()),
                   "reading " + wwhat);
  }
}

/// /summary (and /difference_summary when the file keeps fewer rows than ran): rows are placed
/// by (point, metric name), so their order does not matter. A metric the file lacks is
/// summarized from its zeros.
void read_summary(const Context& c, hid_t file, RunResults& r,
                  const std::vector<std::size_t>& absent_metrics) {
  const std::size_t points = r.points, reps = r.rows_per_point();
  const std::size_t count = points * kScalarMetricCount;
  {
    const std::string what = "dataset '" + hdf5_item_path(h5::kSummary) + "'";
    const auto rows = read_compound_dataset<SummaryRow>(
        c, file, h5::kSummary, false, points * (kScalarMetricCount - absent_metrics.size()));
    r.summary.assign(count, MetricSummary{});
    std::vector<char> seen(count, 0);
    for (const std::size_t m : absent_metrics)
      for (std::size_t p = 0; p < points; ++p) {
        const double* first = r.scalars.data() + p * reps * kScalarMetricCount + m;
        r.summary[p * kScalarMetricCount + m] = summarize(
            column_moments(first, reps, kScalarMetricCount),
            std::vector<double>(reps, value_when_absent(m)), metric_range(kScalarMetricInfo[m]));
        seen[p * kScalarMetricCount + m] = 1;
      }
    place_scalar_summaries(c, rows, points, what, seen, r.summary);
  }
  if (!r.all_rows()) {  // the differences from point 0, over every replication
    const std::string what = "dataset '" + hdf5_item_path(h5::kDifferenceSummary) + "'";
    const auto rows =
        read_compound_dataset<SummaryRow>(c, file, h5::kDifferenceSummary, false,
                                          points * (kScalarMetricCount - absent_metrics.size()));
    r.difference_summary.assign(count, MetricSummary{});
    std::vector<char> seen(count, 0);
    place_scalar_summaries(c, rows, points, what, seen, r.difference_summary);
    // A metric the file lacks has the same value in every replication: no difference (0), or
    // NaN where that value is NaN.
    for (const std::size_t m : absent_metrics)
      for (std::size_t p = 0; p < points; ++p)
        r.difference_summary[p * kScalarMetricCount + m] = summarize(
            std::vector<double>(reps, value_when_absent(m)), metric_range(kScalarMetricInfo[m]));
  }
}

/// /pool_summary: rows placed by (point, pool, metric name); the summaries of `absent` pool
/// metrics follow the values read_pools gave them.
void read_pool_summary(const Context& c, hid_t file, RunResults& r,
                       const std::vector<std::size_t>& absent) {
  const std::size_t points = r.points, pools = r.pool_count();
  const std::size_t count = points * pools * kPoolMetricCount;
  const std::string what = "dataset '" + hdf5_item_path(h5::kPoolSummary) + "'";
  const auto rows = read_compound_dataset<PoolSummaryRow>(
      c, file, h5::kPoolSummary, true, points * pools * (kPoolMetricCount - absent.size()));
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
  for (const std::size_t m : absent)
    for (std::size_t i = m; i < count; i += kPoolMetricCount)
      r.pool_summary[i] =
          m == kPoolQuotaUtilization
              ? r.pool_summary[i - kPoolQuotaUtilization + kPoolUtilization]
              : summarize(std::vector<double>(r.rows_per_point(), pool_value_when_absent(m)),
                          metric_range(kPoolMetricInfo[m]));
}

/// /sweep: the varied parameters and their values at every point.
void read_sweep(const Context& c, hid_t file, RunResults& r) {
  const std::size_t points = r.points;
  Handle group = open_group(c, file, h5::kSweepGroup);
  const int32_t params = read_attr<int32_t>(c, group.get(), h5::kSweepParameters);
  if (params < 0)
    c.fail(std::string("attribute '") + h5::kSweepParameters.name + "' of '" +
           h5::kSweepParameters.parent + "' is negative");
  if (params == 0) return;
  const hsize_t hparams = static_cast<hsize_t>(params);
  const std::vector<std::string> paths =
      read_strings_dataset(c, group.get(), h5::kSweepPaths, {hparams});
  const std::vector<std::string> values =
      read_strings_dataset(c, group.get(), h5::kSweepValues, {hparams, points});
  r.sweep.resize(paths.size());
  for (std::size_t i = 0; i < paths.size(); ++i) {
    r.sweep[i].path = paths[i];
    r.sweep[i].values.assign(values.begin() + static_cast<std::ptrdiff_t>(i * points),
                             values.begin() + static_cast<std::ptrdiff_t>((i + 1) * points));
  }
}

/// The data files' provenance (format 3 on; older files have none).
void read_inputs(const Context& c, hid_t file, RunResults& r) {
  Handle group = open_group(c, file, h5::kInputsGroup);
  read_plain_columns(c, group.get(), r, column_length(c, group.get(), h5::kInputPath),
                     r.data_files);
}

/// Refuses a file whose values do not match its content checksum (format 2 on).
void verify_content(const Context& c, hid_t file, const RunResults& r, int format,
                    const AbsentMetrics& absent) {
  const uint64_t stored = read_attr<uint64_t>(c, file, h5::kContentChecksum);
  const uint64_t computed = content_checksum(r, format, absent);
  if (stored != computed) {
    char detail[96];
    std::snprintf(detail, sizeof detail, "stored %016llx, computed %016llx",
                  static_cast<unsigned long long>(stored),
                  static_cast<unsigned long long>(computed));
    c.fail(std::string("the file is corrupt: its content does not match its checksum (") + detail +
           ")");
  }
}

RunResults read_file(const Context& c, hid_t file) {
  RunResults r;
  const int format = read_root_attributes(c, file, r);
  AbsentMetrics absent;
  absent.scalar = read_replications(c, file, r);
  absent.pool = read_pools(c, file, r);
  if (H5Lexists(file, h5::kTimeseriesGroup.name, H5P_DEFAULT) > 0)
    read_timeseries(c, file, r, format);
  else if (H5Lexists(file, h5::kSettlingGroup.name, H5P_DEFAULT) > 0)
    read_settling(c, file, r, format);
  read_summary(c, file, r, absent.scalar);
  read_pool_summary(c, file, r, absent.pool);
  read_sweep(c, file, r);
  if (format >= 3) read_inputs(c, file, r);
  if (format >= 4) {
    if (H5Lexists(file, h5::kGoalsGroup.name, H5P_DEFAULT) > 0) read_goals(c, file, r);
    if (H5Lexists(file, h5::kJobsGroup.name, H5P_DEFAULT) > 0) read_jobs(c, file, r, format);
  }
  if (format >= 2) verify_content(c, file, r, format, absent);
  return r;
}

}  // namespace
}  // namespace hdf5_detail

RunResults read_results_hdf5(const std::string& path) {
  using namespace hdf5_detail;
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
