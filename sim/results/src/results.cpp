#include "gpucap/results.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

#include "gpucap/parallel_for.hpp"

namespace gpucap {

MetricRange metric_range(const MetricInfo& info) {
  // Every metric gpucap reports is a count, a cost, a time or a share: none is negative.
  MetricRange range;
  range.low = 0.0;
  if (std::strcmp(info.unit, "fraction") == 0) range.high = 1.0;
  return range;
}

void RunResults::summarize_all(unsigned threads) {
  if (!all_rows())
    throw std::logic_error("RunResults::summarize_all needs every row; a fold summarizes others");
  summary.assign(points * kScalarMetricCount, MetricSummary{});
  pool_summary.assign(points * pool_count() * kPoolMetricCount, MetricSummary{});
  const std::size_t columns = moment_columns();
  const std::size_t blocks = (replications + kMomentBlock - 1) / kMomentBlock;
  if (!block_moments.empty() && block_moments.size() != points * blocks * columns)
    throw std::logic_error("RunResults::block_moments has the wrong shape");
  const std::size_t pool_stride = pool_count() * kPoolMetricCount;

  // Column c of a point: its moments, merged from the device's blocks or reduced here from the
  // column's gathered copy (contiguous: the same values in the same order as the rows').
  const auto moments_of = [&](std::size_t point, std::size_t c, const std::vector<double>& column) {
    if (block_moments.empty()) return column_moments(column.data(), replications, 1);
    Moments total;
    for (std::size_t b = 0; b < blocks; ++b)
      total = merge_moments(total, block_moments[(point * blocks + b) * columns + c]);
    return total;
  };

  // One task per (point, block of kGatherColumns adjacent columns): the scalar metrics, then
  // the pools' metrics. A block gathers its columns in one pass over the rows (a cache line of
  // each row serves them all, rather than one pass a column), then summarizes each column: the
  // same values in the same order as a column's own pass.
  constexpr std::size_t kGatherColumns = 8;
  const std::size_t scalar_blocks = (kScalarMetricCount + kGatherColumns - 1) / kGatherColumns;
  const std::size_t pool_blocks = (pool_stride + kGatherColumns - 1) / kGatherColumns;
  const std::size_t per_point = scalar_blocks + pool_blocks;
  parallel_for(points * per_point, threads, [&](std::size_t task) {
    const std::size_t point = task / per_point, block = task % per_point;
    const bool scalar = block < scalar_blocks;
    const std::size_t stride = scalar ? std::size_t{kScalarMetricCount} : pool_stride;
    const std::size_t first = (scalar ? block : block - scalar_blocks) * kGatherColumns;
    const std::size_t width = std::min(kGatherColumns, stride - first);
    const double* rows = scalar ? scalars.data() + point * replications * kScalarMetricCount
                                : pool_values.data() + point * replications * pool_stride;
    thread_local std::vector<double> columns[kGatherColumns];
    for (std::size_t j = 0; j < width; ++j) columns[j].resize(replications);
    for (std::size_t r = 0; r < replications; ++r) {
      const double* row = rows + r * stride + first;
      for (std::size_t j = 0; j < width; ++j) columns[j][r] = row[j];
    }
    for (std::size_t j = 0; j < width; ++j) {
      const std::size_t k = first + j;
      if (scalar) {
        summary[point * kScalarMetricCount + k] = summarize_in_place(
            moments_of(point, k, columns[j]), columns[j], metric_range(kScalarMetricInfo[k]));
      } else {
        pool_summary[point * pool_stride + k] =
            summarize_in_place(moments_of(point, kScalarMetricCount + k, columns[j]), columns[j],
                               metric_range(kPoolMetricInfo[k % kPoolMetricCount]));
      }
    }
  });
  evaluate_goals();
}

void RunResults::evaluate_goals() {
  const std::size_t g_count = goals.size(), rows = rows_per_point();
  goal_met.assign(points * rows * g_count, 0);
  const std::size_t pool_stride = pool_count() * kPoolMetricCount;
  for (std::size_t point = 0; point < points; ++point)
    for (std::size_t r = 0; r < rows; ++r) {
      const std::size_t row = point * rows + r;
      for (std::size_t g = 0; g < g_count; ++g)
        goal_met[row * g_count + g] =
            goal_met_in(goals[g], scalars.data() + row * kScalarMetricCount,
                        pool_values.data() + row * pool_stride)
                ? 1
                : 0;
    }
  if (all_rows()) summarize_goals();
}

void RunResults::summarize_goals() {
  const std::size_t g_count = goals.size();
  if (goal_met.size() != points * replications * g_count)
    throw std::logic_error("RunResults::goal_met has the wrong shape");
  goal_summary.assign(points * g_count, GoalSummary{});
  for (std::size_t point = 0; point < points; ++point)
    for (std::size_t g = 0; g < g_count; ++g) {
      uint64_t met = 0;
      for (std::size_t r = 0; r < replications; ++r)
        met += goal_met[(point * replications + r) * g_count + g];
      goal_summary[point * g_count + g] = summarize_goal(met, replications);
    }
}

int RunResults::goal_index(const std::string& name) const {
  for (std::size_t g = 0; g < goals.size(); ++g)
    if (goals[g].name == name) return static_cast<int>(g);
  return -1;
}

MetricSummary paired_difference(const RunResults& r, ScalarMetric m, std::size_t a, std::size_t b) {
  if (!r.all_rows()) {
    if (a == b) {  // zero in every replication
      MetricSummary zero;
      zero.n = r.replications;
      if (zero.n < 2) zero.std = zero.ci95_low = zero.ci95_high = std::nan("");
      return zero;
    }
    if (r.difference_summary.size() != r.points * kScalarMetricCount || (a != 0 && b != 0))
      throw std::invalid_argument(
          "the paired difference of points " + std::to_string(a) + " and " + std::to_string(b) +
          " needs every replication's rows, and this run kept " +
          std::to_string(r.rows_per_point()) + " of " + std::to_string(r.replications) +
          " (with fewer rows only differences from point 0 are summarized): run with --rows all "
          "(Python rows=\"all\")");
    if (b == 0) return r.difference_summary[a * kScalarMetricCount + m];
    // point 0 minus point b: the negated difference (a t interval is symmetric).
    MetricSummary d = r.difference_summary[b * kScalarMetricCount + m];
    if (d.n == 0) return d;  // defined in no replication
    d.mean = -d.mean;
    std::swap(d.ci95_low, d.ci95_high);
    d.ci95_low = -d.ci95_low;
    d.ci95_high = -d.ci95_high;
    return d;
  }
  std::vector<double> d(r.replications);
  for (std::size_t i = 0; i < r.replications; ++i) d[i] = r.scalar(a, i, m) - r.scalar(b, i, m);
  return summarize(std::move(d));
}

}  // namespace gpucap
