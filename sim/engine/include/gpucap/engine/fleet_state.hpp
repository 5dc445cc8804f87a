// gpucap engine: the state of the inference services' fleet in one replication, which its three
// parts share (replica_lifecycle.hpp, request_routing.hpp, fleet_autoscaling.hpp; composed by
// service_fleet.hpp): a state per service, a slot per replica, a ring-buffer waiting room per
// service, the requests in service of preemptible services, the windowed autoscalers' state,
// and the engine's components the fleet acts through (FleetContext).
//
// Units: times in s from the start of the horizon; counts in replicas, requests or slots.
//
// Invariants (they hold between events; a handler may break one only while it runs):
// - a replica has at most one pending start (replica_ready) or idle check (idle_check), plus
//   one completion (request_done) per request in service (active <= concurrency), plus one
//   reclaim (replica_preemption) per lifetime in a preemptible pool; this bounds the calendar.
// - ServiceState::replicas_up = replicas starting or warm; starting <= replicas_up.
// - free_slots = sum over the service's warm replicas of (concurrency - active); in_service =
//   sum of their active.
// - the waiting room is non-empty only while free_slots == 0.
// - in a preemptible service, the busy entries of a replica's block of TrackedRequest are its
//   requests in service (as many as active).
#pragma once
#include <cstdint>

#include "gpucap/arena_ptr.hpp"
#include "gpucap/compiled_model.hpp"
#include "gpucap/engine/ledger.hpp"
#include "gpucap/engine/llm_batch.hpp"
#include "gpucap/engine/pool_capacity.hpp"
#include "gpucap/engine/windowed_autoscaler.hpp"
#include "gpucap/event_calendar.hpp"
#include "gpucap/philox.hpp"
#include "gpucap/portable.hpp"
#include "gpucap/quantile_recorder.hpp"

namespace gpucap::engine {
GPUCAP_ARENA_NAMESPACE_BEGIN

enum ReplicaStateKind : uint16_t { kReplicaOff = 0, kReplicaStarting = 1, kReplicaWarm = 2 };

/// One replica of a service (its slot is reused across lifetimes).
struct ReplicaSlot {
  double up_since_s;    ///< start of this lifetime (launch)
  double ready_s;       ///< end of its cold start
  double busy_since_s;  ///< start of the current busy period (active > 0)
  double idle_since_s;  ///< start of the current idle period (warm, active == 0)
  double busy_s;        ///< seconds with requests in service in this lifetime (closed periods)
  uint32_t service;
  uint32_t active;  ///< requests in service
  uint16_t state;   ///< ReplicaStateKind
  uint16_t idle_check_pending;
  uint32_t pool;  ///< the pool of this lifetime: the service's, or its fallback pool
  // An LLM replica (llm_serving.hpp): `active` counts its running requests (its batch).
  uint32_t kv_blocks_used;  ///< KV-cache blocks its running requests hold
  uint32_t iterating;       ///< 1: an iteration is in flight (its request_done is pending)
};

/// A request in service on a replica of a preemptible service (it may have to restart).
struct TrackedRequest {
  double arrival_s;
  double service_s;  ///< wall-clock service time on its replica
  double start_s;    ///< its service began (it ends at start_s + service_s)
  uint32_t cold;
  uint32_t busy;  ///< 1: the entry holds a request in service
};

/// A request in a service's waiting room.
struct WaitingRequest {
  double arrival_s;
  double service_s;  ///< wall-clock service time in the pool
  uint32_t cold;     ///< 1: it waited while a replica was starting
  uint32_t unused_;
};

struct ServiceState {
  uint32_t replicas_up;  ///< starting or warm
  uint32_t starting;
  uint32_t in_service;  ///< requests being served
  uint32_t free_slots;  ///< free concurrency slots on warm replicas
  uint32_t queue_head, queue_size;
};

/// Metric accumulators of all services of one replication (statistics window only).
struct ServiceTotals {
  uint64_t arrived = 0, served = 0, dropped = 0, cold_served = 0, cold_starts = 0;
  uint64_t replica_preemptions = 0, restarted = 0;
  uint64_t slo_arrived = 0, slo_violations = 0;
  double latency_sum_s = 0;
  double request_wait_sum_s = 0;  ///< arrival to the start of (the last) service, served requests
  double replica_area = 0;        ///< integral of replicas up over the window, replica-seconds
  // LLM services (llm_serving.hpp): requests that arrived in the window, and of those the ones
  // that ended, their output tokens and those meeting both token SLOs; preemptions and the
  // tokens they dropped (in the window); integrals over the window of KV blocks held and of KV
  // blocks of warm replicas, block-seconds.
  uint64_t llm_arrived = 0, llm_ended = 0, llm_good = 0, llm_preemptions = 0;
  double llm_output_tokens = 0, llm_recomputed_tokens = 0, ttft_sum_s = 0, tpot_sum_s = 0;
  uint64_t tpot_count = 0;
  double kv_held_area = 0, kv_capacity_area = 0;
};

/// What the fleet shares with the rest of the replication.
struct FleetContext {
  const CompiledModel* model;
  EventCalendar* calendar;
  PoolCapacity* capacity;
  Ledger* ledger;
  ArenaPtr<RandomStream> provisioning_streams;  ///< per pool
  ArenaPtr<RandomStream> preemption_streams;    ///< per pool
  ArenaPtr<RandomStream> stockout_streams;      ///< per pool
  const double* now_s;                          ///< the engine's clock
};

/// The fleet's own arena parts.
struct FleetStorage {
  ArenaPtr<ServiceState> state;      ///< per service
  ArenaPtr<ReplicaSlot> replicas;    ///< model.replica_count
  ArenaPtr<WaitingRequest> waiting;  ///< model.request_queue_capacity
  ArenaPtr<QuantileRecorder> latency;
  ArenaPtr<QuantileRecorder> request_wait;
  ArenaPtr<AutoscalerState> autoscalers;  ///< per service when some service is windowed, else none
  ArenaPtr<double> autoscale_history;     ///< model.autoscale_history
  ArenaPtr<TrackedRequest> tracked;       ///< model.tracked_requests
  ArenaPtr<LlmRequest> llm_running;       ///< model.llm_sequences (CompiledLlm::seq_offset)
  ArenaPtr<LlmRequest> llm_waiting;  ///< model.request_queue_capacity when an LLM service exists
  ArenaPtr<QuantileRecorder> ttft;   ///< when an LLM service exists
  ArenaPtr<QuantileRecorder> tpot;
};

/// Everything the fleet's parts read and change: the arena's parts (FleetStorage), the engine's
/// components (FleetContext), and what the fleet counts itself. The parts are stateless structs
/// of static functions over one FleetState, which ServiceFleet holds and binds.
struct FleetState {
  const CompiledModel* model = nullptr;
  ArenaPtr<ServiceState> state = nullptr;    ///< per service
  ArenaPtr<ReplicaSlot> replicas = nullptr;  ///< model.replica_count
  ArenaPtr<WaitingRequest> waiting =
      nullptr;  ///< the services' waiting rooms (CompiledService::queue_offset)
  ArenaPtr<QuantileRecorder> latency = nullptr;
  ArenaPtr<QuantileRecorder> request_wait = nullptr;
  ArenaPtr<AutoscalerState> autoscalers = nullptr;  ///< per service when any_windowed
  ArenaPtr<double> autoscale_history = nullptr;
  bool any_windowed = false;  ///< some service has a windowed autoscaler
  EventCalendar* calendar = nullptr;
  PoolCapacity* capacity = nullptr;
  Ledger* ledger = nullptr;
  ArenaPtr<RandomStream> provisioning_streams =
      nullptr;  ///< per pool: cold starts' provisioning delays
  ArenaPtr<RandomStream> preemption_streams = nullptr;  ///< per pool: replica lifetimes' reclaims
  ArenaPtr<RandomStream> stockout_streams = nullptr;    ///< per pool: launch stockouts
  ArenaPtr<TrackedRequest> tracked = nullptr;           ///< CompiledService::tracked_offset
  const double* now_s = nullptr;                        ///< the engine's clock
  uint32_t replicas_up = 0;                             ///< over all services: starting or warm
  ServiceTotals totals;
  // LLM services: running requests per replica, waiting rooms (at CompiledService::queue_offset;
  // ServiceState::queue_head and queue_size index them), TTFT and TPOT recorders; KV blocks
  // held by all LLM replicas, and of those warm (the engine integrates both over time).
  ArenaPtr<LlmRequest> llm_running = nullptr;
  ArenaPtr<LlmRequest> llm_waiting = nullptr;
  ArenaPtr<QuantileRecorder> ttft = nullptr;
  ArenaPtr<QuantileRecorder> tpot = nullptr;
  double kv_blocks_held = 0;
  double kv_blocks_warm = 0;

  /// Points the state at the replication's context and arena, and empties it: every replica
  /// off, every waiting room and tracked request empty, every windowed autoscaler reset.
  GPUCAP_HD void bind(const FleetContext& context, const FleetStorage& storage) {
    const CompiledModel& m = *context.model;
    model = &m;
    state = storage.state;
    replicas = storage.replicas;
    waiting = storage.waiting;
    latency = storage.latency;
    request_wait = storage.request_wait;
    autoscalers = storage.autoscalers;
    autoscale_history = storage.autoscale_history;
    any_windowed = m.windowed_service_count > 0;
    calendar = context.calendar;
    capacity = context.capacity;
    ledger = context.ledger;
    provisioning_streams = context.provisioning_streams;
    preemption_streams = context.preemption_streams;
    stockout_streams = context.stockout_streams;
    tracked = storage.tracked;
    llm_running = storage.llm_running;
    llm_waiting = storage.llm_waiting;
    ttft = storage.ttft;
    tpot = storage.tpot;
    now_s = context.now_s;
    replicas_up = 0;
    totals = ServiceTotals{};
    kv_blocks_held = kv_blocks_warm = 0;
    if (m.service_count == 0) return;
    latency->clear();
    request_wait->clear();
    if (m.llm_count > 0) {
      ttft->clear();
      tpot->clear();
    }
    for (uint32_t v = 0; v < m.service_count; ++v) {
      const CompiledService& cs = m.services[v];
      state[v] = ServiceState{0, 0, 0, 0, 0, 0};
      for (uint32_t k = 0; k < cs.max_replicas; ++k) {
        ReplicaSlot& r = replicas[cs.replica_offset + k];
        r = ReplicaSlot{0, 0, 0, 0, 0, v, 0, kReplicaOff, 0, cs.pool, 0, 0};
      }
      // An LLM replica keeps its batch itself: no tracked requests (compile.cpp gives none).
      if (cs.preemptible && cs.llm == CompiledService::kNotLlm)
        for (uint32_t i = 0; i < cs.max_replicas * cs.concurrency; ++i)
          tracked[cs.tracked_offset + i] = TrackedRequest{0, 0, 0, 0, 0};
      if (cs.windowed) WindowedAutoscaler::reset(autoscalers[v], cs);
    }
  }

  /// The engine's clock, s.
  GPUCAP_HD double now() const { return *now_s; }

  /// KV-cache blocks of replica r in its current pool (0: not a replica of an LLM service).
  GPUCAP_HD double llm_kv_blocks(uint32_t r) const {
    const CompiledService& cs = model->services[replicas[r].service];
    if (cs.llm == CompiledService::kNotLlm) return 0;
    const CompiledLlm& cl = model->llm[cs.llm];
    return replicas[r].pool == cs.pool ? cl.site.sched.kv_blocks : cl.fallback.sched.kv_blocks;
  }

  /// Schedules an event of the fleet (its payload: a replica, or a service for autoscale_tick).
  GPUCAP_HD void push(double time_s, EventKind kind, uint32_t payload) {
    calendar->schedule(time_s, kind, payload);
  }
};

GPUCAP_ARENA_NAMESPACE_END
}  // namespace gpucap::engine
