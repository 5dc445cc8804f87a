// gpucap: the results of a run: per-replication metric rows, pool rows and their summaries.
#pragma once
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "gpucap/data_file.hpp"
#include "gpucap/goal.hpp"
#include "gpucap/goal_summary.hpp"
#include "gpucap/job_record.hpp"
#include "gpucap/metrics.hpp"
#include "gpucap/summary.hpp"

namespace gpucap {

/// One varied parameter of a sweep: a dotted scenario path and its value at each point.
struct SweepParameter {
  std::string path;
  std::vector<std::string> values;  ///< one per point, as written by the user
};

/// Everything one run produced. Layouts are row-major:
///   scalars      [point][replication][kScalarMetricCount]
///   pool_values  [point][replication][pool][kPoolMetricCount]
///   summary      [point][kScalarMetricCount]
///   pool_summary [point][pool][kPoolMetricCount]
/// GPUs in use over the horizon, summed over pools, and jobs waiting, each averaged over a run's
/// first replications (the settling probe of a run without a time series: settling_probe.hpp),
/// for the start-up transient warning (result_warnings.hpp); results files keep them as
/// /settling. Empty when not probed.
struct SettlingSeries {
  std::size_t replications = 0;  ///< replications averaged
  double step_s = 0;             ///< bin width
  std::size_t bins = 0;
  std::vector<double> mean_in_use;   ///< [point][bin], GPUs
  std::vector<double> mean_waiting;  ///< [point][bin], jobs waiting (empty in older files)
};

struct RunResults {
  std::string gpucap_version;
  std::string scenario_name;
  std::string scenario_text;  ///< the full scenario (overrides applied), for reproducibility
  std::string scenario_original_text;  ///< the scenario as read, before overrides
  /// The overrides applied to it (dotted path, YAML value), in order; a sweep's own values are
  /// in `sweep`.
  std::vector<std::pair<std::string, std::string>> scenario_overrides;
  /// The files the run read (the scenario file, traces, catalogs, samples): an output never
  /// replaces them. In memory only (not stored in results files).
  std::vector<std::string> input_files;
  /// Provenance of the data files read (every point's, each once): path, size and SHA-256.
  /// Stored in results files (/inputs, from format version 3).
  std::vector<DataFileRecord> data_files;
  std::string backend;  ///< "cpu-openmp", "cpu-serial", "cuda", "thrust-omp"
  std::string device;   ///< what ran it, e.g. "NVIDIA H200 (sm_90)" or "host, 2 threads"
  /// Why `--backend auto` chose `backend`: the cost model's one line (backend_choice.hpp), e.g.
  /// "cpu: expected 0.46 s on 16 CPU threads against ..."; "" when the backend was named.
  std::string backend_choice;
  uint64_t seed = 0;
  std::size_t points = 1;
  std::size_t replications = 0;
  uint64_t first_replication = 0;  ///< rows are replications [first, first + replications)
  int threads = 1;                 ///< CPU threads, or device worker threads
  double wall_time_s = 0;
  /// How the replication count was chosen: empty for a fixed count, else the stopping rule
  /// and its outcome, e.g. "relative half-width of the 95% interval <= 0.01 for cost: reached
  /// at 3072 replications (worst 0.0098)".
  std::string stopping_rule;
  std::vector<std::string> pool_names;
  std::vector<SweepParameter> sweep;  ///< empty for a plain run (one point)

  /// Rows kept per point: scalars, pool_values, timeseries and goal_met hold replications
  /// [first_replication, first_replication + rows_per_point()) of each point. Every one
  /// (kAllRows) unless the run was asked to keep fewer (--rows none | first N); the summaries
  /// cover all `replications` either way.
  static constexpr std::size_t kAllRows = std::numeric_limits<std::size_t>::max();
  std::size_t kept_rows = kAllRows;

  std::vector<double> scalars;
  std::vector<double> pool_values;
  /// GPUs in use per pool over time, [point][replication][pool][bin] (scenario key
  /// `timeseries`; empty when not recorded). Bin b covers [b step, (b + 1) step).
  double timeseries_step_s = 0;
  std::size_t timeseries_bins = 0;
  std::vector<double> timeseries;
  SettlingSeries settling;  ///< when timeseries is empty: the settling probe's mean series
  std::vector<MetricSummary> summary;
  std::vector<MetricSummary> pool_summary;
  /// When not every row is kept: the paired difference of each scalar metric from point 0,
  /// [point][metric] (what paired_difference(r, m, p, 0) returns; its percentiles are NaN).
  /// Empty when every row is kept (paired_difference computes it from the rows).
  std::vector<MetricSummary> difference_summary;
  /// The scenario's goals (the same at every point), whether each replication met each,
  /// [point][replication][goal] (1: met), and their summaries, [point][goal].
  std::vector<GoalSpec> goals;
  std::vector<uint8_t> goal_met;
  std::vector<GoalSummary> goal_summary;
  /// Per-job records (scenario key `records.jobs`): every job of replications
  /// [first_replication, first_replication + job_replications) of each point, by point, then
  /// replication, then job id; job_classes names the workloads (JobRecord::job_class). Empty
  /// (job_replications 0) when not recorded.
  std::size_t job_replications = 0;
  std::vector<std::string> job_classes;
  std::vector<JobRecord> jobs;
  /// Moments a device backend reduced, [point][block][column] with block of kMomentBlock
  /// replications and moment_columns() columns (the scalars, then the pool values); empty when
  /// the host reduces them. Either way the summaries are the same bits.
  std::vector<Moments> block_moments;

  std::size_t pool_count() const { return pool_names.size(); }
  std::size_t rows_per_point() const { return kept_rows < replications ? kept_rows : replications; }
  bool all_rows() const { return kept_rows >= replications; }
  std::size_t moment_columns() const {
    return kScalarMetricCount + pool_count() * kPoolMetricCount;
  }
  double scalar(std::size_t point, std::size_t rep, ScalarMetric m) const {
    return scalars[(point * rows_per_point() + rep) * kScalarMetricCount + m];
  }
  double pool_value(std::size_t point, std::size_t rep, std::size_t pool, PoolMetric m) const {
    return pool_values[((point * rows_per_point() + rep) * pool_count() + pool) * kPoolMetricCount +
                       m];
  }
  const MetricSummary& summary_of(std::size_t point, ScalarMetric m) const {
    return summary[point * kScalarMetricCount + m];
  }
  const GoalSummary& goal_summary_of(std::size_t point, std::size_t goal) const {
    return goal_summary[point * goals.size() + goal];
  }
  /// Index of the goal called `name`, or -1.
  int goal_index(const std::string& name) const;

  /// Fills summary and pool_summary from scalars and pool_values (and block_moments if set),
  /// and goal_met and goal_summary from the goals and the rows. The metrics' summaries are
  /// computed on up to `threads` threads (0: every core), with the same bits on any count.
  /// Every row must be kept (all_rows(); otherwise SummaryFold gives the summaries).
  void summarize_all(unsigned threads = 1);
  /// Fills goal_met from the kept rows, and goal_summary from goal_met when they are all.
  void evaluate_goals();
  /// Fills goal_summary from goal_met (every row kept).
  void summarize_goals();
};

/// Summary of metric m at point a minus point b, replication by replication. The points share
/// their random numbers (common random numbers), so the interval is that of a paired
/// difference, usually far narrower than the two points' own intervals.
/// The values a metric can take (its interval is clipped to them): [0, 1] for shares, else
/// [0, infinity).
MetricRange metric_range(const MetricInfo& info);

/// With only some rows kept, the differences from point 0 (either way round) come from
/// difference_summary; others throw std::invalid_argument (they need every row).
MetricSummary paired_difference(const RunResults& r, ScalarMetric m, std::size_t a, std::size_t b);

}  // namespace gpucap
