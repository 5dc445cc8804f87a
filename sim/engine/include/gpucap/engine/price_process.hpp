// gpucap engine: the price of a pool whose price moves (USD per GPU-second): a price trace (a
// StepTrace), a mean-reverting log-price (an AR(1) process stepped every price_step_s), or an
// Ornstein-Uhlenbeck price (continuous, drawn exactly with its integral at the times asked
// for). The engine asks for the price's integral up to a time, which never decreases between
// calls; the process moves forward to it.
#pragma once
#include <cstdint>

#include "gpucap/arena_ptr.hpp"
#include "gpucap/compiled_model.hpp"
#include "gpucap/distribution.hpp"
#include "gpucap/engine/step_trace.hpp"
#include "gpucap/philox.hpp"
#include "gpucap/portable.hpp"
#include "gpucap/portable_math.hpp"

namespace gpucap::engine {
GPUCAP_ARENA_NAMESPACE_BEGIN

/// The exact transition over an interval of an Ornstein-Uhlenbeck price
///   dP = theta (level - P) dt + s dW    (s in USD per GPU-second per sqrt(second)),
/// from P(0) = level + x: with u = theta dt, a = e^(-u) and b = 1 - a,
///   P(dt)            = level + x a + e1,
///   integral of P dt = level dt + x b / theta + e2,
/// where (e1, e2) is a centred Gaussian pair with
///   Var e1 = V b (2 - b),          V = s^2 / (2 theta), the stationary variance,
///   Cov    = V b^2 / theta,
///   Var e2 = 2 V g(u) / theta^2,   g(u) = u - b - b^2 / 2 = u^3/3 - u^4/4 + ...,
/// drawn from two standard normals as e1 = sqrt(Var e1) z1 and e2 = (Cov / Var e1) e1 +
/// sqrt(Var e2 - Cov^2 / Var e1) z2, where Cov / Var e1 = b / (theta (2 - b)) and Var e2 -
/// Cov^2 / Var e1 = 2 V (g - b^3 / (2 (2 - b))) / theta^2. Below u = 1/16, b and g come from
/// their Taylor series (1 - e^-u and the sum for g would cancel there), above from e^-u: b
/// within 1e-15 and g within 1e-12 of their values (relative) at every u.
struct OrnsteinUhlenbeckStep {
  double a, b, g;

  GPUCAP_HD GPUCAP_FORCEINLINE static OrnsteinUhlenbeckStep of(double u) {
    OrnsteinUhlenbeckStep k;
    if (u < 0.0625) {
      // clang-format off
      // b = u x sum over n >= 1 of (-1)^(n+1) u^(n-1) / n!, to n = 10 (the rest < 1e-17 b).
      constexpr double kB[10] = {1.0, -0.5, 0.16666666666666666, -0.041666666666666664,
                                 0.008333333333333333, -0.001388888888888889,
                                 0.0001984126984126984, -2.48015873015873e-05,
                                 2.7557319223985893e-06, -2.755731922398589e-07};
      // g = u^3 x sum over n >= 3 of (-1)^(n+1) (2^(n-1) - 2) u^(n-3) / n!, to n = 12.
      constexpr double kG[10] = {0.3333333333333333, -0.25, 0.11666666666666667,
                                 -0.041666666666666664, 0.012301587301587301, -0.003125,
                                 0.0006999559082892416, -0.00014054232804232804,
                                 2.5603254769921436e-05, -4.2713844797178134e-06};
      // clang-format on
      double sb = kB[9], sg = kG[9];
      for (int n = 8; n >= 0; --n) {
        sb = kB[n] + u * sb;
        sg = kG[n] + u * sg;
      }
      k.b = u * sb;
      k.a = 1.0 - k.b;
      k.g = u * u * u * sg;
    } else {
      k.a = pmath::exp(-u);
      k.b = 1.0 - k.a;
      k.g = u - k.b - 0.5 * k.b * k.b;
    }
    return k;
  }
};

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
  GPUCAP_HD void bind(const CompiledModel& m, ArenaPtr<PriceState> state) {
    m_ = &m;
    state_ = state;
  }

  GPUCAP_HD static bool moves(const CompiledPool& pool) {
    return pool.price_model != CompiledPool::kFixedPrice;
  }

  /// The price now (USD per GPU-second) of a pool whose price moves.
  GPUCAP_HD double price(uint32_t p) const { return state_[p].per_gpu_s; }

  /// Time 0: places a trace's origin (fixed, or uniform from `rng`), or draws the log-price
  /// (an Ornstein-Uhlenbeck price) from its stationary distribution.
  GPUCAP_HD void start(uint32_t p, RandomStream& rng) {
    const CompiledPool& pool = m_->pools[p];
    PriceState& ps = state_[p];
    double origin_s = 0;
    ps.integral = 0;
    ps.time_s = 0;
    if (pool.price_model == CompiledPool::kOrnsteinUhlenbeckPrice) {
      ps.step = 0;
      ps.per_gpu_s =
          pool.price_level_usd_per_gpu_s + pool.price_stationary_sd * sample_standard_normal(rng);
      ps.next_step_s = pmath::kInfinity;  // no steps: integral_at draws the transition
      return;
    }
    if (pool.price_model == CompiledPool::kTracePrice) {
      const StepTrace trace = trace_of(pool);
      // u x step x count, in this order (the price's own convention), on the origins' grid.
      origin_s = StepTrace::origin_on_grid(
          pool.price_random_start ? rng.next_uniform() * pool.price_step_s * pool.price_count
                                  : pool.price_start_s);
      ps.step = trace.step_at(origin_s);
      ps.per_gpu_s = trace.at_step(ps.step);
    } else {
      ps.step = 0;
      ps.log_price = pool.price_stationary_sd * sample_standard_normal(rng);
      ps.per_gpu_s = pool.price_level_usd_per_gpu_s * pmath::exp(ps.log_price);
    }
    ps.next_step_s = static_cast<double>(ps.step + 1) * pool.price_step_s - origin_s;
  }

  /// The integral of pool p's price (USD per GPU) from 0 to t; t never decreases between calls.
  GPUCAP_HD double integral_at(uint32_t p, double t, RandomStream& rng) {
    PriceState& ps = state_[p];
    if (m_->pools[p].price_model == CompiledPool::kOrnsteinUhlenbeckPrice) {
      GPUCAP_INVARIANT(t >= ps.time_s && t <= m_->horizon_s,
                       "the price is asked for forward in time, within the horizon");
      if (t > ps.time_s) ornstein_uhlenbeck_to(p, t, rng);
      return ps.integral;
    }
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
        ps.log_price =
            ps.log_price * pool.price_decay + pool.price_noise * sample_standard_normal(rng);
        ps.per_gpu_s = pool.price_level_usd_per_gpu_s * pmath::exp(ps.log_price);
      }
    }
  }

  /// Draws pool p's Ornstein-Uhlenbeck price at t and its integral since time_s, jointly and
  /// exactly (OrnsteinUhlenbeckStep): two normals from the pool's price stream, z1 then z2.
  /// Out of line, as step_to. (price_stationary_sd^2 is V; 1 / theta is computed once.)
  GPUCAP_HD GPUCAP_NOINLINE void ornstein_uhlenbeck_to(uint32_t p, double t, RandomStream& rng) {
    const CompiledPool& pool = m_->pools[p];
    PriceState& ps = state_[p];
    const double level = pool.price_level_usd_per_gpu_s, inv_theta = pool.price_reversion_time_s;
    const double dt = t - ps.time_s;
    const OrnsteinUhlenbeckStep k = OrnsteinUhlenbeckStep::of(pool.price_reversion_per_s * dt);
    const double z1 = sample_standard_normal(rng);
    const double z2 = sample_standard_normal(rng);
    const double v = pool.price_stationary_sd * pool.price_stationary_sd;
    const double q = 1.0 / (2.0 - k.b);
    const double rest = k.g - 0.5 * k.b * k.b * k.b * q;
    const double e1 = __builtin_sqrt(v * k.b * (2.0 - k.b)) * z1;
    const double e2 = k.b * q * inv_theta * e1 +
                      (rest > 0 ? __builtin_sqrt(2.0 * v * rest) * inv_theta : 0.0) * z2;
    const double x = ps.per_gpu_s - level;
    ps.integral += level * dt + x * k.b * inv_theta + e2;
    ps.per_gpu_s = level + x * k.a + e1;
    ps.time_s = t;
  }

  GPUCAP_HD StepTrace trace_of(const CompiledPool& pool) const {
    return StepTrace::of(m_->table, pool.price_offset, pool.price_count, pool.price_step_s);
  }

  const CompiledModel* m_ = nullptr;
  ArenaPtr<PriceState> state_ = nullptr;
};

GPUCAP_ARENA_NAMESPACE_END
}  // namespace gpucap::engine
