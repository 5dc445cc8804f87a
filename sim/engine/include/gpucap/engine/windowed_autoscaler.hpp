// gpucap engine: the windowed autoscaler of an inference service (Knative's KPA model), the
// decision it takes on each tick. The fleet (fleet_autoscaling.hpp) applies it.
//
// The observed concurrency is the service's requests in the system (in service + waiting), a
// piecewise-constant function of time. Its integral over each tick interval ((k-1) tick, k tick]
// is exact (summed at every change); the history keeps the last stable_ticks of them. At tick k:
//
//   stable = (sum of the last min(k, stable_ticks) integrals) / (that many ticks x tick_s)
//   panic  = (sum of the last min(k, panic_ticks) integrals)  / (that many ticks x tick_s)
//   want_stable = ceil(stable / target_concurrency), want_panic = ceil(panic / target)
//   over  = want_panic / max(1, warm replicas) >= panic_threshold
//   panic mode starts (or is extended) at every tick that is `over`; it ends at the first tick
//   that is not over and comes more than one stable window after the last tick that was.
//   desired = want_stable; in panic max(want_stable, want_panic) and never below the most
//   desired since panic began (no scale-down in panic).
//   scale-down delay: the count applied is the largest desired over the ticks of the last
//   delay_ticks x tick_s (both ends included), so a lower count takes effect scale_down_delay
//   after the first tick that wanted it; a higher one at once.
//   Finally clamped to [min_replicas, max_replicas].
//
// Units: times in s, integrals in request-seconds, counts in replicas. Everything is a fixed
// sequence of double operations: the same bits on every backend.
#pragma once
#include <cstdint>

#include "gpucap/arena_ptr.hpp"
#include "gpucap/compiled_model.hpp"
#include "gpucap/portable.hpp"

namespace gpucap::engine {
GPUCAP_ARENA_NAMESPACE_BEGIN

/// Per service with a windowed autoscaler (the arena's autoscaler part, indexed by service).
struct AutoscalerState {
  double area;           ///< integral of requests in the system since the last tick, request-s
  double changed_s;      ///< when `area` was last brought up to date
  double panic_since_s;  ///< the last tick that was over the panic threshold; < 0: not in panic
  uint32_t ticks;        ///< ticks done
  uint32_t max_panic;    ///< the most replicas desired since panic began
  uint32_t desired;      ///< the last decision (replicas), clamped
  uint32_t unused_;
};

struct WindowedAutoscaler {
  /// Before the first tick: nothing observed, min_replicas desired.
  GPUCAP_HD static void reset(AutoscalerState& a, const CompiledService& cs) {
    a = AutoscalerState{0.0, 0.0, -1.0, 0, 0, cs.min_replicas, 0};
  }

  /// Requests in the system were `in_system` since a.changed_s and change now.
  GPUCAP_HD GPUCAP_FORCEINLINE static void observe(AutoscalerState& a, uint32_t in_system,
                                                   double now) {
    a.area += static_cast<double>(in_system) * (now - a.changed_s);
    a.changed_s = now;
  }

  /// Tick a.ticks + 1 at `now`: closes its interval into `history`, returns the replicas desired.
  GPUCAP_HD static uint32_t tick(AutoscalerState& a, ArenaPtr<double> history,
                                 const CompiledService& cs, uint32_t in_system, uint32_t warm,
                                 double now) {
    observe(a, in_system, now);
    const uint32_t k = ++a.ticks;
    history[(k - 1) % cs.stable_ticks] = a.area;
    a.area = 0;
    // Newest first: the panic window's sum is a prefix of the stable window's.
    const uint32_t stable_n = k < cs.stable_ticks ? k : cs.stable_ticks;
    const uint32_t panic_n = k < cs.panic_ticks ? k : cs.panic_ticks;
    double sum = 0, panic_sum = 0;
    for (uint32_t j = 0; j < stable_n; ++j) {
      sum += history[(k - 1 - j) % cs.stable_ticks];
      if (j + 1 == panic_n) panic_sum = sum;
    }
    const double stable = sum / (static_cast<double>(stable_n) * cs.tick_s);
    const double panic = panic_sum / (static_cast<double>(panic_n) * cs.tick_s);
    const double want_stable = __builtin_ceil(stable / cs.target_concurrency);
    const double want_panic = __builtin_ceil(panic / cs.target_concurrency);
    const double ready = warm > 0 ? static_cast<double>(warm) : 1.0;
    const bool over = want_panic / ready >= cs.panic_threshold;
    if (over) {
      a.panic_since_s = now;
    } else if (a.panic_since_s >= 0 && a.panic_since_s + cs.stable_ticks * cs.tick_s < now) {
      a.panic_since_s = -1;
      a.max_panic = 0;
    }
    double desired = want_stable;
    if (a.panic_since_s >= 0) {
      if (want_panic > desired) desired = want_panic;
      if (desired > a.max_panic) {
        a.max_panic = clamp_count(desired, 0xFFFFFFFFu);
      } else {
        desired = a.max_panic;
      }
    }
    uint32_t count = clamp_count(desired, cs.max_replicas);
    if (cs.delay_ticks > 0) {  // the largest count over the last delay_ticks + 1 ticks
      const uint32_t n = cs.delay_ticks + 1;
      const ArenaPtr<double> recent = history + cs.stable_ticks;
      recent[(k - 1) % n] = count;
      const uint32_t have = k < n ? k : n;
      for (uint32_t j = 0; j < have; ++j) {
        const uint32_t c = static_cast<uint32_t>(recent[(k - 1 - j) % n]);
        if (c > count) count = c;
      }
    }
    if (count < cs.min_replicas) count = cs.min_replicas;
    a.desired = count;
    return count;
  }

 private:
  /// A non-negative whole number of replicas, at most `most`.
  GPUCAP_HD static uint32_t clamp_count(double replicas, uint32_t most) {
    return replicas >= static_cast<double>(most) ? most : static_cast<uint32_t>(replicas);
  }
};

GPUCAP_ARENA_NAMESPACE_END
}  // namespace gpucap::engine
