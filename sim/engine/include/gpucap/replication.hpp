// gpucap: one replication of a compiled model, the heart of the portable core.
//
//   size_t bytes = replication_arena_bytes(model);   // per concurrent replication
//   int status = run_replication(model, seed, r, arena, scalars, pool_values);
//
// run_replication simulates one independent future from time 0 to model.horizon_s and writes
// kScalarMetricCount scalars and pool_count x kPoolMetricCount pool values (row-major). Its random
// numbers come from Philox streams keyed by (seed, r, stream id), so the result depends on
// (model, seed, r) alone. It allocates nothing: all state lives in `arena` (8-byte aligned,
// replication_arena_bytes long), so the same code runs on a CPU thread or a GPU thread.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "gpucap/arena_ptr.hpp"
#include "gpucap/compiled_model.hpp"
#include "gpucap/engine/replication_engine.hpp"
#include "gpucap/metrics.hpp"

namespace gpucap {

enum ReplicationStatus : int {
  kReplicationOk = 0,
  kReplicationCalendarOverflow = 1,  ///< a bug: the calendar bound was wrong
  kReplicationEventLimit = 2,        ///< stopped after the caller's max_events (tests, fuzzing)
  kReplicationCancelled = 3,         ///< stopped because the run was cancelled (host only)
};

namespace detail {
/// The stop condition of run_replication_cancellable. Host only (it reads an atomic); it is
/// marked for both sides because the event loop it is passed to is, and never stops on a device.
struct CancelFlag {
  static constexpr bool kActive = true;
  const std::atomic<bool>* cancel;
  GPUCAP_HD int status(uint64_t events) const {
#if defined(__CUDA_ARCH__)
    (void)events;
    return kReplicationOk;
#else
    return (events & 0xFFFF) == 0 && cancel->load(std::memory_order_relaxed) ? kReplicationCancelled
                                                                             : kReplicationOk;
#endif
  }
};
}  // namespace detail

// What follows depends on the arena layout (arena_ptr.hpp): one copy per lane count.
GPUCAP_ARENA_NAMESPACE_BEGIN

/// Bytes of state one replication of `model` needs (a group of interleaved arenas needs
/// kArenaLanes times as many).
GPUCAP_HD inline size_t replication_arena_bytes(const CompiledModel& model) {
  return engine::ArenaLayout::of(model).total_bytes;
}

/// Runs replication `replication` of `model` under `seed` with the engine's instantiation for
/// Features F (engine_features.hpp): AllFeatures runs any model, CoreFeatures only a model
/// with CompiledModel::core_only (the same bits, faster). For run_replication and the tests.
template <typename F>
GPUCAP_HD inline int run_replication_with(const CompiledModel& model, uint64_t seed,
                                          uint64_t replication, void* arena, double* scalars,
                                          double* pool_values, double* timeseries = nullptr,
                                          void* calendar_memory = nullptr, uint32_t lane = 0) {
  engine::BasicReplicationEngine<engine::NoRecorder, F> engine(model, seed, replication, arena,
                                                               scalars, pool_values, timeseries,
                                                               nullptr, calendar_memory, lane);
  return engine.run();
}

/// Runs replication `replication` of `model` under `seed`. Returns a ReplicationStatus.
/// `timeseries` receives pool_count x model.timeseries_bins values (GPUs in use per pool and
/// bin) when the model records a time series; it may be null otherwise. `calendar_memory`, when
/// not null, holds the event calendar instead of the arena's first
/// ArenaLayout::calendar_part_bytes (a GPU's shared memory): the same results. Where arenas
/// are interleaved (kArenaLanes > 1, arena_ptr.hpp), `arena` and `calendar_memory` are those of
/// the group of kArenaLanes replications, and this one is its lane `lane`.
GPUCAP_HD inline int run_replication(const CompiledModel& model, uint64_t seed,
                                     uint64_t replication, void* arena, double* scalars,
                                     double* pool_values, double* timeseries = nullptr,
                                     void* calendar_memory = nullptr, uint32_t lane = 0) {
  return model.core_only
             ? run_replication_with<engine::CoreFeatures>(model, seed, replication, arena, scalars,
                                                          pool_values, timeseries, calendar_memory,
                                                          lane)
             : run_replication_with<engine::AllFeatures>(model, seed, replication, arena, scalars,
                                                         pool_values, timeseries, calendar_memory,
                                                         lane);
}

/// Bytes of `model`'s event calendar (with its arrival slots), which run_replication's
/// `calendar_memory` holds when given.
GPUCAP_HD inline size_t replication_calendar_bytes(const CompiledModel& model) {
  return engine::ArenaLayout::of(model).calendar_part_bytes;
}

/// As run_replication, but stops after `max_events` events with kReplicationEventLimit (its
/// metrics are then partial): for tests and fuzzing, where a valid scenario may run for hours.
/// `calendar_memory` and `lane` as for run_replication.
inline int run_replication_limited(const CompiledModel& model, uint64_t seed, uint64_t replication,
                                   void* arena, double* scalars, double* pool_values,
                                   double* timeseries, uint64_t max_events,
                                   void* calendar_memory = nullptr, uint32_t lane = 0) {
  engine::ReplicationEngine engine(model, seed, replication, arena, scalars, pool_values,
                                   timeseries, nullptr, calendar_memory, lane);
  return engine.run_limited(max_events);
}

/// As run_replication, on the host, but stops with kReplicationCancelled (its metrics partial)
/// soon after `*cancel` becomes true: the flag is read every 65,536 events (a few milliseconds),
/// so that Ctrl-C does not wait for a long replication to end. Until then, the same bits.
inline int run_replication_cancellable(const CompiledModel& model, uint64_t seed,
                                       uint64_t replication, void* arena, double* scalars,
                                       double* pool_values, double* timeseries,
                                       const std::atomic<bool>* cancel) {
  if (model.core_only) {
    engine::BasicReplicationEngine<engine::NoRecorder, engine::CoreFeatures> engine(
        model, seed, replication, arena, scalars, pool_values, timeseries);
    return engine.run_until(detail::CancelFlag{cancel});
  }
  engine::ReplicationEngine engine(model, seed, replication, arena, scalars, pool_values,
                                   timeseries);
  return engine.run_until(detail::CancelFlag{cancel});
}

GPUCAP_ARENA_NAMESPACE_END
}  // namespace gpucap
