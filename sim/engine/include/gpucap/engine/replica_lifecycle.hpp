// gpucap engine: the life of an inference service's replica, from its launch to its stop, and
// its bill. One of the fleet's three parts (service_fleet.hpp composes them over one FleetState,
// fleet_state.hpp): this one starts, warms, stops and bills replicas; fleet_autoscaling.hpp
// decides when, and where; request_routing.hpp puts requests on them.
//
// Model (see CompiledService): a replica slot is off, starting or warm, and is reused across
// lifetimes. A launch takes the lowest off slot of its service and gpus_per_replica GPUs in the
// pool the autoscaler chose: the service's, or its fallback pool (CompiledService::fallback);
// the slot records that pool, which bills and accounts the lifetime. A replica started on
// demand is starting for its cold start, then warm (EventKind::replica_ready): the weights load,
// plus the pool's provisioning delay, plus the container start, the last two drawn in that
// order from the pool's provisioning stream (in the fallback pool, the fallback site's weights
// load and container start); each such start is a cold start. The min_replicas replicas that are
// warm at time 0 are pre-provisioned: warm at once, no cold start counted. Idle timeout: a warm
// replica that has been idle (no request in service) for idle_timeout_s stops, unless that would
// leave fewer than min_replicas up. Idle checks are lazy: at most one is pending per replica, and
// none is cancelled when the replica gets busy; a check that finds it busy does nothing (the next
// idle period arms one), and one that finds it idle since a later time is armed again for the end
// of that idle period. A windowed autoscaler's services have no idle timeout (+inf): their ticks
// stop replicas. Spot and marketplace pools (CompiledService::preemptible): each replica lifetime
// in the service's pool draws the pool's time to preemption (capped by max_runtime) from the pool's
// preemption stream, as a job run does (reclaim_draw.hpp), counted from its launch; if that
// falls within the horizon, one replica_preemption is pending for the lifetime. A lifetime in
// the fallback pool is not reclaimed, and is not moved back when spot GPUs free up. A preempted
// replica stops at once, billed to that instant: its pending events leave the calendar (the
// routing restarts its requests; the autoscaler replaces it).
// Every stop gives the replica's GPUs back to its pool (the autoscaler then offers them to the
// other services that run replicas there).
//
// Accounting: used GPU-seconds are the busy periods (>= 1 request in service) clipped to the
// window; billing happens when a replica's lifetime ends (or at the horizon), for lifetimes that
// end in the window: the whole lifetime, or (serverless without idle billing) its cold start
// plus its busy time, rounded by the pool's increment and minimum (Ledger::bill_hold), times the
// share of the lifetime inside the window when it began before the warm-up. Committed pools are
// charged by the engine for their whole count instead. Cold starts and replica preemptions are
// counted when they happen in the window.
// Units: times in s from the start of the horizon, GPUs per replica, money through the ledger.
#pragma once
#include <cstdint>

#include "gpucap/arena_ptr.hpp"
#include "gpucap/compiled_model.hpp"
#include "gpucap/distribution.hpp"
#include "gpucap/engine/fleet_state.hpp"
#include "gpucap/engine/reclaim_draw.hpp"
#include "gpucap/event_calendar.hpp"
#include "gpucap/philox.hpp"
#include "gpucap/portable.hpp"

namespace gpucap::engine {
GPUCAP_ARENA_NAMESPACE_BEGIN

struct ReplicaLifecycle {
  /// Takes the lowest off replica slot of service v and its GPUs in `pool` now; in a
  /// preemptible pool, draws when the lifetime will be reclaimed (as a job run's: the pool's
  /// time to preemption, capped by its max_runtime, from the pool's preemption stream).
  /// Returns the replica (still off: the caller makes it starting or warm).
  GPUCAP_HD static uint32_t launch(FleetState& f, uint32_t v, uint32_t pool) {
    const CompiledModel& m = *f.model;
    const CompiledService& cs = m.services[v];
    uint32_t r = cs.replica_offset;
    while (f.replicas[r].state != kReplicaOff) {
      ++r;
      GPUCAP_INVARIANT(r < cs.replica_offset + cs.max_replicas, "an off replica slot exists");
    }
    ReplicaSlot& rep = f.replicas[r];
    rep.up_since_s = f.now();
    rep.ready_s = f.now();
    rep.busy_s = 0;
    rep.active = 0;
    rep.pool = pool;
    ++f.state[v].replicas_up;
    ++f.replicas_up;
    f.capacity->take(pool, cs.gpus_per_replica);
    if (cs.preemptible && pool == cs.pool) {
      const double reclaim_s = time_to_reclaim(m.pools[pool], f.preemption_streams[pool], m.table);
      if (f.now() + reclaim_s <= m.horizon_s)
        f.push(f.now() + reclaim_s, EventKind::replica_preemption, r);
    }
    return r;
  }

  /// Launches a replica of service v in pool p now and starts its cold start: the weights
  /// load, plus the pool's provisioning delay, plus the container start (the last two drawn in
  /// that order from p's provisioning stream); its replica_ready is pushed for the end.
  /// Returns it.
  GPUCAP_HD GPUCAP_FORCEINLINE static uint32_t cold_start(FleetState& f, uint32_t v, uint32_t p) {
    const CompiledModel& m = *f.model;
    const CompiledService& cs = m.services[v];
    const uint32_t r = launch(f, v, p);
    ++f.state[v].starting;
    ReplicaSlot& rep = f.replicas[r];
    rep.state = kReplicaStarting;
    const double now = f.now();
    if (now >= m.warmup_s) ++f.totals.cold_starts;
    RandomStream& rng = f.provisioning_streams[p];
    const CompiledPool& pool = m.pools[p];
    double delay;
    if (p == cs.pool) {
      delay = cs.weights_load_s;
      if (pool.has_provisioning_delay) delay += sample(pool.provisioning_delay_s, rng, m.table);
      if (cs.has_container_start) delay += sample(cs.container_start_s, rng, m.table);
    } else {
      delay = cs.fallback.weights_load_s;
      if (pool.has_provisioning_delay) delay += sample(pool.provisioning_delay_s, rng, m.table);
      if (cs.fallback.has_container_start)
        delay += sample(cs.fallback.container_start_s, rng, m.table);
    }
    f.push(now + delay, EventKind::replica_ready, r);
    return r;
  }

  /// Replica r is warm now (its cold start is over, or it was pre-provisioned): its
  /// concurrency slots are free, and it is idle.
  GPUCAP_HD static void become_warm(FleetState& f, uint32_t r) {
    ReplicaSlot& rep = f.replicas[r];
    rep.state = kReplicaWarm;
    rep.ready_s = f.now();
    rep.idle_since_s = f.now();
    f.state[rep.service].free_slots += f.model->services[rep.service].concurrency;
    if (f.model->llm_count > 0) f.kv_blocks_warm += f.llm_kv_blocks(r);
  }

  /// Replica r's cold start is over (EventKind::replica_ready): it is warm.
  GPUCAP_HD static void ready(FleetState& f, uint32_t r) {
    --f.state[f.replicas[r].service].starting;
    become_warm(f, r);
  }

  /// Schedules replica r's idle check at the end of its idle timeout, unless one is pending
  /// (lazy: it re-checks then) or the service has no idle timeout.
  GPUCAP_HD static void arm_idle_check(FleetState& f, uint32_t r) {
    ReplicaSlot& rep = f.replicas[r];
    const double timeout = f.model->services[rep.service].idle_timeout_s;
    if (rep.idle_check_pending || !(timeout < kForever)) return;
    rep.idle_check_pending = 1;
    f.push(rep.idle_since_s + timeout, EventKind::idle_check, r);
  }

  /// Replica r's last request in service ended now: its busy period closes and it idles.
  GPUCAP_HD GPUCAP_FORCEINLINE static void went_idle(FleetState& f, uint32_t r, double now) {
    ReplicaSlot& rep = f.replicas[r];
    end_busy_period(f, rep, now);
    rep.idle_since_s = now;
    arm_idle_check(f, r);
  }

  /// Replica r's idle check is due (EventKind::idle_check). Returns true when r has been idle
  /// for its whole timeout and may stop (more than min_replicas are up); when it was busy since,
  /// the check is armed again for later.
  GPUCAP_HD static bool idle_expired(FleetState& f, uint32_t r) {
    ReplicaSlot& rep = f.replicas[r];
    rep.idle_check_pending = 0;
    if (rep.state != kReplicaWarm || rep.active > 0) return false;  // re-armed when it idles
    const CompiledService& cs = f.model->services[rep.service];
    if (f.now() < rep.idle_since_s + cs.idle_timeout_s) {  // it was busy since: check later
      arm_idle_check(f, r);
      return false;
    }
    return f.state[rep.service].replicas_up > cs.min_replicas;
  }

  /// Stops warm replica r now: billed to now, its GPUs back in its pool (the caller offers them
  /// to other services). Its pending reclaim, if any, leaves the calendar.
  GPUCAP_HD static void stop(FleetState& f, uint32_t r) {
    ReplicaSlot& rep = f.replicas[r];
    const uint32_t v = rep.service;
    const CompiledService& cs = f.model->services[v];
    if (cs.preemptible && rep.pool == cs.pool)
      f.calendar->remove(r, kind_bit(EventKind::replica_preemption));
    if (f.model->llm_count > 0) f.kv_blocks_warm -= f.llm_kv_blocks(r);
    end_lifetime(f, r, f.now());
    rep.state = kReplicaOff;
    --f.state[v].replicas_up;
    --f.replicas_up;
    f.state[v].free_slots -= cs.concurrency;
    f.capacity->give_back(rep.pool, cs.gpus_per_replica);
  }

  /// Replica r's spot or marketplace instance is reclaimed now (EventKind::replica_preemption):
  /// its pending events leave the calendar, it is counted, billed to now and off, its GPUs back
  /// in its pool. Its requests in service are the caller's: take them first
  /// (RequestRouting::take_in_service), restart them after (RequestRouting::restart).
  GPUCAP_HD static void reclaim(FleetState& f, uint32_t r) {
    ReplicaSlot& rep = f.replicas[r];
    const uint32_t v = rep.service;
    const CompiledService& cs = f.model->services[v];
    ServiceState& st = f.state[v];
    const double now = f.now();
    constexpr uint64_t kPending = kind_bit(EventKind::request_done) |
                                  kind_bit(EventKind::replica_ready) |
                                  kind_bit(EventKind::idle_check);
    while (f.calendar->remove(r, kPending)) {
    }
    rep.idle_check_pending = 0;
    if (now >= f.model->warmup_s) {
      ++f.totals.replica_preemptions;
      f.ledger->replica_preempted(rep.pool);
    }
    if (rep.state == kReplicaStarting) --st.starting;
    if (rep.state == kReplicaWarm) {
      st.free_slots -= cs.concurrency - rep.active;
      if (f.model->llm_count > 0) f.kv_blocks_warm -= f.llm_kv_blocks(r);
    }
    end_lifetime(f, r, now);
    rep.state = kReplicaOff;
    rep.active = 0;
    --st.replicas_up;
    --f.replicas_up;
    f.capacity->give_back(rep.pool, cs.gpus_per_replica);
  }

  /// End of the run: service v's replicas still up are used and billed to the horizon.
  GPUCAP_HD static void finish(FleetState& f, uint32_t v) {
    const CompiledService& cs = f.model->services[v];
    for (uint32_t k = 0; k < cs.max_replicas; ++k) {
      const uint32_t r = cs.replica_offset + k;
      if (f.replicas[r].state != kReplicaOff) end_lifetime(f, r, f.model->horizon_s);
    }
  }

 private:
  static constexpr double kForever = __builtin_huge_val();

  /// Closes replica `rep`'s busy period at `now`: busy time and used GPU-seconds.
  GPUCAP_HD static void end_busy_period(FleetState& f, ReplicaSlot& rep, double now) {
    const CompiledService& cs = f.model->services[rep.service];
    rep.busy_s += now - rep.busy_since_s;
    f.ledger->used(rep.pool, rep.busy_since_s, now, cs.gpus_per_replica);
  }

  /// Bills replica r's lifetime ending at end_s (and closes an open busy period), in its pool.
  GPUCAP_HD static void end_lifetime(FleetState& f, uint32_t r, double end_s) {
    const CompiledModel& m = *f.model;
    ReplicaSlot& rep = f.replicas[r];
    const CompiledService& cs = m.services[rep.service];
    const CompiledPool& pool = m.pools[rep.pool];
    double busy_s = rep.busy_s;
    if (rep.state == kReplicaWarm && rep.active > 0) {
      busy_s += end_s - rep.busy_since_s;
      f.ledger->used(rep.pool, rep.busy_since_s, end_s, cs.gpus_per_replica);
    }
    f.ledger->replica_up(rep.pool, rep.up_since_s, end_s, cs.gpus_per_replica);
    if (end_s < m.warmup_s || pool.committed()) return;
    const double ready_s = rep.state == kReplicaStarting ? end_s : rep.ready_s;
    const double held_s =
        !pool.bills_idle ? (ready_s - rep.up_since_s) + busy_s : end_s - rep.up_since_s;
    // A lifetime that began before the warm-up (dedicated replicas run from time 0) pays only
    // the share of its bill that falls inside the window.
    const double lifetime_s = end_s - rep.up_since_s;
    const double share = rep.up_since_s >= m.warmup_s || !(lifetime_s > 0)
                             ? 1.0
                             : m.in_window(rep.up_since_s, end_s) / lifetime_s;
    f.ledger->bill_hold(rep.pool, held_s, cs.gpus_per_replica, share);
    // A billing commitment pays for the lifetime's usage period by period.
    f.ledger->commitment_use(rep.pool, rep.up_since_s, end_s, cs.gpus_per_replica);
  }
};

GPUCAP_ARENA_NAMESPACE_END
}  // namespace gpucap::engine
