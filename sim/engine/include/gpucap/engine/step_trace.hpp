// gpucap engine: a step function of time read from the model's table, repeating: value k
// holds over [k step_s, (k + 1) step_s) of trace time. Availability traces (instances) and
// price traces (USD per GPU-second) are both one. A replication places its time 0 at an origin
// in trace time (fixed, or uniform over one period).
#pragma once
#include <cstdint>

#include "gpucap/portable.hpp"

namespace gpucap::engine {

struct StepTrace {
  const double* values = nullptr;  ///< `count` values, count > 0
  uint32_t count = 0;
  double step_s = 0;  ///< > 0

  GPUCAP_HD static StepTrace of(const double* table, uint32_t offset, uint32_t count,
                                double step_s) {
    return StepTrace{table + offset, count, step_s};
  }

  /// The value of step k (the trace repeats).
  GPUCAP_HD double at_step(uint64_t k) const { return values[k % count]; }
  /// The step that trace time t (>= 0) falls in.
  GPUCAP_HD uint64_t step_at(double trace_time_s) const {
    return static_cast<uint64_t>(trace_time_s / step_s);
  }
  /// One repetition, s.
  GPUCAP_HD double period_s() const { return step_s * count; }
  /// Replication time at which step k begins, with the replication's t = 0 at `origin_s`.
  GPUCAP_HD double start_of_step(uint64_t k, double origin_s) const {
    return static_cast<double>(k) * step_s - origin_s;
  }
};

}  // namespace gpucap::engine
