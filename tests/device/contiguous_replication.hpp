// Test support: one replication in a contiguous arena (the host's layout), callable from a
// translation unit built with interleaved arenas (GPUCAP_ARENA_LANES > 1). Nothing here depends
// on the lanes: the declaration is the same in both.
#pragma once
#include <cstdint>
#include <vector>

#include "gpucap/compiled_model.hpp"

namespace gpucap::testing_support {

/// What one replication wrote: its status (ReplicationStatus), scalars, pool rows and time
/// series ([pool][bin]).
struct ReplicationOutput {
  int status = -1;
  std::vector<double> scalars, pools, series;
};

/// Replication `replication` of `model` under `seed`, stopped after `max_events` events
/// (run_replication_limited), in a contiguous arena.
ReplicationOutput run_contiguous(const CompiledModel& model, uint64_t seed, uint64_t replication,
                                 uint64_t max_events);

}  // namespace gpucap::testing_support
