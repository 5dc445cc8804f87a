// gpucap engine: the GPUs of each pool: its capacity (its quota, or what its availability
// trace allows now) and how many of them are free.
//
// Invariant: free + GPUs held in the pool == capacity; free < 0 only while the engine handles a
// capacity drop (it reclaims jobs until free >= 0) or blocks the pool during a zone event. The
// pools (0 to 63) with a free GPU are also kept as a bit mask, for placement in O(1).
#pragma once
#include <cstdint>

#include "gpucap/arena_ptr.hpp"
#include "gpucap/compiled_model.hpp"
#include "gpucap/engine/step_trace.hpp"
#include "gpucap/philox.hpp"
#include "gpucap/portable.hpp"

namespace gpucap::engine {
GPUCAP_ARENA_NAMESPACE_BEGIN

/// Per pool: its availability trace's position.
struct AvailabilityState {
  int32_t capacity_gpus;
  uint32_t unused_;
  double trace_origin_s;      ///< trace time at the replication's t = 0
  uint64_t next_change_step;  ///< the step at which the pending change takes effect
};

class PoolCapacity {
 public:
  static constexpr double kNever = __builtin_huge_val();

  GPUCAP_HD void bind(const CompiledModel& m, ArenaPtr<int32_t> free_gpus,
                      ArenaPtr<AvailabilityState> state) {
    m_ = &m;
    free_ = free_gpus;
    state_ = state;
    with_free_ = 0;
    for (uint32_t p = 0; p < m.pool_count; ++p) {
      free_[p] = static_cast<int32_t>(m.pools[p].quota_gpus);
      state_[p] = AvailabilityState{static_cast<int32_t>(m.pools[p].quota_gpus), 0, 0, 0};
      note_free(p);
    }
  }

  GPUCAP_HD bool fits(uint32_t p, uint32_t gpus) const {
    return free_[p] >= static_cast<int32_t>(gpus);
  }
  GPUCAP_HD GPUCAP_FORCEINLINE void take(uint32_t p, uint32_t gpus) {
    free_[p] -= static_cast<int32_t>(gpus);
    note_free(p);
  }
  GPUCAP_HD GPUCAP_FORCEINLINE void give_back(uint32_t p, uint32_t gpus) {
    free_[p] += static_cast<int32_t>(gpus);
    note_free(p);
  }
  /// Bit p (pools 0 to 63): pool p has at least one free GPU. A job (one GPU or more) can fit
  /// only in such a pool, so find_pool need look at no other. Kept only for models that place
  /// by it (CompiledModel::placement_by_mask).
  GPUCAP_HD uint64_t pools_with_free_gpus() const { return with_free_; }
  /// Over-subscribed: a capacity drop left fewer GPUs than are held.
  GPUCAP_HD bool over(uint32_t p) const { return free_[p] < 0; }

  /// Places t = 0 in pool p's trace (fixed, or uniform per replication from `rng`), sets the
  /// capacity, and returns when it next changes (kNever: not before the horizon).
  GPUCAP_HD double start_trace(uint32_t p, RandomStream rng) {
    const CompiledPool& pool = m_->pools[p];
    const StepTrace trace = trace_of(p);
    AvailabilityState& st = state_[p];
    st.trace_origin_s = StepTrace::origin_on_grid(pool.availability_random_start
                                                      ? trace.period_s() * rng.next_uniform()
                                                      : pool.availability_start_s);
    const uint64_t step = trace.step_at(st.trace_origin_s);
    set_capacity(p, capacity_at_step(p, step));
    return next_change_after(p, step, 0.0);
  }

  /// The pending change takes effect: sets the new capacity and returns when the next change
  /// comes (kNever: not before the horizon). The caller then reclaims jobs while over(p).
  GPUCAP_HD double change(uint32_t p, double now_s) {
    AvailabilityState& st = state_[p];
    set_capacity(p, capacity_at_step(p, st.next_change_step));
    return next_change_after(p, st.next_change_step, now_s);
  }

 private:
  GPUCAP_HD StepTrace trace_of(uint32_t p) const {
    const CompiledPool& pool = m_->pools[p];
    return StepTrace::of(m_->table, pool.availability_offset, pool.availability_count,
                         pool.availability_step_s, pool.availability_after_end);
  }

  /// GPUs the trace of pool p allows at step k: instances x GPUs each, at most the quota.
  GPUCAP_HD uint32_t capacity_at_step(uint32_t p, uint64_t k) const {
    const CompiledPool& pool = m_->pools[p];
    const double gpus = trace_of(p).at_step(k) * pool.gpus_per_instance;
    return gpus < pool.quota_gpus ? static_cast<uint32_t>(gpus) : pool.quota_gpus;
  }

  /// Free GPUs follow the capacity: they fall below 0 when it drops under the GPUs held.
  GPUCAP_HD void set_capacity(uint32_t p, uint32_t capacity) {
    free_[p] += static_cast<int32_t>(capacity) - state_[p].capacity_gpus;
    state_[p].capacity_gpus = static_cast<int32_t>(capacity);
    note_free(p);
  }

  /// Keeps bit p of with_free_ equal to (free GPUs of p > 0), for pools 0 to 63.
  GPUCAP_HD GPUCAP_FORCEINLINE void note_free(uint32_t p) {
    if (!m_->placement_by_mask || p >= 64) return;
    const uint64_t bit = uint64_t{1} << p;
    with_free_ = free_[p] > 0 ? with_free_ | bit : with_free_ & ~bit;
  }

  /// The first step after `step` whose capacity differs, as a replication time (not before
  /// now_s); kNever when the trace is flat or the change comes after the horizon.
  GPUCAP_HD double next_change_after(uint32_t p, uint64_t step, double now_s) {
    const StepTrace trace = trace_of(p);
    AvailabilityState& st = state_[p];
    GPUCAP_INVARIANT(trace.step_s > 0 && trace.count > 0,
                     "an availability trace has rows and a positive step");
    const uint32_t now_capacity = capacity_at_step(p, step);
    for (uint64_t k = step + 1; k <= step + trace.count; ++k) {
      if (capacity_at_step(p, k) == now_capacity) continue;
      const double t = trace.start_of_step(k, st.trace_origin_s);
      if (t > m_->horizon_s) return kNever;
      st.next_change_step = k;
      return t > now_s ? t : now_s;
    }
    return kNever;
  }

  const CompiledModel* m_ = nullptr;
  ArenaPtr<int32_t> free_ = nullptr;
  ArenaPtr<AvailabilityState> state_ = nullptr;
  uint64_t with_free_ = 0;  ///< see pools_with_free_gpus()
};

GPUCAP_ARENA_NAMESPACE_END
}  // namespace gpucap::engine
