// gpucap: residual life, the rest of a duration L drawn from a distribution given that L has
// already lasted `age` (the remaining lifetime of an instance, or the remaining work of a job,
// of the state at t = 0 whose remaining is unknown but whose age is known).
//
// sample_residual(d, age) draws L - age with L from d conditioned on L > age, exactly:
//  - deterministic: value - age;
//  - exponential: the same exponential (memoryless);
//  - uniform [a, b]: uniform [max(a, age), b] - age;
//  - weibull (k, lambda): L = lambda ((age / lambda)^k + E)^(1/k), E unit exponential (the
//    cumulative hazard grows by E);
//  - pareto (alpha, x_m): L = max(x_m, age) e^(E / alpha) (a Pareto tail is Pareto again);
//  - lognormal (mu, sigma): L = e^(mu + sigma Z), Z a standard normal above z0 = (ln age - mu) /
//    sigma: below z0 = 0.5 by drawing normals until one lies above (at least 31% accepted),
//    above it by Robert's (1995) exponential proposal, rate (z0 + sqrt(z0^2 + 4)) / 2;
//  - gamma (k, theta): X = L / theta standard gamma above x0 = age / theta: at or below the mode
//    region (x0 <= k) by drawing gammas until one lies above, else by the proposal x0 + E / r
//    with r = 1 - (k - 1) / x0 (k > 1) or 1 (k <= 1), accepted with (x / x0)^(k - 1)
//    e^(-(1 - r)(x - x0)) (the bound is reached at x0);
//  - empirical: uniform over the sample values above age; `sorted_table` holds the same values
//    in increasing order (the compiled model keeps a sorted copy for this); with a tail (p0),
//    from the tail with probability p0 / P(L > age), its exponential excess memoryless beyond
//    the largest sample, so any age is reached.
// The loader rejects an age the distribution cannot reach (P(L > age) = 0: a deterministic,
// uniform or empirical distribution without a tail whose largest value is <= age), so every
// draw ends.
// Units: those of the distribution (s). Portable core: no heap, no exceptions, the portable
// log/exp/pow, so every backend draws the same bits.
#pragma once
#include <cstdint>

#include "gpucap/distribution.hpp"
#include "gpucap/philox.hpp"
#include "gpucap/portable.hpp"
#include "gpucap/portable_math.hpp"

namespace gpucap {

namespace detail {

/// A standard normal conditioned on Z > z0.
GPUCAP_HD inline double normal_above(double z0, RandomStream& rng) {
  if (z0 < 0.5) {
    for (;;) {
      const double z = sample_standard_normal(rng);
      if (z > z0) return z;
    }
  }
  const double rate = 0.5 * (z0 + __builtin_sqrt(z0 * z0 + 4.0));
  for (;;) {
    const double z = z0 + sample_standard_exponential(rng) / rate;
    const double d = z - rate;
    if (rng.next_uniform() <= pmath::exp(-0.5 * d * d)) return z;
  }
}

/// A standard gamma of shape k conditioned on X > x0.
GPUCAP_HD inline double gamma_above(double k, double x0, RandomStream& rng) {
  if (x0 <= k) {
    for (;;) {
      const double x = sample_standard_gamma(rng, k);
      if (x > x0) return x;
    }
  }
  const double rate = k > 1.0 ? 1.0 - (k - 1.0) / x0 : 1.0;
  for (;;) {
    const double x = x0 + sample_standard_exponential(rng) / rate;
    const double log_accept = (k - 1.0) * pmath::log(x / x0) - (1.0 - rate) * (x - x0);
    if (pmath::log(rng.next_uniform()) <= log_accept) return x;
  }
}

}  // namespace detail

/// The index of the first value of sorted[0, count) above `age` (count when none).
GPUCAP_HD inline uint32_t first_above(const double* sorted, uint32_t count, double age) {
  uint32_t lo = 0, hi = count;
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (sorted[mid] <= age)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/// Whether L > age has a positive probability under `dist` (the bounded kinds: deterministic,
/// uniform, empirical without a tail, end at their largest value).
GPUCAP_HD inline bool reaches_age(const Distribution& dist, double age, const double* sorted_table) {
  switch (dist.kind) {
    case DistKind::deterministic:
      return dist.p0 > age;
    case DistKind::uniform:
      return dist.p1 > age;
    case DistKind::empirical:
      return dist.p0 > 0 || (dist.table_count > 0 &&
                             sorted_table[dist.table_offset + dist.table_count - 1] > age);
    default:
      return true;
  }
}

/// L - age, with L drawn from `dist` given L > age (age >= 0), never negative. For an
/// empirical distribution, `sorted_table` + dist.table_offset holds its values in increasing
/// order. Where L and age agree in most of their digits (an old age far in a light tail: a
/// Weibull of shape 20 at 300 scales), the rest is computed as age x (L / age - 1) through
/// expm1/log1p rather than as a difference of two large numbers, so it keeps its precision
/// instead of cancelling to rounding noise of either sign.
GPUCAP_HD inline double sample_residual(const Distribution& dist, double age, RandomStream& rng,
                                        const double* sorted_table) {
  double rest = 0.0;
  switch (dist.kind) {
    case DistKind::deterministic:
      rest = dist.p0 - age;
      break;
    case DistKind::exponential:
      return dist.p0 * sample_standard_exponential(rng);
    case DistKind::uniform: {
      const double low = dist.p0 > age ? dist.p0 : age;
      rest = low + (dist.p1 - low) * rng.next_uniform() - age;
      break;
    }
    case DistKind::lognormal: {
      if (!(age > 0)) return pmath::exp(dist.p0 + dist.p1 * sample_standard_normal(rng));
      // L = e^(mu + sigma z) with z > z0, e^(mu + sigma z0) = age: L - age = age (e^(sigma (z -
      // z0)) - 1).
      const double z0 = (pmath::log(age) - dist.p0) / dist.p1;
      rest = age * pmath::expm1(dist.p1 * (detail::normal_above(z0, rng) - z0));
      break;
    }
    case DistKind::gamma: {
      const double x0 = age / dist.p1;  // L = theta X with X > x0: L - age = theta (X - x0)
      rest = dist.p1 * (detail::gamma_above(dist.p0, x0, rng) - x0);
      break;
    }
    case DistKind::weibull: {
      // L = lambda (a^k + E)^(1/k), a = age / lambda. With t = a^k and E < t, L - age =
      // lambda a ((1 + E / t)^(1/k) - 1), exact to rounding however large t is; otherwise the
      // difference loses few digits (L >= 2^(1/k) age).
      const double a = age / dist.p1, k = dist.p0;
      const double t = pmath::pow(a, k), e = sample_standard_exponential(rng);
      if (e < t)
        rest = dist.p1 * a * pmath::expm1(pmath::log1p(e / t) / k);
      else
        rest = dist.p1 * pmath::pow(t + e, 1.0 / k) - age;
      break;
    }
    case DistKind::pareto: {
      const double x = -pmath::log(rng.next_uniform()) / dist.p0;  // L = low e^x, x exponential
      if (dist.p1 > age)
        rest = dist.p1 * pmath::exp(x) - age;
      else
        rest = age * pmath::expm1(x);
      break;
    }
    case DistKind::empirical: {
      const double* values = sorted_table + dist.table_offset;
      const uint32_t first = first_above(values, dist.table_count, age);
      const uint32_t above = dist.table_count - first;
      if (dist.p0 > 0) {
        // P(L > age) = tail + (1 - tail) above / count: from the tail with probability tail over
        // that; the tail's excess is exponential, so beyond the largest sample it is memoryless.
        const double largest = values[dist.table_count - 1];
        const double body = (1 - dist.p0) * above / static_cast<double>(dist.table_count);
        if (above == 0 || rng.next_uniform() * (dist.p0 + body) < dist.p0) {
          rest = (largest > age ? largest - age : 0.0) + dist.p1 * sample_standard_exponential(rng);
          break;
        }
      }
      if (above == 0) break;  // unreachable age (see reaches_age): no rest
      uint32_t i = static_cast<uint32_t>(rng.next_uniform() * above);
      if (i >= above) i = above - 1;
      rest = values[first + i] - age;
      break;
    }
  }
  return rest > 0.0 ? rest : 0.0;
}

}  // namespace gpucap
