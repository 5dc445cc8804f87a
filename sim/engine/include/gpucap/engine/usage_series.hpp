// gpucap engine: the optional time series of GPUs in use per pool (scenario key
// `timeseries.step`), written straight into the replication's output row.
//
// Row layout: [pool][bin], bin b covering [b step, (b + 1) step) of [0, horizon] (the last bin
// ends at the horizon); for the settling probe one more row, of jobs waiting. While the replication runs a bin holds GPU-seconds in use; finish()
// divides by the bin's length, so each value is the mean number of GPUs in use over its bin.
// "In use" is what gpu_hours_used counts: jobs' runs and replicas' busy periods.
#pragma once
#include <cstdint>

#include "gpucap/arena_ptr.hpp"
#include "gpucap/portable.hpp"

namespace gpucap::engine {
GPUCAP_ARENA_NAMESPACE_BEGIN

struct UsageSeries {
  double* values = nullptr;  ///< [pool][bin]; null: no time series
  /// The row of jobs waiting after the pools' (CompiledModel::timeseries_queue_row), or null.
  double* queue = nullptr;
  double step_s = 0;
  uint32_t bins = 0;
  uint32_t pool_count = 0;

  GPUCAP_HD bool enabled() const { return values != nullptr && bins > 0; }

  GPUCAP_HD void clear() {
    if (!enabled()) return;
    for (uint32_t i = 0; i < pool_count * bins; ++i) values[i] = 0;
    if (queue)
      for (uint32_t b = 0; b < bins; ++b) queue[b] = 0;
  }

  /// `gpus` GPUs of `pool` in use over [from_s, to_s].
  GPUCAP_HD void add(uint32_t pool, double from_s, double to_s, double gpus) {
    if (!enabled()) return;
    add_to(values + static_cast<uint64_t>(pool) * bins, from_s, to_s, gpus);
  }

  /// `waiting` jobs waiting over [from_s, to_s], when the series has a queue row.
  GPUCAP_HD void waiting(double from_s, double to_s, double count) {
    if (queue && count > 0) add_to(queue, from_s, to_s, count);
  }

  /// `level` over [from_s, to_s] into the bins of `row`.
  GPUCAP_HD void add_to(double* row, double from_s, double to_s, double level) const {
    if (!(to_s > from_s)) return;
    for (uint32_t b = static_cast<uint32_t>(from_s / step_s); b < bins; ++b) {
      const double lo = b * step_s, hi = lo + step_s;
      const double a = from_s > lo ? from_s : lo;
      const double e = to_s < hi ? to_s : hi;
      if (e > a) row[b] += (e - a) * level;
      if (to_s <= hi) break;
    }
  }

  /// GPU-seconds per bin to mean GPUs in use.
  GPUCAP_HD void finish(double horizon_s) {
    if (!enabled()) return;
    for (uint32_t b = 0; b < bins; ++b) {
      const double lo = b * step_s;
      const double length = horizon_s - lo < step_s ? horizon_s - lo : step_s;
      for (uint32_t p = 0; p < pool_count; ++p) {
        double& v = values[static_cast<uint64_t>(p) * bins + b];
        v = length > 0 ? v / length : 0;
      }
      if (queue) queue[b] = length > 0 ? queue[b] / length : 0;
    }
  }
};

GPUCAP_ARENA_NAMESPACE_END
}  // namespace gpucap::engine
