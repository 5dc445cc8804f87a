// Test support, built with the host's layout (kArenaLanes = 1: contiguous arenas): one
// replication, for the interleaved-arena test to compare its lanes with (that test's own
// translation unit is built with GPUCAP_ARENA_LANES=32, so it cannot run this layout itself).
#include "contiguous_replication.hpp"

#include <cstdint>
#include <vector>

#include "gpucap/replication.hpp"

static_assert(gpucap::kArenaLanes == 1, "the reference is built with contiguous arenas");

namespace gpucap::testing_support {

ReplicationOutput run_contiguous(const CompiledModel& model, uint64_t seed, uint64_t replication,
                                 uint64_t max_events) {
  std::vector<uint64_t> arena((replication_arena_bytes(model) + 7) / 8);
  ReplicationOutput out;
  out.scalars.assign(kScalarMetricCount, 0.0);
  out.pools.assign(static_cast<std::size_t>(model.pool_count) * kPoolMetricCount, 0.0);
  out.series.assign(static_cast<std::size_t>(model.pool_count) * model.timeseries_bins, 0.0);
  out.status = run_replication_limited(model, seed, replication, arena.data(), out.scalars.data(),
                                       out.pools.data(), out.series.data(), max_events);
  return out;
}

}  // namespace gpucap::testing_support
