// gpucap: the bucket of a value in a quantile sketch (quantile_sketch.hpp), computed the same way
// on the host and on a device, so that a device can group a batch's values by bucket and hand
// the host (bucket, count, smallest, largest) instead of the values themselves.
//
// A value's key is its IEEE-754 bits mapped to an unsigned integer that increases with the value
// (negative values below positive ones, -0 just below +0), without the low 52 - 9 mantissa
// bits: 2^9 buckets per octave and sign, each at most 2^-9 of its lower edge wide. Keys are
// below 2^21.
#pragma once
#include <cstdint>

#include "gpucap/portable.hpp"
#include "gpucap/portable_math.hpp"

namespace gpucap {

/// Mantissa bits a bucket keeps: 2^9 = 512 buckets per octave.
constexpr int kSketchMantissaBits = 9;
/// Low bits of the ordered bits a bucket key drops.
constexpr int kSketchDroppedBits = 52 - kSketchMantissaBits;

/// The value's bits as an unsigned key that increases with the value.
GPUCAP_HD inline uint64_t sketch_ordered_bits(double x) {
  constexpr uint64_t kSignBit = uint64_t{1} << 63;
  const uint64_t bits = pmath::bits_of(x);
  return (bits & kSignBit) ? ~bits : bits | kSignBit;
}

/// The bucket of x (not NaN): its ordered bits without the low mantissa bits.
GPUCAP_HD inline uint32_t sketch_bucket_key(double x) {
  return static_cast<uint32_t>(sketch_ordered_bits(x) >> kSketchDroppedBits);
}

}  // namespace gpucap
