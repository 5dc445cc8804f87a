// gpucap: fixed-size log-spaced histogram for durations, with quantiles.
//
// Bins follow the binary representation of the value (as HdrHistogram does): each octave
// [2^e, 2^(e+1)) is split into kSubBins equal parts, so a bin's relative width is at most
// 1 / kSubBins = 12.5% and its index comes from the exponent and top mantissa bits, no logarithm.
// Bin 0 holds exact zeros, bin 1 values below 2^kMinExponent (~1 ms), the last bin values from
// 2^kMaxExponent (~1.5 years) up. Quantiles interpolate linearly inside a bin. No allocation.
#pragma once
#include <cstdint>

#include "gpucap/portable.hpp"
#include "gpucap/portable_math.hpp"

namespace gpucap {

struct LogHistogram {
  static constexpr int kSubBinBits = 3;
  static constexpr int kSubBins = 1 << kSubBinBits;
  static constexpr int kMinExponent = -10;  // 2^-10 s ~ 0.98 ms
  static constexpr int kMaxExponent = 25;   // 2^25 s ~ 388 days
  static constexpr int kLogBins = (kMaxExponent - kMinExponent) * kSubBins;
  static constexpr int kBins = kLogBins + 3;

  uint32_t counts[kBins];
  uint32_t total;

  GPUCAP_HD void clear() {
    for (int i = 0; i < kBins; ++i) counts[i] = 0;
    total = 0;
  }

  GPUCAP_HD GPUCAP_FORCEINLINE static int bin_of(double x) {
    if (!(x > 0)) return 0;
    const uint64_t bits = pmath::bits_of(x);
    const int exponent = static_cast<int>((bits >> 52) & 0x7FF) - 1023;
    if (exponent < kMinExponent) return 1;
    if (exponent >= kMaxExponent) return kBins - 1;
    const int sub = static_cast<int>((bits >> (52 - kSubBinBits)) & (kSubBins - 1));
    return 2 + (exponent - kMinExponent) * kSubBins + sub;
  }

  /// Lower edge of bin b (2 <= b <= kLogBins + 1) and its width.
  GPUCAP_HD static double lower_edge(int b) {
    const int i = b - 2;
    const double octave = pmath::pow2i(kMinExponent + i / kSubBins);
    return octave * (1.0 + static_cast<double>(i % kSubBins) / kSubBins);
  }
  GPUCAP_HD static double width(int b) {
    return pmath::pow2i(kMinExponent + (b - 2) / kSubBins) / kSubBins;
  }

  GPUCAP_HD GPUCAP_FORCEINLINE void add(double x) {
    ++counts[bin_of(x)];
    ++total;
  }

  /// The q-quantile (0 < q < 1) of the recorded values; 0 when empty.
  GPUCAP_HD double quantile(double q) const {
    if (total == 0) return 0.0;
    const double target = q * total;
    double cumulative = 0;
    for (int b = 0; b < kBins; ++b) {
      const double next = cumulative + counts[b];
      if (counts[b] > 0 && next >= target) {
        const double fraction = (target - cumulative) / counts[b];
        if (b == 0) return 0.0;
        if (b == 1) return fraction * pmath::pow2i(kMinExponent);
        if (b == kBins - 1) return pmath::pow2i(kMaxExponent);
        return lower_edge(b) + fraction * width(b);
      }
      cumulative = next;
    }
    return pmath::pow2i(kMaxExponent);
  }
};

}  // namespace gpucap
