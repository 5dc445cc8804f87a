#include "gpucap/results.hpp"

namespace gpucap {

void RunResults::summarize_all() {
  summary.assign(points * kScalarMetricCount, MetricSummary{});
  pool_summary.assign(points * pool_count() * kPoolMetricCount, MetricSummary{});
  std::vector<double> column(replications);
  for (std::size_t point = 0; point < points; ++point) {
    for (uint32_t m = 0; m < kScalarMetricCount; ++m) {
      for (std::size_t r = 0; r < replications; ++r)
        column[r] = scalar(point, r, static_cast<ScalarMetric>(m));
      summary[point * kScalarMetricCount + m] = summarize(column);
    }
    for (std::size_t pool = 0; pool < pool_count(); ++pool) {
      for (uint32_t m = 0; m < kPoolMetricCount; ++m) {
        for (std::size_t r = 0; r < replications; ++r)
          column[r] = pool_value(point, r, pool, static_cast<PoolMetric>(m));
        pool_summary[(point * pool_count() + pool) * kPoolMetricCount + m] = summarize(column);
      }
    }
  }
}

}  // namespace gpucap
