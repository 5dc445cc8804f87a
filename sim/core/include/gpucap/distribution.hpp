// gpucap: probability distributions of the portable core (durations, delays).
//
// A Distribution is plain data: a kind and up to three parameters, plus an offset into the
// model's table of empirical samples. sample() draws one value from a RandomStream with the
// portable log/exp, so the same stream gives the same value on every backend. Units are those of
// the quantity (seconds for durations and delays).
#pragma once
#include <cstdint>

#include "gpucap/detail/normal_ziggurat_tables.hpp"
#include "gpucap/detail/ziggurat_tables.hpp"
#include "gpucap/philox.hpp"
#include "gpucap/portable.hpp"
#include "gpucap/portable_math.hpp"

namespace gpucap {

enum class DistKind : uint8_t {
  deterministic,  ///< p0 = value
  exponential,    ///< p0 = mean
  uniform,        ///< p0 = min, p1 = max
  lognormal,      ///< p0 = mu, p1 = sigma of the underlying normal (median = e^mu)
  gamma,          ///< p0 = shape k, p1 = scale theta (mean = k theta)
  weibull,        ///< p0 = shape k, p1 = scale lambda
  pareto,         ///< p0 = shape alpha, p1 = scale x_m (the minimum)
  empirical,      ///< table[offset .. offset + count): values drawn with equal probability;
                  ///< p0 > 0: with probability p0, the largest (the table is then sorted, the
                  ///< largest last) plus an exponential of mean p1 instead (a tail)
};

struct Distribution {
  DistKind kind = DistKind::deterministic;
  double p0 = 0, p1 = 0;
  uint32_t table_offset = 0, table_count = 0;
};

/// A unit exponential variate by the ziggurat method (Marsaglia and Tsang, 2000) with 256 layers
/// and 56-bit uniforms: two 32-bit words give the layer (8 bits) and the position (56 bits);
/// 98.9% of draws are accepted with one multiply and one compare, the rest take a wedge test
/// (one exp) or the tail (one log). Exact in distribution; no logarithm on the common path.
/// The common path is inlined where the engine draws; the rare rest (1.1%) is a call.
namespace detail {
/// The ziggurat after a draw (layer, x) fell outside its layer's rectangle: the wedge test or
/// the tail, then new draws until one is accepted.
GPUCAP_HD GPUCAP_NOINLINE inline double exponential_outside_rectangle(RandomStream& rng,
                                                                      uint32_t layer, double x) {
  for (;;) {
    if (layer == 0) return kZigguratR - pmath::log(rng.next_uniform());  // tail
    const double f_low = ziggurat_f(layer), f_high = ziggurat_f(layer + 1);
    if (f_low + rng.next_uniform() * (f_high - f_low) < pmath::exp(-x)) return x;
    const uint64_t bits = rng.next_u64();
    layer = static_cast<uint32_t>(bits & 0xFFu);
    const uint64_t position = bits >> 8;
    x = static_cast<double>(position) * ziggurat_w(layer);
    if (position < ziggurat_k(layer)) return x;
  }
}
}  // namespace detail

GPUCAP_HD GPUCAP_FORCEINLINE double sample_standard_exponential(RandomStream& rng) {
  const uint64_t bits = rng.next_u64();
  const uint32_t layer = static_cast<uint32_t>(bits & 0xFFu);
  const uint64_t position = bits >> 8;  // uniform on [0, 2^56)
  const double x = static_cast<double>(position) * detail::ziggurat_w(layer);
  if (position < detail::ziggurat_k(layer)) return x;
  return detail::exponential_outside_rectangle(rng, layer, x);
}

/// A standard normal variate by the ziggurat method (Marsaglia and Tsang, 2000) on the half
/// normal, 256 layers: one 64-bit word gives the layer (8 bits), the sign (1 bit) and the
/// position (55 bits); 98.8% of draws are accepted with one multiply and one compare, the rest
/// take a wedge test (one exp) or the tail beyond r = 3.654 (Marsaglia's two-logarithm method).
/// Exact in distribution. The rare rest is a call, so the common path inlines where drawn.
namespace detail {
/// The half-normal ziggurat after a draw (layer, x) fell outside its layer's rectangle: the
/// tail or the wedge test, then new draws (their sign bits unused: the first draw's sign is
/// independent of the magnitude) until one is accepted. Returns the magnitude.
GPUCAP_HD GPUCAP_NOINLINE inline double normal_outside_rectangle(RandomStream& rng,
                                                                 uint32_t layer, double x) {
  for (;;) {
    if (layer == 0) {  // the tail: r + t with t = -log(u1) / r, accepted when 2y > t^2
      for (;;) {
        const double t = -pmath::log(rng.next_uniform()) / kNormalZigguratR;
        const double y = -pmath::log(rng.next_uniform());
        if (y + y > t * t) return kNormalZigguratR + t;
      }
    }
    const double f_low = normal_ziggurat_f(layer), f_high = normal_ziggurat_f(layer + 1);
    if (f_low + rng.next_uniform() * (f_high - f_low) < pmath::exp(-0.5 * x * x)) return x;
    const uint64_t bits = rng.next_u64();
    layer = static_cast<uint32_t>(bits & 0xFFu);
    const uint64_t position = bits >> 9;
    x = static_cast<double>(position) * normal_ziggurat_w(layer);
    if (position < normal_ziggurat_k(layer)) return x;
  }
}
}  // namespace detail

GPUCAP_HD GPUCAP_FORCEINLINE double sample_standard_normal(RandomStream& rng) {
  const uint64_t bits = rng.next_u64();
  const uint32_t layer = static_cast<uint32_t>(bits & 0xFFu);
  const uint64_t position = bits >> 9;  // uniform on [0, 2^55)
  double x = static_cast<double>(position) * detail::normal_ziggurat_w(layer);
  if (!(position < detail::normal_ziggurat_k(layer)))
    x = detail::normal_outside_rectangle(rng, layer, x);
  return (bits & 0x100u) ? -x : x;
}

/// Gamma(shape, 1) by Marsaglia and Tsang (2000); shape < 1 boosted by U^(1/shape).
GPUCAP_HD inline double sample_standard_gamma(RandomStream& rng, double shape) {
  double boost = 1.0;
  if (shape < 1.0) {
    boost = pmath::pow(rng.next_uniform(), 1.0 / shape);
    shape += 1.0;
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / __builtin_sqrt(9.0 * d);
  for (;;) {
    double x, v;
    do {
      x = sample_standard_normal(rng);
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = rng.next_uniform();
    if (u < 1.0 - 0.0331 * (x * x) * (x * x)) return boost * d * v;
    if (pmath::log(u) < 0.5 * x * x + d * (1.0 - v + pmath::log(v))) return boost * d * v;
  }
}

namespace detail {
/// sample()'s normal: a call, so that sample() stays small for the other kinds (the exponential
/// of M/M/c runs measurably slower when the ziggurat is inlined into sample()'s switch).
GPUCAP_HD GPUCAP_NOINLINE inline double standard_normal_call(RandomStream& rng) {
  return sample_standard_normal(rng);
}
}  // namespace detail

/// One draw of `dist`; `table` is the model's empirical sample table.
GPUCAP_HD inline double sample(const Distribution& dist, RandomStream& rng, const double* table) {
  switch (dist.kind) {
    case DistKind::deterministic:
      return dist.p0;
    case DistKind::exponential:
      return dist.p0 * sample_standard_exponential(rng);
    case DistKind::uniform:
      return dist.p0 + (dist.p1 - dist.p0) * rng.next_uniform();
    case DistKind::lognormal:
      return pmath::exp(dist.p0 + dist.p1 * detail::standard_normal_call(rng));
    case DistKind::gamma:
      return dist.p1 * sample_standard_gamma(rng, dist.p0);
    case DistKind::weibull:
      return dist.p1 * pmath::pow(sample_standard_exponential(rng), 1.0 / dist.p0);
    case DistKind::pareto:
      return dist.p1 * pmath::pow(rng.next_uniform(), -1.0 / dist.p0);
    case DistKind::empirical: {
      if (dist.p0 > 0 && rng.next_uniform() < dist.p0)  // the tail beyond the largest sample
        return table[dist.table_offset + dist.table_count - 1] +
               dist.p1 * sample_standard_exponential(rng);
      uint32_t i = static_cast<uint32_t>(rng.next_uniform() * dist.table_count);
      if (i >= dist.table_count) i = dist.table_count - 1;
      return table[dist.table_offset + i];
    }
  }
  return 0.0;
}

/// sample() with its exponential case inlined where it is called (the same expression, so the
/// same bits): for the one draw per job of the event loop, where M/M/c's exponential run times
/// would otherwise pay a call and the switch.
GPUCAP_HD GPUCAP_FORCEINLINE double sample_inline_exponential(const Distribution& dist,
                                                              RandomStream& rng,
                                                              const double* table) {
  if (dist.kind == DistKind::exponential) return dist.p0 * sample_standard_exponential(rng);
  return sample(dist, rng, table);
}

}  // namespace gpucap
