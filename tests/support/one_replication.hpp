// Test support: run replication 0 of a scenario (seed 1), or replications 0..n-1, and read
// their metrics.
#pragma once
#include <cstddef>
#include <cstdint>
#include <gtest/gtest.h>
#include <vector>

#include "gpucap/compile.hpp"
#include "gpucap/metrics.hpp"
#include "gpucap/replication.hpp"
#include "gpucap/scenario.hpp"

namespace gpucap::testing_support {

/// The metrics of one replication: scalars, and pool rows [pool][kPoolMetricCount].
struct Row {
  std::vector<double> scalars, pools;
  double operator[](ScalarMetric m) const { return scalars[m]; }
  double pool(std::size_t p, PoolMetric m) const { return pools[p * kPoolMetricCount + m]; }
};

inline Row run_once(const Scenario& s) {
  const ModelStorage storage = compile(s);
  const CompiledModel& model = storage.model();
  std::vector<uint64_t> arena((replication_arena_bytes(model) + 7) / 8);
  Row r{std::vector<double>(kScalarMetricCount),
        std::vector<double>(model.pool_count * kPoolMetricCount)};
  EXPECT_EQ(run_replication(model, 1, 0, arena.data(), r.scalars.data(), r.pools.data()),
            kReplicationOk);
  return r;
}

/// Scalar metric m of replications 0..n-1 (seed 1), in order.
inline std::vector<double> metric_over_replications(const Scenario& s, ScalarMetric m,
                                                    uint64_t n) {
  const ModelStorage storage = compile(s);
  const CompiledModel& model = storage.model();
  std::vector<uint64_t> arena((replication_arena_bytes(model) + 7) / 8);
  std::vector<double> scalars(kScalarMetricCount), pools(model.pool_count * kPoolMetricCount);
  std::vector<double> out;
  for (uint64_t r = 0; r < n; ++r) {
    EXPECT_EQ(run_replication(model, 1, r, arena.data(), scalars.data(), pools.data()),
              kReplicationOk);
    out.push_back(scalars[m]);
  }
  return out;
}

}  // namespace gpucap::testing_support
