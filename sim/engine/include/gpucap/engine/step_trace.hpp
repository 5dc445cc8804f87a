// gpucap engine: a step function of time read from the model's table: value k holds over
// [k step_s, (k + 1) step_s) of trace time; after the last value the trace repeats (price
// traces, and availability by default), shows 0 or holds its last value (availability's
// `after_end`). Availability traces (instances) and price traces (USD per GPU-second) are both
// one. A replication places its time 0 at an origin in trace time (fixed, or uniform over one
// period), rounded down to a multiple of kOriginQuantumS: then a step boundary's replication
// time, k step - origin, is exact (for steps that are whole seconds, or multiples of the
// quantum, and times below 2^33 s), and so is the time between two boundaries, so that events
// simultaneous in trace time stay simultaneous in the run (a job's checkpoint write that ends
// exactly at a capacity drop is saved at any origin; docs/scenario-format.md's rule).
#pragma once
#include <cstdint>

#include "gpucap/arena_ptr.hpp"
#include "gpucap/compiled_model.hpp"
#include "gpucap/portable.hpp"

namespace gpucap::engine {
GPUCAP_ARENA_NAMESPACE_BEGIN

struct StepTrace {
  /// 2^-20 s (about 0.95 us): the grid of trace origins. Every multiple of it below 2^33 s
  /// (272 years) is a double, and so is every sum and difference of two of them.
  static constexpr double kOriginQuantumS = 1.0 / 1048576.0;

  /// `origin_s` (>= 0) rounded down to the grid of origins: exact arithmetic (a power of two
  /// scales exactly), the same bits on every backend.
  GPUCAP_HD static double origin_on_grid(double origin_s) {
    return __builtin_floor(origin_s * 1048576.0) * kOriginQuantumS;
  }

  const double* values = nullptr;  ///< `count` values, count > 0
  uint32_t count = 0;
  double step_s = 0;  ///< > 0
  TraceEnd after_end = TraceEnd::repeat;

  GPUCAP_HD static StepTrace of(const double* table, uint32_t offset, uint32_t count, double step_s,
                                TraceEnd after_end = TraceEnd::repeat) {
    return StepTrace{table + offset, count, step_s, after_end};
  }

  /// The value of step k.
  GPUCAP_HD double at_step(uint64_t k) const {
    if (k < count || after_end == TraceEnd::repeat) return values[k % count];
    return after_end == TraceEnd::last ? values[count - 1] : 0.0;
  }
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

GPUCAP_ARENA_NAMESPACE_END
}  // namespace gpucap::engine
