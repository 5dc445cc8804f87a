// gpucap: when the provider reclaims a hold on a preemptible pool (spot, marketplace). One draw
// for every kind of hold: a job's run (replication_engine.hpp) and an inference replica's
// lifetime (replica_lifecycle.hpp) take the same rule from here.
#pragma once
#include "gpucap/compiled_model.hpp"
#include "gpucap/distribution.hpp"
#include "gpucap/portable.hpp"
#include "gpucap/philox.hpp"

namespace gpucap {

/// Seconds from the start of a hold on `pool` until it is reclaimed: the pool's time to
/// preemption drawn from `stream` (the pool's preemption stream), capped by its max_runtime;
/// +infinity when the pool has neither. Draws one number exactly when the pool has a time to
/// preemption (the order of draws on the stream is part of the results' bits).
GPUCAP_HD inline double time_to_reclaim(const CompiledPool& pool, RandomStream& stream,
                                        const double* table) {
  double reclaim_s = __builtin_huge_val();
  if (pool.has_time_to_preemption) reclaim_s = sample(pool.time_to_preemption_s, stream, table);
  if (pool.max_runtime_s > 0 && pool.max_runtime_s < reclaim_s) reclaim_s = pool.max_runtime_s;
  return reclaim_s;
}

}  // namespace gpucap
