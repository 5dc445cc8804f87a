// gpucap: percentiles of a metric across any number of replications, in memory that does not
// grow with them: a mergeable log-linear histogram with a stated error bound.
//
// A value's bucket is read from its IEEE-754 bits (as QuantileRecorder and HdrHistogram do):
// its sign, its exponent and the top kMantissaBits bits of its mantissa. Each octave [2^e,
// 2^(e+1)) (and its negative mirror) is so split into 512 equal buckets, a bucket's width at
// most 2^-9 of its lower edge. A bucket keeps how many values fell in it and the smallest and
// largest of them. Counts add and minima and maxima are order-free, so sketches merged in any
// order or chunking, from any backend, hold the same bits (integer operations on the bits, no
// logarithm).
//
// Percentiles are type 7 (linear interpolation between order statistics, numpy's default), as
// summarize() gives them from the rows. The order statistic of rank k is represented by the
// midpoint of its bucket, clamped to the bucket's smallest and largest value, so:
//   - it is within kRelativeError = 2^-10 (< 0.1%) of the true order statistic, relative to it;
//   - it is exact when its bucket holds one distinct value (counts, zeros, costs that repeat),
//     and at ranks 0 and n - 1 (the smallest and the largest value);
//   - a percentile, interpolating between two such values of one sign, is within the same bound.
// Memory: 12 KiB per octave that received a value (a metric spanning 1 ms to 1 day: 27 octaves,
// 324 KiB), whatever the number of values.
//
//   QuantileSketch s;
//   for (double x : values) s.add(x);      // NaN: the caller leaves it out
//   double p95 = s.quantile(0.95);
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpucap/sketch_bucket.hpp"

namespace gpucap {

class QuantileSketch {
 public:
  static constexpr int kMantissaBits = kSketchMantissaBits;
  static constexpr int kBucketsPerOctave = 1 << kMantissaBits;
  /// Bound on the error of a percentile relative to the exact one (values of one sign).
  static constexpr double kRelativeError = 1.0 / (2 * kBucketsPerOctave);

  QuantileSketch() = default;
  QuantileSketch(const QuantileSketch& other);
  QuantileSketch& operator=(const QuantileSketch& other);
  QuantileSketch(QuantileSketch&&) noexcept = default;
  QuantileSketch& operator=(QuantileSketch&&) noexcept = default;

  /// Adds one value (not NaN: callers leave undefined values out).
  void add(double x);
  /// Adds n values of bucket `key` (sketch_bucket.hpp), the smallest `min` and the largest
  /// `max`: the same bits as adding them one by one (a device groups a batch's values so).
  /// Throws std::invalid_argument when min or max lies outside the bucket, or min > max.
  void add_bucket(uint32_t key, uint64_t n, double min, double max);
  /// Adds every value of `other`: the same bits as adding them one by one, in any order.
  void merge(const QuantileSketch& other);

  /// Values added.
  uint64_t count() const { return count_; }
  /// Type-7 quantile for probability q in [0, 1]; NaN when empty.
  double quantile(double q) const;
  /// Buckets that hold a value (for tests and memory figures).
  std::size_t occupied_buckets() const;
  /// Bytes this sketch holds.
  std::size_t memory_bytes() const;

  /// Appends the sketch to `out` in a portable byte form (little-endian; occupied buckets only).
  void serialize(std::string& out) const;
  /// Reads a sketch serialize() wrote at `data[pos]`, advancing pos; throws
  /// std::invalid_argument when the bytes are not one (truncated, buckets out of order, counts
  /// that do not add up, a minimum above its maximum or outside its bucket).
  static QuantileSketch deserialize(const std::string& data, std::size_t& pos);

  bool operator==(const QuantileSketch& other) const;

 private:
  /// The buckets of one octave (one sign, one exponent).
  struct Page {
    uint32_t octave = 0;  ///< the bucket key's high bits (see sketch_bucket_key)
    std::array<uint64_t, kBucketsPerOctave> n{};
    std::array<double, kBucketsPerOctave> min{}, max{};
  };

  Page& page_of(uint32_t octave);
  /// The value of rank k (0-based, k < count_) as the class comment describes.
  double value_of_rank(uint64_t k) const;
  void add_to_bucket(uint32_t key, uint64_t n, double min, double max);

  std::vector<std::unique_ptr<Page>> pages_;  ///< by increasing octave (= increasing values)
  std::size_t last_page_ = 0;                 ///< the page add() found last (a hint)
  uint64_t count_ = 0;
};

}  // namespace gpucap
