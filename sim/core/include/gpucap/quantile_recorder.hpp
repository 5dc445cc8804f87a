// gpucap: the per-replication percentiles of a duration (wait, completion, request latency),
// with a stated bound on their error, in fixed memory.
//
// The first kExact values are kept as they are: up to kExact observations the percentiles are
// exact (type 7, linear interpolation between order statistics, as numpy's default). From the
// next one on, the values go into a log-linear histogram whose bins follow the binary
// representation of the value (as HdrHistogram does): each octave [2^e, 2^(e+1)) is split into
// kSubBins = 128 equal parts, so a bin's width is at most 1/128 of its lower edge. An order
// statistic is then represented by its bin's midpoint, and the percentile interpolates between
// two such representatives as above. So:
//   values in [2^-10 s, 2^32 s) (about 1 ms to 136 years): relative error <= 2^-8 = 0.39%;
//   values below 2^-10 s: absolute error <= 2^-11 s (0.49 ms); exact zeros stay exact;
//   values from 2^32 s up: reported as 2^32 s (no duration of a valid scenario comes near).
// A representative is clamped to the smallest and largest values seen (tracked in histogram mode
// with a min and a max per value), and the first and last ranks are those values, so a
// percentile never leaves the observed range (no completion time passes the horizon), and the
// 0th and 100th are exact.
// Everything is integer bit manipulation and IEEE arithmetic in a fixed order: the same bits
// on every backend. No allocation, and a short replication does not pay for the histogram's
// 21 KB: the bins of an octave are cleared when the octave receives its first value, and the
// percentiles skip whole octaves that hold no rank asked for.
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
  /// The bins as one index (bin_of; for tests and docs): 0: values <= 0 (and NaN); 1: (0,
  /// 2^kMinExponent); 2..kLogBins+1: the log-linear bins; the last: from 2^kMaxExponent up.
  static constexpr int kBins = kLogBins + 3;
  /// Bound on the relative error of a percentile of values in [2^kMinExponent, 2^kMaxExponent).
  static constexpr double kRelativeErrorBound = 1.0 / (2 * kSubBins);
  /// Most probabilities one call of quantiles() serves.
  static constexpr int kMaxQuantiles = 4;

  static constexpr int kOctaves = kMaxExponent - kMinExponent;

  uint64_t total;
  double exact[kExact];  ///< the first kExact values, in arrival order (sorted at the end)
  // Histogram mode (total > kExact): values <= 0, in (0, 2^kMinExponent), from 2^kMaxExponent
  // up, and per bin of an octave (valid only for the octaves whose bit of `touched` is set).
  uint32_t zeros, below, above;
  double lowest, highest;  ///< the smallest and largest values counted (NaN ignored)
  uint64_t touched;  ///< bit o: octave o has received a value (its bins were cleared then)
  uint32_t counts[kLogBins];  ///< bin o * kSubBins + j: octave o, part j (see log_index)
  static_assert(kOctaves <= 64, "one bit of `touched` per octave");

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

  /// The index of a value's log-linear bin, from its bits: exponent and top kSubBinBits of the
  /// mantissa read as one number, less the index of 2^kMinExponent. A value outside
  /// [2^kMinExponent, 2^kMaxExponent) (zero, negative, subnormal, NaN, infinite, tiny or huge)
  /// gives an index >= kLogBins (a negative one wraps around), so one comparison sorts it out.
  GPUCAP_HD GPUCAP_FORCEINLINE static uint64_t log_index(double x) {
    constexpr uint64_t kFirst = static_cast<uint64_t>(1023 + kMinExponent) << kSubBinBits;
    return (pmath::bits_of(x) >> (52 - kSubBinBits)) - kFirst;
  }

  GPUCAP_HD GPUCAP_FORCEINLINE void add(double x) {
    const uint64_t seen = total++;
    if (seen <= kExact) {  // one comparison on the common path (histogram mode)
      if (seen < kExact) {
        exact[seen] = x;
        return;
      }
      spill();
    }
    count(x);
  }

  /// The q-quantiles (type 7) of the values for the `n` <= kMaxQuantiles probabilities in `q`
  /// (each in [0, 1]), into out; NaN when no value was recorded. Call once, at the end: it sorts the
  /// exact values in place.
  GPUCAP_HD void quantiles(const double* q, int n, double* out) {
    if (total == 0) {
      for (int i = 0; i < n; ++i) out[i] = pmath::quiet_nan();
      return;
    }
    if (total == 1) {  // the one value is every order statistic (the same arithmetic below)
      const double x = exact[0];
      for (int i = 0; i < n; ++i) {
        uint64_t lo;
        double fraction;
        rank_of(q[i], lo, fraction);
        out[i] = x + fraction * (x - x);
      }
      return;
    }
    if (total <= kExact) {
      ExactSelection select(exact, static_cast<uint32_t>(total));
      for (int i = 0; i < n; ++i) {
        uint64_t lo;
        double fraction;
        rank_of(q[i], lo, fraction);
        const uint64_t hi = lo + 1 < total ? lo + 1 : lo;
        const double low = select.value_of_rank(static_cast<uint32_t>(lo));
        const double high = select.value_of_rank(static_cast<uint32_t>(hi));
        out[i] = low + fraction * (high - low);
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
    Walk walk{ranks, order, values, 2 * m, 0, 0};
    walk.bin(zeros, 0.0);
    walk.bin(below, pmath::pow2i(kMinExponent - 1));
    for (int o = 0; o < kOctaves && !walk.done(); ++o) {
      if (!((touched >> o) & 1u)) continue;
      const uint32_t* octave = counts + o * kSubBins;
      uint64_t octave_total = 0;
      for (int j = 0; j < kSubBins; ++j) octave_total += octave[j];
      if (!walk.reaches(octave_total)) {  // no rank asked for falls in this octave
        walk.through += octave_total;
        continue;
      }
      const double base = pmath::pow2i(kMinExponent + o);
      for (int j = 0; j < kSubBins && !walk.done(); ++j)
        if (octave[j] > 0) walk.bin(octave[j], base + (j + 0.5) * (base / kSubBins));
    }
    walk.bin(above, pmath::pow2i(kMaxExponent));
    for (int i = 0; i < 2 * m; ++i) values[i] = clamp_to_seen(values[i], ranks[i]);
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

  /// A walk through the bins in increasing order of value, giving each rank asked for (in
  /// ascending order: order[]) the representative of the bin that holds it.
  struct Walk {
    const uint64_t* ranks;
    const int* order;
    double* values;
    int count, next;
    uint64_t through;  ///< values in the bins walked so far
    GPUCAP_HD bool done() const { return next >= count; }
    /// True when the next rank asked for falls within the next n values.
    GPUCAP_HD bool reaches(uint64_t n) const { return !done() && ranks[order[next]] < through + n; }
    GPUCAP_HD void bin(uint64_t n, double representative) {
      through += n;
      while (next < count && ranks[order[next]] < through) values[order[next++]] = representative;
    }
  };

  /// The representative of rank `rank` within [lowest, highest], and the extremes themselves for
  /// the first and last ranks (unchanged when only NaN was seen).
  GPUCAP_HD double clamp_to_seen(double v, uint64_t rank) const {
    if (!(lowest <= highest)) return v;
    if (rank == 0) return lowest;
    if (rank == total - 1) return highest;
    return v < lowest ? lowest : v > highest ? highest : v;
  }

  GPUCAP_HD GPUCAP_FORCEINLINE void count(double x) {
    lowest = x < lowest ? x : lowest;  // minsd / maxsd: no branch
    highest = x > highest ? x : highest;
    const uint64_t index = log_index(x);
    if (index >= static_cast<uint64_t>(kLogBins)) {
      count_outside(x);
      return;
    }
    const uint32_t o = static_cast<uint32_t>(index >> kSubBinBits);
    if (!((touched >> o) & 1u)) {  // the octave's first value: its bins start from zero
      touched |= uint64_t{1} << o;
      for (int j = 0; j < kSubBins; ++j) counts[o * kSubBins + j] = 0;
    }
    ++counts[index];
  }

  /// A value outside the log-linear bins: <= 0 or NaN, below 2^kMinExponent, or from
  /// 2^kMaxExponent up.
  GPUCAP_HD void count_outside(double x) {
    if (!(x > 0))
      ++zeros;
    else if (x < pmath::pow2i(kMinExponent))
      ++below;
    else
      ++above;
  }

  /// The exact buffer is full: from now on values are counted in bins.
  GPUCAP_HD void spill() {
    zeros = below = above = 0;
    touched = 0;
    lowest = pmath::from_bits(0x7FF0000000000000ull);   // +infinity
    highest = pmath::from_bits(0xFFF0000000000000ull);  // -infinity
    for (uint32_t i = 0; i < kExact; ++i) count(exact[i]);
  }

  /// Order statistics of at most kExact values without sorting them all: the values are
  /// bucketed by octave, and only the bucket that holds a rank asked for is gathered and sorted
  /// (by insertion; a bucket holds a few of the values). Same result as a full sort; a third of
  /// its time on 50 values, whose sort's mispredicted branches would cost some 4% of a short
  /// replication.
  struct ExactSelection {
    static constexpr uint32_t kBuckets = kOctaves + 3;  // zeros, below, octaves, above
    static constexpr uint32_t kNone = 0xFFFFFFFFu;
    static constexpr uint32_t kAll = 0xFFFFFFFEu;  ///< gathered holds all n values, sorted
    /// Up to this many values (none NaN), all of them are sorted at once (insertion sort)
    /// instead of bucketed: the fixed cost of a replication that records only a few waits or
    /// completions. The same order statistics (the buckets are monotone in the value, and a
    /// bucket is sorted the same stable way), so the same bits; a NaN keeps the buckets,
    /// which define its place (with the values <= 0).
    static constexpr uint32_t kFewValues = 16;
    const double* values;
    uint32_t n;
    uint8_t bucket[kExact];
    uint32_t start[kBuckets + 1];  ///< values in the buckets before b
    double gathered[kExact];       ///< the values of bucket `gathered_bucket`, sorted
    uint32_t gathered_bucket = kNone;

    GPUCAP_HD static uint32_t bucket_of(double x) {
      if (!(x > 0)) return 0;
      const int exponent = static_cast<int>((pmath::bits_of(x) >> 52) & 0x7FF) - 1023;
      if (exponent < kMinExponent) return 1;
      if (exponent >= kMaxExponent) return kBuckets - 1;
      return 2 + static_cast<uint32_t>(exponent - kMinExponent);
    }

    GPUCAP_HD ExactSelection(const double* v, uint32_t count) : values(v), n(count) {
      if (n <= kFewValues && sort_all()) return;
      for (uint32_t b = 0; b <= kBuckets; ++b) start[b] = 0;
      for (uint32_t i = 0; i < n; ++i) {
        bucket[i] = static_cast<uint8_t>(bucket_of(values[i]));
        ++start[bucket[i] + 1];
      }
      for (uint32_t b = 0; b < kBuckets; ++b) start[b + 1] += start[b];
    }

    /// Sorts all n values into gathered (gathered_bucket = kAll); false when one is NaN.
    GPUCAP_HD bool sort_all() {
      for (uint32_t i = 0; i < n; ++i) {
        const double x = values[i];
        if (x != x) return false;
        uint32_t j = i;
        while (j > 0 && gathered[j - 1] > x) {
          gathered[j] = gathered[j - 1];
          --j;
        }
        gathered[j] = x;
      }
      gathered_bucket = kAll;
      return true;
    }

    /// The value of rank r (0: the smallest). Precondition: r < n.
    GPUCAP_HD double value_of_rank(uint32_t r) {
      if (gathered_bucket == kAll) return gathered[r];
      uint32_t b = 0;  // the bucket holding rank r: the number of buckets that end at or before r
      for (uint32_t k = 1; k <= kBuckets; ++k) b += static_cast<uint32_t>(start[k] <= r);
      if (b != gathered_bucket) {
        uint32_t m = 0;
        for (uint32_t i = 0; i < n; ++i) {  // without branches: always write, advance on a match
          gathered[m] = values[i];
          m += static_cast<uint32_t>(bucket[i] == b);
        }
        for (uint32_t i = 1; i < m; ++i) {
          const double x = gathered[i];
          uint32_t j = i;
          while (j > 0 && gathered[j - 1] > x) {
            gathered[j] = gathered[j - 1];
            --j;
          }
          gathered[j] = x;
        }
        gathered_bucket = b;
      }
      return gathered[r - start[b]];
    }
  };
};

}  // namespace gpucap
