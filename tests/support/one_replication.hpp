// Test support: run replication 0 of a scenario (seed 1) and read its metrics.
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

}  // namespace gpucap::testing_support
