// gpucap engine: where each part of one replication's state lies in its arena (a block of
// bytes the backend provides: a CPU thread's buffer or a GPU thread's slice of device memory).
// Every part is 8-byte aligned; nothing else is allocated.
#pragma once
#include <cstddef>
#include <cstdint>

#include "gpucap/arena_ptr.hpp"
#include "gpucap/compiled_model.hpp"
#include "gpucap/engine/job_queue.hpp"
#include "gpucap/engine/job_slots.hpp"
#include "gpucap/engine/pool_capacity.hpp"
#include "gpucap/engine/price_process.hpp"
#include "gpucap/engine/service_fleet.hpp"
#include "gpucap/engine/trace_replay.hpp"
#include "gpucap/event_calendar.hpp"
#include "gpucap/philox.hpp"
#include "gpucap/quantile_recorder.hpp"

namespace gpucap::engine {
GPUCAP_ARENA_NAMESPACE_BEGIN

/// Per job class: the next unit-exponential gap and the next job's work, drawn one job ahead so
/// that their logarithms are computed off the critical path (the draws, and so the results, are
/// the same as drawing them on demand), and which trace layer holds the next job of a trace.
struct ClassState {
  double next_unit_gap;   ///< Exp(1) variate for the next inter-arrival time
  double next_work_s;     ///< reference-GPU seconds of the next job
  uint32_t trace_layer;   ///< a trace class: the layer whose job is the pending arrival
  uint32_t limited_jobs;  ///< jobs (or GPUs) of the class holding GPUs in its placement_limit pool
  uint32_t holding_jobs;  ///< a class with placement_limit.share: its jobs holding GPUs anywhere
  uint32_t unused_;
  /// This replication's multipliers of the class's arrival rate and work scale (uncertainty:
  /// e^(sd Z - sd^2/2)); 1 without one.
  double rate_factor;
  double scale_factor;
  /// Bursts (CompiledArrivals::burst_interval_s > 0): the current interval's end (s) and rate
  /// multiplier; drift (drift_interval_s > 0): its interval's end and the level; the stream of
  /// both (StreamKind::bursts), drawn in the order the search crosses their boundaries.
  double burst_end_s;
  double burst_factor;
  double drift_end_s;
  double drift_level;
  RandomStream burst_stream;
};

/// The random streams of each pool, in arena order after the two streams of each job class.
enum PoolStream : uint32_t {
  kProvisioningStream,
  kPreemptionStream,
  kStockoutStream,
  kSlowdownStream,
  kZoneEventStream,
  kPriceStream,
  kPoolStreamCount
};
/// The stream kind of each PoolStream (a function, not a table: device code reads no host arrays).
GPUCAP_HD inline StreamKind pool_stream_kind(uint32_t k) {
  switch (k) {
    case kProvisioningStream:
      return StreamKind::provisioning;
    case kPreemptionStream:
      return StreamKind::preemption;
    case kStockoutStream:
      return StreamKind::stockout;
    case kSlowdownStream:
      return StreamKind::slowdown;
    case kZoneEventStream:
      return StreamKind::zone_events;
    default:
      return StreamKind::price;
  }
}

/// Byte offsets of each part of a replication's arena.
struct ArenaLayout {
  size_t calendar, arrival_slots, slots, free_slots, queue, streams, class_state, free_gpus,
      availability, prices, price_marks, wait_quantiles, completion_quantiles, restore_quantiles,
      service_state, replicas, waiting_requests, latency_quantiles, request_wait_quantiles,
      trace_layers, autoscalers, autoscale_history, tracked_requests, commitment_usage,
      llm_running, llm_waiting, ttft_quantiles, tpot_quantiles, total_bytes;
  /// Bytes of the event calendar and its arrival slots, the first parts of the arena: a device
  /// may keep them apart, in faster memory (the engine's `calendar_memory`).
  size_t calendar_part_bytes;
  uint32_t calendar_capacity, arrival_slot_count, slot_capacity, stream_count;

  GPUCAP_HD static size_t align8(size_t n) { return (n + 7) & ~static_cast<size_t>(7); }

  GPUCAP_HD static ArenaLayout of(const CompiledModel& m) {
    ArenaLayout a{};
    a.slot_capacity = m.total_quota_gpus;
    // The heap: one event per slot, one availability change and one zone event per pool, one
    // stockout retry; per inference replica one start or idle check, and one completion per
    // request in service; one tick per windowed autoscaler; one reclaim per replica of a
    // preemptible service. Each class keeps its pending arrival beside the heap, in the
    // calendar's winner tree of slots (EventCalendar).
    a.calendar_capacity = m.total_quota_gpus + 2 * m.pool_count + 2 + m.replica_count +
                          m.request_capacity + m.windowed_service_count + m.preemptible_replicas;
    a.arrival_slot_count = m.class_count;
    a.stream_count = 2 * m.class_count + kPoolStreamCount * m.pool_count;
    size_t at = 0;
    const auto part = [&at](size_t bytes) {
      const size_t offset = at;
      at += align8(bytes);
      return offset;
    };
    a.calendar = part(sizeof(Event) * a.calendar_capacity);
    a.arrival_slots =
        part(sizeof(Event) * EventCalendar::slot_storage_events(a.arrival_slot_count));
    a.calendar_part_bytes = at;  // the calendar and its slots come first (offset 0)
    a.slots = part(sizeof(JobSlot) * a.slot_capacity);
    a.free_slots = part(sizeof(uint32_t) * a.slot_capacity);
    a.queue = part(sizeof(QueuedJob) * (m.queue_capacity + 1));
    a.streams = part(sizeof(RandomStream) * a.stream_count);
    a.class_state = part(sizeof(ClassState) * m.class_count);
    a.free_gpus = part(sizeof(int32_t) * m.pool_count);
    a.availability = part(sizeof(AvailabilityState) * m.pool_count);
    a.prices = part(sizeof(PriceState) * m.pool_count);
    a.price_marks = part(sizeof(double) * m.total_quota_gpus);
    a.wait_quantiles = part(sizeof(QuantileRecorder));
    a.completion_quantiles = part(sizeof(QuantileRecorder));
    a.restore_quantiles = part(m.has_deployments ? sizeof(QuantileRecorder) : 0);
    a.service_state = part(sizeof(ServiceState) * m.service_count);
    a.replicas = part(sizeof(ReplicaSlot) * m.replica_count);
    a.waiting_requests = part(sizeof(WaitingRequest) * m.request_queue_capacity);
    a.latency_quantiles = part(m.service_count > 0 ? sizeof(QuantileRecorder) : 0);
    a.request_wait_quantiles = part(m.service_count > 0 ? sizeof(QuantileRecorder) : 0);
    a.trace_layers = part(sizeof(TraceLayer) * m.trace_layer_count);
    a.autoscalers =
        part(m.windowed_service_count > 0 ? sizeof(AutoscalerState) * m.service_count : 0);
    a.autoscale_history = part(sizeof(double) * m.autoscale_history);
    a.tracked_requests = part(sizeof(TrackedRequest) * m.tracked_requests);
    // Per period of every billing commitment: GPU-seconds used and their on-demand USD.
    a.commitment_usage = part(2 * sizeof(double) * m.commitment_bins);
    // LLM services: every replica's batch, the waiting rooms (at the services' queue offsets),
    // the TTFT and TPOT recorders.
    const bool llm = m.llm_count > 0;
    a.llm_running = part(sizeof(LlmRequest) * m.llm_sequences);
    a.llm_waiting = part(llm ? sizeof(LlmRequest) * m.request_queue_capacity : 0);
    a.ttft_quantiles = part(llm ? sizeof(QuantileRecorder) : 0);
    a.tpot_quantiles = part(llm ? sizeof(QuantileRecorder) : 0);
    a.total_bytes = at;
    return a;
  }
};

/// One lane's parts in a group of kArenaLanes interleaved arenas (arena_ptr.hpp): the part at
/// byte `offset` of one replication's layout starts at kArenaLanes x `offset` in the group.
struct LaneParts {
  char* group;  ///< the group's storage, 8-byte aligned
  uint32_t lane;
  template <typename T>
  GPUCAP_HD ArenaPtr<T> at(size_t offset) const {
    return ArenaPtr<T>::in_group(group + offset * kArenaLanes, lane);
  }
};

GPUCAP_ARENA_NAMESPACE_END
}  // namespace gpucap::engine
