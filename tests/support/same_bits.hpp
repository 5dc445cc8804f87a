// Test support: bit-for-bit equality of doubles, under which a NaN (a metric not defined in a
// replication) equals the same NaN, as the determinism guarantees require.
#pragma once
#include <cstring>
#include <vector>

namespace gpucap::testing_support {

inline bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

inline bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

}  // namespace gpucap::testing_support
