// gpucap: portable elementary functions (log, exp, pow) built from +, -, *, / and bit operations.
//
// glibc's and CUDA's libm differ in the last bit, which would make CPU and GPU replications drift
// apart. These functions use only IEEE-754 correctly rounded operations, so with FMA contraction
// disabled (-ffp-contract=off, nvcc -fmad=false) they return the same bits on every backend.
// Accuracy: within 2 ulp of the exact value on the finite range (checked in portable_math_test).
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
constexpr double kLn2Hi = 6.93147180369123816490e-01;  // upper bits of ln 2 (exact in double)
constexpr double kLn2Lo = 1.90821492927058770002e-10;  // ln 2 - kLn2Hi
constexpr double kInvLn2 = 1.44269504088896338700e+00;

/// 2^k for k in [-1022, 1023], exactly.
GPUCAP_HD GPUCAP_FORCEINLINE double pow2i(int k) {
  return from_bits(static_cast<uint64_t>(k + 1023) << 52);
}

/// e^x. exp(x) = 2^k * e^r with r = x - k ln 2, |r| <= ln2/2, e^r by its Taylor series to r^13.
GPUCAP_HD inline double exp(double x) {
  if (x != x) return x;
  if (x > 709.782712893384) return kInfinity;
  if (x < -745.1332191019412) return 0.0;
  const double kd = x * kInvLn2 + (x >= 0 ? 0.5 : -0.5);
  const int k = static_cast<int>(kd);  // round half away from zero
  const double r = (x - k * kLn2Hi) - k * kLn2Lo;
  // Horner form of sum r^n/n!, n = 0..13.
  double p = 1.0 / 6227020800.0;
  p = p * r + 1.0 / 479001600.0;
  p = p * r + 1.0 / 39916800.0;
  p = p * r + 1.0 / 3628800.0;
  p = p * r + 1.0 / 362880.0;
  p = p * r + 1.0 / 40320.0;
  p = p * r + 1.0 / 5040.0;
  p = p * r + 1.0 / 720.0;
  p = p * r + 1.0 / 120.0;
  p = p * r + 1.0 / 24.0;
  p = p * r + 1.0 / 6.0;
  p = p * r + 0.5;
  p = p * r + 1.0;
  p = p * r + 1.0;
  if (k > 1023) return p * pow2i(1023) * pow2i(k - 1023);
  if (k < -1022) return p * pow2i(-1022) * pow2i(k + 1022);
  return p * pow2i(k);
}

/// Natural logarithm. x = 2^e * m with m in [sqrt(1/2), sqrt(2)); log m = 2 atanh(s),
/// s = (m - 1) / (m + 1), |s| <= 0.1716, by its odd series to s^21.
GPUCAP_HD inline double log(double x) {
  if (x != x || x < 0) return __builtin_nan("");
  if (x == 0) return -kInfinity;
  if (x == kInfinity) return x;
  int e = 0;
  if (x < 2.2250738585072014e-308) {  // subnormal: scale into the normal range
    x *= 18014398509481984.0;          // 2^54
    e = -54;
  }
  const uint64_t u = bits_of(x);
  e += static_cast<int>((u >> 52) & 0x7FF) - 1023;
  double m = from_bits((u & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull);  // [1, 2)
  if (m > 1.4142135623730951) {
    m *= 0.5;
    ++e;
  }
  const double f = m - 1.0;
  const double s = f / (2.0 + f);
  const double s2 = s * s;
  double p = 1.0 / 21.0;
  p = p * s2 + 1.0 / 19.0;
  p = p * s2 + 1.0 / 17.0;
  p = p * s2 + 1.0 / 15.0;
  p = p * s2 + 1.0 / 13.0;
  p = p * s2 + 1.0 / 11.0;
  p = p * s2 + 1.0 / 9.0;
  p = p * s2 + 1.0 / 7.0;
  p = p * s2 + 1.0 / 5.0;
  p = p * s2 + 1.0 / 3.0;
  // log(1 + f) = f - (hfsq - s (hfsq + R)), R = 2 s^2 p(s^2): fdlibm's split, exact to ~1 ulp.
  const double hfsq = 0.5 * f * f;
  const double big_r = 2.0 * s2 * p;
  const double log_m = f - (hfsq - s * (hfsq + big_r));
  return e * kLn2Hi + (log_m + e * kLn2Lo);
}

/// x^y for x > 0 as exp(y log x); pow(0, y>0) = 0; pow(x, 0) = 1.
GPUCAP_HD inline double pow(double x, double y) {
  if (y == 0) return 1.0;
  if (x == 0) return y > 0 ? 0.0 : kInfinity;
  return exp(y * log(x));
}

}  // namespace gpucap::pmath
