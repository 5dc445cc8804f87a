// Test support: synthetic systems for selection procedures. System i's value at replication r
// is mean_i + common_sd Z_r + sd_i E_ir with Z_r, E_ir standard normal, keyed by (seed, r) and
// (seed, r, i) through a counter-based hash: the values depend on (seed, system, replication)
// alone, and Z_r is shared by every system (common random numbers, positive correlation).
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include "gpucap/select_best.hpp"

namespace gpucap::testing_support {

/// SplitMix64's finalizer: a bijective mixer of 64 bits.
inline uint64_t mix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// A standard normal keyed by (a, b, c) (Box-Muller on two hashed uniforms in (0, 1)).
inline double keyed_normal(uint64_t a, uint64_t b, uint64_t c) {
  const uint64_t h = mix64(mix64(mix64(a) ^ b) ^ (c * 0x632be59bd9b4e019ULL));
  const double u1 = (static_cast<double>(h >> 11) + 0.5) * 0x1.0p-53;
  const double u2 = (static_cast<double>(mix64(h) >> 11) + 0.5) * 0x1.0p-53;
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

struct NormalSystems {
  std::vector<double> means, sds;
  double common_sd = 0;
  uint64_t seed = 0;

  double value(std::size_t i, uint64_t r) const {
    return means[i] + common_sd * keyed_normal(seed, r, 0) + sds[i] * keyed_normal(seed, r, i + 1);
  }

  /// The sampler select_best takes.
  SelectionSampler sampler() const {
    return [this](const std::vector<std::size_t>& points, uint64_t first, uint64_t count) {
      std::vector<double> out(points.size() * count);
      for (std::size_t j = 0; j < points.size(); ++j)
        for (uint64_t t = 0; t < count; ++t) out[j * count + t] = value(points[j], first + t);
      return out;
    };
  }
};

}  // namespace gpucap::testing_support
