// gpucap: the per-replication percentiles of a duration (wait, completion, request latency),
// with a stated bound on their error, in fixed memory.
//
// The first kExact values are kept as they are: up to kExact observations the percentiles are
// exact (type 7, linear interpolation between order statistics, as numpy's default). From the
// next one on, the values go into a log-linear histogram whose bins follow the binary
// representation of the value (as HdrHistogram does): each octave [2^e, 2^(e+1)) is split into
// kSubBins = 128 equal parts, so a bin's width is at most 1/128 of its lower edge. An order
// statistic is then represented by its bin's midpoint, clamped to the smallest and largest
// values seen, and the percentile interpolates between two such representatives as above. So:
//   values in [2^-10 s, 2^32 s) (about 1 ms to 136 years): relative error <= 2^-8 = 0.39%;
//   values below 2^-10 s: absolute error <= 2^-11 s (0.49 ms); exact zeros stay exact;
//   values from 2^32 s up: reported as the largest value seen.
// Everything is integer bit manipulation and IEEE arithmetic in a fixed order: the same bits
// on every backend. No allocation; the histogram is cleared only when a replication first
// needs it, so short replications pay for 64 stores, not for the histogram's 21 KB.
#pragma once
#include <cstdint>

#include "gpucap/portable.hpp"
#include "gpucap/portable_math.hpp"

namespace gpucap {

struct QuantileRecorder {
  static constexpr uint32_t kExact = 64;
  static constexpr int kSubBinBits = 7;
  static constexpr int kSubBins = 1 << kSubBinBits;
  static constexpr int kMinExponent = -10;  // 2^-10 s ~ 0.98 ms
  static constexpr int kMaxExponent = 32;   // 2^32 s ~ 136 years
  static constexpr int kLogBins = (kMaxExponent - kMinExponent) * kSubBins;
  /// Bin 0: values <= 0 (and NaN); bin 1: (0, 2^kMinExponent); bins 2..kLogBins+1: the
  /// log-linear bins; the last: from 2^kMaxExponent up.
  static constexpr int kBins = kLogBins + 3;
  /// Bound on the relative error of a percentile of values in [2^kMinExponent, 2^kMaxExponent).
  static constexpr double kRelativeErrorBound = 1.0 / (2 * kSubBins);
  /// Most probabilities one call of quantiles() serves.
  static constexpr int kMaxQuantiles = 4;

  uint64_t total;
  double min, max;  ///< of the values seen (valid once total > 0)
  uint32_t low_bin, high_bin;  ///< bins in use, in histogram mode
  double exact[kExact];        ///< the first kExact values, in arrival order (sorted at the end)
  uint32_t counts[kBins];      ///< valid once total > kExact

  GPUCAP_HD void clear() { total = 0; }

  GPUCAP_HD GPUCAP_FORCEINLINE static int bin_of(double x) {
    if (!(x > 0)) return 0;
    const uint64_t bits = pmath::bits_of(x);
    const int exponent = static_cast<int>((bits >> 52) & 0x7FF) - 1023;
    if (exponent < kMinExponent) return 1;
    if (exponent >= kMaxExponent) return kBins - 1;
    const int sub = static_cast<int>((bits >> (52 - kSubBinBits)) & (kSubBins - 1));
    return 2 + (exponent - kMinExponent) * kSubBins + sub;
  }

  /// Lower edge of log-linear bin b (2 <= b <= kLogBins + 1) and its width.
  GPUCAP_HD static double lower_edge(int b) {
    const int i = b - 2;
    const double octave = pmath::pow2i(kMinExponent + i / kSubBins);
    return octave * (1.0 + static_cast<double>(i % kSubBins) / kSubBins);
  }
  GPUCAP_HD static double width(int b) {
    return pmath::pow2i(kMinExponent + (b - 2) / kSubBins) / kSubBins;
  }

  GPUCAP_HD GPUCAP_FORCEINLINE void add(double x) {
    if (total < kExact) {
      exact[total++] = x;
      return;
    }
    if (total == kExact) spill();
    count(x);
    ++total;
  }

  /// The q-quantiles (type 7) of the values for the `n` <= kMaxQuantiles probabilities in `q`
  /// (each in [0, 1]), into out; NaN when no value was recorded. Call once, at the end: it sorts the
  /// exact values in place.
  GPUCAP_HD void quantiles(const double* q, int n, double* out) {
    if (total == 0) {
      for (int i = 0; i < n; ++i) out[i] = pmath::quiet_nan();
      return;
    }
    if (total <= kExact) {
      sort_exact();
      for (int i = 0; i < n; ++i) {
        uint64_t lo;
        double fraction;
        rank_of(q[i], lo, fraction);
        const uint64_t hi = lo + 1 < total ? lo + 1 : lo;
        out[i] = exact[lo] + fraction * (exact[hi] - exact[lo]);
      }
      return;
    }
    // One pass over the bins in use finds the representatives of every rank asked for.
    uint64_t ranks[2 * kMaxQuantiles];
    double values[2 * kMaxQuantiles];
    double fractions[kMaxQuantiles];
    const int m = n < kMaxQuantiles ? n : kMaxQuantiles;
    for (int i = 0; i < m; ++i) {
      rank_of(q[i], ranks[2 * i], fractions[i]);
      ranks[2 * i + 1] = ranks[2 * i] + 1 < total ? ranks[2 * i] + 1 : ranks[2 * i];
    }
    // Visit the ranks in ascending order (hi of one q may pass lo of the next).
    int order[2 * kMaxQuantiles];
    for (int i = 0; i < 2 * m; ++i) {
      int j = i;
      while (j > 0 && ranks[order[j - 1]] > ranks[i]) {
        order[j] = order[j - 1];
        --j;
      }
      order[j] = i;
    }
    int next = 0;
    uint64_t through = 0;  // values in bins up to and including b
    for (uint32_t b = low_bin; b <= high_bin && next < 2 * m; ++b) {
      through += counts[b];
      while (next < 2 * m && ranks[order[next]] < through) values[order[next++]] = representative(b);
    }
    for (int i = 0; i < m; ++i)
      out[i] = values[2 * i] + fractions[i] * (values[2 * i + 1] - values[2 * i]);
  }

 private:
  /// Type 7: h = (total - 1) q, between order statistics floor(h) and floor(h) + 1.
  GPUCAP_HD void rank_of(double q, uint64_t& lo, double& fraction) const {
    const double h = static_cast<double>(total - 1) * q;
    lo = static_cast<uint64_t>(h);
    if (lo > total - 1) lo = total - 1;
    fraction = h - static_cast<double>(lo);
  }

  /// The value standing for every value in bin b.
  GPUCAP_HD double representative(uint32_t b) const {
    double v;
    if (b == 0) return 0.0;  // zeros (durations are never negative)
    if (b == 1) {
      v = pmath::pow2i(kMinExponent - 1);
    } else if (b == static_cast<uint32_t>(kBins - 1)) {
      v = max;
    } else {
      v = lower_edge(static_cast<int>(b)) + 0.5 * width(static_cast<int>(b));
    }
    return v < min ? min : (v > max ? max : v);
  }

  GPUCAP_HD GPUCAP_FORCEINLINE void count(double x) {
    const uint32_t b = static_cast<uint32_t>(bin_of(x));
    ++counts[b];
    if (b < low_bin) low_bin = b;
    if (b > high_bin) high_bin = b;
    if (x < min) min = x;
    if (x > max) max = x;
  }

  /// The exact buffer is full: from now on values are counted in bins.
  GPUCAP_HD void spill() {
    for (int b = 0; b < kBins; ++b) counts[b] = 0;
    low_bin = kBins;
    high_bin = 0;
    min = exact[0];
    max = exact[0];
    for (uint32_t i = 0; i < kExact; ++i) count(exact[i]);
  }

  /// Insertion sort of the (at most kExact) exact values.
  GPUCAP_HD void sort_exact() {
    for (uint64_t i = 1; i < total; ++i) {
      const double x = exact[i];
      uint64_t j = i;
      while (j > 0 && exact[j - 1] > x) {
        exact[j] = exact[j - 1];
        --j;
      }
      exact[j] = x;
    }
  }
};

}  // namespace gpucap
