// gpucap: count, mean and sum of squared deviations of a metric, in blocks of replications.
//
// Summaries must not depend on the backend. Every backend therefore reduces the same blocks in
// the same order with the same operations: block b of a column holds replications
// [b * kMomentBlock, (b + 1) * kMomentBlock), reduced one value at a time by Welford's update
// (block_moments, portable: a GPU reduces its blocks on the device), and the blocks are then
// merged in increasing order by Chan's formula (merge_moments, on the host). With FMA
// contraction off this gives the same bits on the CPU, on Thrust's OpenMP system and on CUDA.
// A NaN value is a metric not defined in that replication (no observation: e.g. the mean wait
// when no job launched): it is left out, so n counts the replications where it is defined.
#pragma once
#include <cstdint>

#include "gpucap/portable.hpp"

namespace gpucap {

/// Replications per moment block. Device batches start on a multiple of it.
constexpr uint64_t kMomentBlock = 256;

/// Moments of n values: their mean and the sum of squared deviations from it (m2).
struct Moments {
  double n = 0;
  double mean = 0;
  double m2 = 0;
};

/// Adds x to m (Welford's update); a NaN is left out.
GPUCAP_HD inline void add_to_moments(Moments& m, double x) {
  if (x != x) return;  // not defined in this replication
  m.n += 1.0;
  const double delta = x - m.mean;
  m.mean += delta / m.n;
  m.m2 += delta * (x - m.mean);
}

/// Moments of values[0], values[stride], ..., values[(count - 1) * stride], in that order,
/// NaNs left out.
GPUCAP_HD inline Moments block_moments(const double* values, uint64_t count, uint64_t stride) {
  Moments m;
  for (uint64_t i = 0; i < count; ++i) add_to_moments(m, values[i * stride]);
  return m;
}

/// Moments of the paired differences mine[i * stride] - base[i * stride], i < count, in that
/// order, NaNs left out (a sweep point against point 0, replication by replication).
GPUCAP_HD inline Moments difference_block_moments(const double* mine, const double* base,
                                                  uint64_t count, uint64_t stride) {
  Moments m;
  for (uint64_t i = 0; i < count; ++i) add_to_moments(m, mine[i * stride] - base[i * stride]);
  return m;
}

/// Moments of the union of two sets of values (Chan, Golub and LeVeque, 1979).
GPUCAP_HD inline Moments merge_moments(const Moments& a, const Moments& b) {
  if (b.n == 0) return a;
  if (a.n == 0) return b;
  Moments m;
  m.n = a.n + b.n;
  const double delta = b.mean - a.mean;
  m.mean = a.mean + delta * (b.n / m.n);
  m.m2 = a.m2 + b.m2 + delta * delta * (a.n * b.n / m.n);
  return m;
}

}  // namespace gpucap
