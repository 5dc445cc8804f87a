// gpucap: fixed-size log-spaced histogram for durations, with quantiles.
//
// Bin 0 holds exact zeros, bin 1 holds (0, 1 ms), bins 2 .. kLogBins+1 are log-spaced from 1 ms
// to 10^7 s at kBinsPerDecade per decade (relative bin width 10%), and the last bin holds
// everything from 10^7 s up. Quantiles interpolate geometrically inside a bin, so their error is
// well under the bin width. 1 KiB of counts, no allocation.
#pragma once
#include <cstdint>

#include "gpucap/portable.hpp"
#include "gpucap/portable_math.hpp"

namespace gpucap {

struct LogHistogram {
  static constexpr int kBinsPerDecade = 24;
  static constexpr int kDecades = 10;  // 1e-3 .. 1e7 s
  static constexpr int kLogBins = kBinsPerDecade * kDecades;
  static constexpr int kBins = kLogBins + 3;
  static constexpr double kLowest = 1e-3;
  static constexpr double kHighest = 1e7;
  static constexpr double kLn10 = 2.302585092994045684;

  uint32_t counts[kBins];
  uint32_t total;

  GPUCAP_HD void clear() {
    for (int i = 0; i < kBins; ++i) counts[i] = 0;
    total = 0;
  }

  GPUCAP_HD static int bin_of(double x) {
    if (!(x > 0)) return 0;
    if (x < kLowest) return 1;
    if (x >= kHighest) return kBins - 1;
    int b = static_cast<int>((pmath::log(x) - pmath::log(kLowest)) * (kBinsPerDecade / kLn10));
    if (b >= kLogBins) b = kLogBins - 1;
    return 2 + b;
  }

  /// Lower edge of log bin b (2 <= b <= kLogBins + 1).
  GPUCAP_HD static double lower_edge(int b) {
    return kLowest * pmath::exp((b - 2) * (kLn10 / kBinsPerDecade));
  }

  GPUCAP_HD void add(double x) {
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
        if (b == 1) return fraction * kLowest;
        if (b == kBins - 1) return kHighest;
        const double lo = lower_edge(b);
        return lo * pmath::exp(fraction * (kLn10 / kBinsPerDecade));
      }
      cumulative = next;
    }
    return kHighest;
  }
};

}  // namespace gpucap
