// Test support: bit-for-bit equality of doubles, under which a NaN (a metric not defined in a
// replication) equals the same NaN, as the determinism guarantees require.
#pragma once
#include <cstring>
#include <vector>

#include "gpucap/summary.hpp"

namespace gpucap::testing_support {

inline bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

inline bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

/// Two summaries field by field, each double bit for bit. Never memcmp the structs: the bytes
/// of padding after the flags are indeterminate (under clang's ThreadSanitizer they differed
/// between two runs whose every field agreed).
inline bool same_bits(const MetricSummary& a, const MetricSummary& b) {
  return a.n == b.n && same_bits(a.mean, b.mean) && same_bits(a.std, b.std) &&
         same_bits(a.ci95_low, b.ci95_low) && same_bits(a.ci95_high, b.ci95_high) &&
         same_bits(a.p5, b.p5) && same_bits(a.p50, b.p50) && same_bits(a.p95, b.p95) &&
         a.clipped_low == b.clipped_low && a.clipped_high == b.clipped_high;
}

inline bool same_bits(const std::vector<MetricSummary>& a, const std::vector<MetricSummary>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!same_bits(a[i], b[i])) return false;
  return true;
}

}  // namespace gpucap::testing_support
