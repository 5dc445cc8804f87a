// gpucap: portable elementary functions (log, exp, pow) built from +, -, *, / and bit operations.
//
// glibc's and CUDA's libm differ in the last bit, which would make CPU and GPU replications drift
// apart. These functions use only IEEE-754 correctly rounded operations, so with FMA contraction
// disabled (-ffp-contract=off, nvcc -fmad=false) they return the same bits on every backend.
// Accuracy (checked in portable_math_test): exp and log within 1 ulp of glibc on the finite range;
// pow(x, y) = exp(y log x) within 2 + 2|y ln x| ulp (the rounding of y log x is magnified).
#pragma once
#include <cstdint>
#include <cstring>

#include "gpucap/portable.hpp"

namespace gpucap::pmath {

GPUCAP_HD GPUCAP_FORCEINLINE uint64_t bits_of(double x) {
  uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}
GPUCAP_HD GPUCAP_FORCEINLINE double from_bits(uint64_t u) {
  double x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

constexpr double kInfinity = __builtin_huge_val();

/// The quiet NaN that stands for "not defined" (a metric with no observations).
GPUCAP_HD GPUCAP_FORCEINLINE double quiet_nan() { return from_bits(0x7FF8000000000000ull); }
constexpr double kLn2Hi = 6.93147180369123816490e-01;  // upper bits of ln 2 (exact in double)
constexpr double kLn2Lo = 1.90821492927058770002e-10;  // ln 2 - kLn2Hi
constexpr double kInvLn2 = 1.44269504088896338700e+00;

/// 2^k for k in [-1022, 1023], exactly.
GPUCAP_HD GPUCAP_FORCEINLINE double pow2i(int k) {
  return from_bits(static_cast<uint64_t>(k + 1023) << 52);
}

/// e^x. x = k ln 2 + r with |r| <= ln2/2 (r carried as hi - lo), e^r by fdlibm's e_exp.c
/// rational form 1 + r + r c / (2 - c) with a degree-5 minimax polynomial (error below 1 ulp).
GPUCAP_HD inline double exp(double x) {
  if (x != x) return x;
  if (x > 709.782712893384) return kInfinity;
  if (x < -745.1332191019412) return 0.0;
  constexpr double kP1 = 1.66666666666666019037e-01, kP2 = -2.77777777770155933842e-03,
                   kP3 = 6.61375632143793436117e-05, kP4 = -1.65339022054652515390e-06,
                   kP5 = 4.13813679705723846039e-08;
  const double kd = x * kInvLn2 + (x >= 0 ? 0.5 : -0.5);
  const int k = static_cast<int>(kd);  // round half away from zero
  const double hi = x - k * kLn2Hi;
  const double lo = k * kLn2Lo;
  const double r = hi - lo;
  const double t = r * r;
  const double c = r - t * (kP1 + t * (kP2 + t * (kP3 + t * (kP4 + t * kP5))));
  const double y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi);
  if (k > 1023) return y * pow2i(1023) * pow2i(k - 1023);
  if (k < -1022) return y * pow2i(-1022) * pow2i(k + 1022);
  return y * pow2i(k);
}

/// Natural logarithm. x = 2^e * m with m in [sqrt(1/2), sqrt(2)), f = m - 1, s = f / (2 + f),
/// log(1 + f) = f - (f^2/2 - s (f^2/2 + R(s^2))), with R the degree-7 minimax polynomial of
/// fdlibm's e_log.c (error below 1 ulp), evaluated as two interleaved halves for speed.
GPUCAP_HD inline double log(double x) {
  if (x != x || x < 0) return __builtin_nan("");
  if (x == 0) return -kInfinity;
  if (x == kInfinity) return x;
  int e = 0;
  if (x < 2.2250738585072014e-308) {  // subnormal: scale into the normal range
    x *= 18014398509481984.0;         // 2^54
    e = -54;
  }
  const uint64_t u = bits_of(x);
  e += static_cast<int>((u >> 52) & 0x7FF) - 1023;
  double m = from_bits((u & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull);  // [1, 2)
  if (m > 1.4142135623730951) {
    m *= 0.5;
    ++e;
  }
  constexpr double kLg1 = 6.666666666666735130e-01, kLg2 = 3.999999999940941908e-01,
                   kLg3 = 2.857142874366239149e-01, kLg4 = 2.222219843214978396e-01,
                   kLg5 = 1.818357216161805012e-01, kLg6 = 1.531383769920937332e-01,
                   kLg7 = 1.479819860511658591e-01;
  const double f = m - 1.0;
  const double s = f / (2.0 + f);
  const double z = s * s;
  const double w = z * z;
  const double t1 = w * (kLg2 + w * (kLg4 + w * kLg6));
  const double t2 = z * (kLg1 + w * (kLg3 + w * (kLg5 + w * kLg7)));
  const double big_r = t2 + t1;
  const double hfsq = 0.5 * f * f;
  const double log_m = f - (hfsq - s * (hfsq + big_r));
  return e * kLn2Hi + (log_m + e * kLn2Lo);
}

/// x^y for x > 0 as exp(y log x), within 2 + 2|y ln x| ulp; pow(0, y>0) = 0; pow(x, 0) = 1.
GPUCAP_HD inline double pow(double x, double y) {
  if (y == 0) return 1.0;
  if (x == 0) return y > 0 ? 0.0 : kInfinity;
  return exp(y * log(x));
}

/// ln(1 + x) for x > -1, accurate for small x (Goldberg's correction of log(1 + x): the
/// rounding of 1 + x is undone by x / ((1 + x) - 1)); log1p(+inf) = +inf.
GPUCAP_HD inline double log1p(double x) {
  const double u = 1.0 + x;
  if (u == 1.0) return x;
  if (u == kInfinity) return kInfinity;
  return log(u) * (x / (u - 1.0));
}

/// e^x - 1, accurate for small x (Kahan's correction: (e^x - 1) x / ln(e^x)); expm1(+inf) =
/// +inf, expm1(-inf) = -1.
GPUCAP_HD inline double expm1(double x) {
  const double u = exp(x);
  if (u == 1.0) return x;
  const double um1 = u - 1.0;
  if (um1 == -1.0) return -1.0;
  if (u == kInfinity) return kInfinity;
  return um1 * (x / log(u));
}

}  // namespace gpucap::pmath
