// gpucap engine: the price of a pool whose price moves (USD per GPU-second): a price trace (a
// StepTrace), or a mean-reverting log-price (an AR(1) process stepped every price_step_s). The
// engine asks for the price's integral up to a time, which never decreases between calls;
// the process steps forward to it.
#pragma once
#include <cstdint>

#include "gpucap/compiled_model.hpp"
#include "gpucap/distribution.hpp"
#include "gpucap/engine/step_trace.hpp"
#include "gpucap/philox.hpp"
#include "gpucap/portable.hpp"
#include "gpucap/portable_math.hpp"

namespace gpucap::engine {

/// Per pool: the price now, its integral up to time_s, the next step boundary, the step index
/// and the mean-reverting log-price.
struct PriceState {
  double per_gpu_s;  ///< USD per GPU-second now
  double integral;   ///< USD per GPU from 0 to time_s
  double time_s;
  double next_step_s;
  uint64_t step;
  double log_price;
};

class PriceProcess {
 public:
  GPUCAP_HD void bind(const CompiledModel& m, PriceState* state) {
    m_ = &m;
    state_ = state;
  }

  GPUCAP_HD static bool moves(const CompiledPool& pool) {
    return pool.price_model != CompiledPool::kFixedPrice;
  }

  /// The price now (USD per GPU-second) of a pool whose price moves.
  GPUCAP_HD double price(uint32_t p) const { return state_[p].per_gpu_s; }

  /// Time 0: places a trace's origin (fixed, or uniform from `rng`), or draws the log-price
  /// from its stationary distribution.
  GPUCAP_HD void start(uint32_t p, RandomStream& rng) {
    const CompiledPool& pool = m_->pools[p];
    PriceState& ps = state_[p];
    double origin_s = 0;
    if (pool.price_model == CompiledPool::kTracePrice) {
      const StepTrace trace = trace_of(pool);
      // u x step x count, in this order (the price's own convention, kept for its bits).
      origin_s = pool.price_random_start ? rng.next_uniform() * pool.price_step_s * pool.price_count
                                         : pool.price_start_s;
      ps.step = trace.step_at(origin_s);
      ps.per_gpu_s = trace.at_step(ps.step);
    } else {
      ps.step = 0;
      ps.log_price = pool.price_stationary_sd * sample_standard_normal(rng);
      ps.per_gpu_s = pool.price_level_usd_per_gpu_s * pmath::exp(ps.log_price);
    }
    ps.integral = 0;
    ps.time_s = 0;
    ps.next_step_s = static_cast<double>(ps.step + 1) * pool.price_step_s - origin_s;
  }

  /// The integral of pool p's price (USD per GPU) from 0 to t; t never decreases between calls.
  GPUCAP_HD double integral_at(uint32_t p, double t, RandomStream& rng) {
    PriceState& ps = state_[p];
    GPUCAP_INVARIANT(m_->pools[p].price_step_s > 0 && t <= m_->horizon_s,
                     "price steps are positive and asked for within the horizon");
    if (t >= ps.next_step_s) step_to(p, t, rng);
    ps.integral += ps.per_gpu_s * (t - ps.time_s);
    ps.time_s = t;
    return ps.integral;
  }

 private:
  /// Steps pool p's price over every step boundary up to t, adding each step's integral. Out of
  /// line: the normal draw inlined here would otherwise swell the billing code that calls
  /// integral_at (and keep the compiler from inlining it where prices do not move).
  GPUCAP_HD GPUCAP_NOINLINE void step_to(uint32_t p, double t, RandomStream& rng) {
    const CompiledPool& pool = m_->pools[p];
    PriceState& ps = state_[p];
    while (t >= ps.next_step_s) {
      GPUCAP_INVARIANT(ps.next_step_s + pool.price_step_s > ps.next_step_s,
                       "a price step moves its clock (the event budget keeps steps >> 1 ulp)");
      ps.integral += ps.per_gpu_s * (ps.next_step_s - ps.time_s);
      ps.time_s = ps.next_step_s;
      ps.next_step_s += pool.price_step_s;
      ++ps.step;
      if (pool.price_model == CompiledPool::kTracePrice) {
        ps.per_gpu_s = trace_of(pool).at_step(ps.step);
      } else {
        ps.log_price = ps.log_price * pool.price_decay + pool.price_noise * sample_standard_normal(rng);
        ps.per_gpu_s = pool.price_level_usd_per_gpu_s * pmath::exp(ps.log_price);
      }
    }
  }

  GPUCAP_HD StepTrace trace_of(const CompiledPool& pool) const {
    return StepTrace::of(m_->table, pool.price_offset, pool.price_count, pool.price_step_s);
  }

  const CompiledModel* m_ = nullptr;
  PriceState* state_ = nullptr;
};

}  // namespace gpucap::engine
