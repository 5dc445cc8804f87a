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
  const bool reduce_here = block_moments.empty();  // else the device reduced the blocks

  // A point at a time, in two passes.
  // 1. Its rows (the scalars, then the pool values) are copied column by column into
  //    `by_column`, a block of kMomentBlock rows at a time: the block's rows (in cache once
  //    read) go out kGroup columns at a time, to a run of consecutive positions in each. (A
  //    gather of a few columns over all the rows would read each row's lines apart, one memory
  //    latency each.) On the way each column drops its NaNs (a block's defined values first in
  //    its part of the column), notes whether they all compare equal, and, unless the device
  //    did, reduces the block's moments by Welford's update in row order (moments.hpp): the same
  //    operations as block_moments, so the same bits, with a group's dependency chains
  //    overlapping.
  // 2. Each column closes the gaps its NaNs left between blocks (its defined values, in row
  //    order, as summarize's own pass would leave them) and is summarized: its blocks' moments
  //    merged in order, quantiles selected in the copy.
  // The copy is kept for the caller's next run (reused, not zeroed) up to kKeptCopy doubles
  // (64 MB), and given back after a larger run so that a long session (Jupyter) does not hold
  // a big run's copy.
  constexpr std::size_t kGroup = 8;
  constexpr std::size_t kKeptCopy = std::size_t{1} << 23;
  thread_local std::vector<double> by_column;
  if (by_column.size() < columns * replications) by_column.resize(columns * replications);
  struct GiveBackLarge {
    ~GiveBackLarge() {
      if (by_column.size() > kKeptCopy) std::vector<double>().swap(by_column);
    }
  } give_back_large;
  std::vector<Moments> in_blocks(reduce_here ? blocks * columns : 0);
  struct BlockPart {
    std::size_t defined;  ///< the block's values that are not NaN
    bool constant;        ///< they all compare equal to `first` (true when there are none)
    double first;         ///< the first of them
  };
  std::vector<BlockPart> parts(blocks * columns);
  for (std::size_t point = 0; point < points; ++point) {
    const double* scalar_rows = scalars.data() + point * replications * kScalarMetricCount;
    const double* pool_rows = pool_values.data() + point * replications * pool_stride;
    double* const copies = by_column.data();
    parallel_for(blocks, threads, [&](std::size_t b) {
      const std::size_t first = b * kMomentBlock;
      const std::size_t end = std::min<std::size_t>(replications, first + kMomentBlock);
      // Columns [column0, column0 + width) of rows `stride` doubles apart.
      const auto copy_columns = [&](const double* rows, std::size_t stride, std::size_t width,
                                    std::size_t column0) {
        for (std::size_t c0 = 0; c0 < width; c0 += kGroup) {
          const std::size_t group = std::min(kGroup, width - c0);
          double* const out = copies + (column0 + c0) * replications + first;
          std::size_t kept[kGroup] = {};
          bool constant[kGroup];
          double first_value[kGroup];
          double n[kGroup] = {}, mean[kGroup] = {}, m2[kGroup] = {};
          for (std::size_t j = 0; j < group; ++j) {
            constant[j] = true;
            first_value[j] = 0;
          }
          for (std::size_t r = first; r < end; ++r) {
            const double* row = rows + r * stride + c0;
            for (std::size_t j = 0; j < group; ++j) {
              const double x = row[j];
              const bool defined = x == x;
              out[j * replications + kept[j]] = x;
              if (kept[j] == 0) first_value[j] = x;
              constant[j] = constant[j] && (!defined || x == first_value[j]);
              kept[j] += defined;
              // add_to_moments, each operation done and kept where x is defined.
              const double n1 = n[j] + 1.0;
              const double delta = x - mean[j];
              const double mean1 = mean[j] + delta / n1;
              const double m21 = m2[j] + delta * (x - mean1);
              n[j] = defined ? n1 : n[j];
              mean[j] = defined ? mean1 : mean[j];
              m2[j] = defined ? m21 : m2[j];
            }
          }
          for (std::size_t j = 0; j < group; ++j) {
            const std::size_t c = column0 + c0 + j;
            parts[b * columns + c] = BlockPart{kept[j], constant[j], first_value[j]};
            if (reduce_here) in_blocks[b * columns + c] = Moments{n[j], mean[j], m2[j]};
          }
        }
      };
      copy_columns(scalar_rows, kScalarMetricCount, kScalarMetricCount, 0);
      copy_columns(pool_rows, pool_stride, pool_stride, kScalarMetricCount);
    });
    parallel_for(columns, threads, [&](std::size_t c) {
      Moments total;
      for (std::size_t b = 0; b < blocks; ++b)
        total = merge_moments(total, reduce_here ? in_blocks[b * columns + c]
                                                 : block_moments[(point * blocks + b) * columns + c]);
      double* const values = copies + c * replications;
      std::size_t kept = 0;
      bool constant = true;
      double first_value = 0;
      for (std::size_t b = 0; b < blocks; ++b) {
        const BlockPart& part = parts[b * columns + c];
        if (part.defined == 0) continue;
        if (kept == 0) first_value = part.first;
        constant = constant && part.constant && part.first == first_value;
        const std::size_t from = b * kMomentBlock;
        if (from != kept) std::memmove(values + kept, values + from, part.defined * sizeof(double));
        kept += part.defined;
      }
      const MetricRange range =
          c < kScalarMetricCount ? metric_range(kScalarMetricInfo[c])
                                 : metric_range(kPoolMetricInfo[(c - kScalarMetricCount) % kPoolMetricCount]);
      const MetricSummary s = summarize_defined(total, values, kept, constant, range);
      if (c < kScalarMetricCount)
        summary[point * kScalarMetricCount + c] = s;
      else
        pool_summary[point * pool_stride + (c - kScalarMetricCount)] = s;
    });
  }
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
