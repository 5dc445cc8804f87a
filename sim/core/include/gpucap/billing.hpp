// gpucap: billing arithmetic shared by jobs and inference replicas.
#pragma once
#include <cstdint>

#include "gpucap/portable.hpp"

namespace gpucap {

/// Billed seconds of one hold of `held_s` seconds: rounded up to the increment (a hold within
/// 1 ns of a boundary is not rounded past it), and at least the minimum.
GPUCAP_HD inline double billed_seconds(double held_s, double increment_s, double minimum_s) {
  double billed = held_s;
  if (increment_s > 0) {
    // ceil by truncation: increments counts are far below 2^63 (horizons are finite).
    // (per-second billing skips the division: x / 1 is x, bit for bit)
    const double x = increment_s == 1.0 ? held_s - 1e-9 : (held_s - 1e-9) / increment_s;
    double increments = static_cast<double>(static_cast<int64_t>(x));
    if (increments < x) increments += 1.0;
    billed = (increments > 0 ? increments : 0.0) * increment_s;
  }
  return billed > minimum_s ? billed : minimum_s;
}

}  // namespace gpucap
