// gpucap engine: how many replicas of each inference service run, and in which pool they start.
// One of the fleet's three parts (service_fleet.hpp composes them over one FleetState,
// fleet_state.hpp): this one decides and acts through replica_lifecycle.hpp, which starts and
// stops replicas; request_routing.hpp puts requests on them.
//
// Model (see CompiledService): min_replicas replicas are warm at time 0 (pre-provisioned).
// Per-request rule (services without a windowed autoscaler): after every arrival the autoscaler
// starts replicas until those up (starting or warm) reach ceil(requests in the system /
// target_concurrency) (in service + waiting), at most max_replicas, and as many as the pools'
// free GPUs allow; a preemptible service never falls below min_replicas (its replicas may be
// reclaimed). After an arrival that is served at once, the rule runs only when
// target_concurrency is below the concurrency. Such services stop replicas by their idle
// timeout (replica_lifecycle.hpp), never below min_replicas.
// Windowed autoscaler (CompiledService::windowed, windowed_autoscaler.hpp, Knative's model):
// the service sets its replicas on ticks (EventKind::autoscale_tick, every tick_s, one pending
// per service): it starts replicas up to the tick's decision, and stops idle warm replicas,
// highest index first, down to it; between ticks it only starts one replica for a request that
// finds none up (scale from zero); replicas never stop for idleness (no idle timeout). The
// requests in the system are observed (WindowedAutoscaler::observe) before every change.
// Pool (CompiledService::fallback): a replica starts in the service's pool when that has free
// GPUs and the launch does not stock out (a draw from the pool's stockout stream, made only
// when its stockout_probability is positive; a failure is counted); else in the fallback pool
// when that has free GPUs; else it does not start. A windowed autoscaler stops idle fallback
// replicas before the others. After a reclaim (spot and marketplace pools), the autoscaler
// starts replacements by its rule: never fewer than min_replicas, and at least one while
// requests wait; a windowed service aims at its last decision.
// GPUs freed by a stop or a reclaim are offered to the other services that run replicas in
// that pool (in its pool or their fallback pool) and have requests waiting: they scale up by
// their rule (a windowed service up to its last decision), in service order.
// Units: times in s; counts in replicas (`desired` is a double, compared with the counts).
#pragma once
#include <cstdint>

#include "gpucap/arena_ptr.hpp"
#include "gpucap/compiled_model.hpp"
#include "gpucap/engine/fleet_state.hpp"
#include "gpucap/engine/replica_lifecycle.hpp"
#include "gpucap/engine/windowed_autoscaler.hpp"
#include "gpucap/event_calendar.hpp"
#include "gpucap/philox.hpp"
#include "gpucap/portable.hpp"

namespace gpucap::engine {
GPUCAP_ARENA_NAMESPACE_BEGIN

struct FleetAutoscaling {
  static constexpr uint32_t kNoPool = CompiledServiceSite::kNone;

  /// Time 0: service v's min_replicas are warm (pre-provisioned; no cold start counted), as
  /// many as the pools have room for; a windowed service's first tick is scheduled.
  GPUCAP_HD static void start(FleetState& f, uint32_t v) {
    const CompiledService& cs = f.model->services[v];
    for (uint32_t k = 0; k < cs.min_replicas; ++k) {
      const uint32_t pool = pool_for_replica(f, cs);
      if (pool == kNoPool) break;
      ReplicaLifecycle::become_warm(f, ReplicaLifecycle::launch(f, v, pool));
    }
    if (cs.windowed && cs.tick_s <= f.model->horizon_s)
      f.push(cs.tick_s, EventKind::autoscale_tick, v);
  }

  /// Service v's requests in the system change now: its windowed autoscaler integrates them up
  /// to now. Precondition: v is windowed.
  GPUCAP_HD GPUCAP_FORCEINLINE static void observe(FleetState& f, uint32_t v, double now) {
    const ServiceState& st = f.state[v];
    WindowedAutoscaler::observe(f.autoscalers[v], st.in_service + st.queue_size, now);
  }

  /// Starts replicas of service v until the per-request rule's target is met (or the pools are
  /// full). A preemptible service never falls below min_replicas (its replicas may be
  /// reclaimed).
  GPUCAP_HD static void scale_up(FleetState& f, uint32_t v) {
    const CompiledService& cs = f.model->services[v];
    const ServiceState& st = f.state[v];
    const double in_system = static_cast<double>(st.in_service + st.queue_size);
    double desired = __builtin_ceil(in_system / cs.target_concurrency);
    if (desired > cs.max_replicas) desired = cs.max_replicas;
    if (cs.preemptible && desired < cs.min_replicas) desired = cs.min_replicas;
    start_replicas(f, v, desired);
  }

  /// Starts replicas of service v (cold starts) until `desired` are up or no pool has room.
  GPUCAP_HD GPUCAP_FORCEINLINE static void start_replicas(FleetState& f, uint32_t v,
                                                          double desired) {
    const CompiledService& cs = f.model->services[v];
    const ServiceState& st = f.state[v];
    while (st.replicas_up < desired) {
      const uint32_t p = pool_for_replica(f, cs);
      if (p == kNoPool) break;
      ReplicaLifecycle::cold_start(f, v, p);
    }
  }

  /// Service v's windowed autoscaler ticks (EventKind::autoscale_tick): it starts replicas up
  /// to its decision, or stops idle warm replicas (highest index first; idle fallback replicas
  /// before the others) down to it, and schedules the next tick.
  GPUCAP_HD static void tick(FleetState& f, uint32_t v) {
    const CompiledService& cs = f.model->services[v];
    ServiceState& st = f.state[v];
    AutoscalerState& a = f.autoscalers[v];
    const double now = f.now();
    const uint32_t desired =
        WindowedAutoscaler::tick(a, f.autoscale_history + cs.history_offset, cs,
                                 st.in_service + st.queue_size, st.replicas_up - st.starting, now);
    if (desired > st.replicas_up) {
      start_replicas(f, v, static_cast<double>(desired));
    } else {
      // Idle fallback replicas stop first (pass 0), then the others (pass 1).
      const bool fallback = cs.fallback.pool != CompiledServiceSite::kNone;
      for (uint32_t pass = fallback ? 0 : 1; pass < 2; ++pass)
        for (uint32_t k = cs.max_replicas; k-- > 0 && st.replicas_up > desired;) {
          const ReplicaSlot& rep = f.replicas[cs.replica_offset + k];
          if (rep.state == kReplicaWarm && rep.active == 0 && (pass == 1 || rep.pool != cs.pool))
            stop_and_offer(f, cs.replica_offset + k);
        }
    }
    const double next = static_cast<double>(a.ticks + 1) * cs.tick_s;
    if (next <= f.model->horizon_s) f.push(next, EventKind::autoscale_tick, v);
  }

  /// A replica of service v was reclaimed now and its requests restarted: starts replacements
  /// by the service's rule (a windowed service: its last decision, at least min_replicas, and
  /// one while requests wait; else scale_up).
  GPUCAP_HD static void replace(FleetState& f, uint32_t v) {
    const CompiledService& cs = f.model->services[v];
    const ServiceState& st = f.state[v];
    if (cs.windowed) {
      observe(f, v, f.now());
      double desired = static_cast<double>(f.autoscalers[v].desired);
      if (desired < cs.min_replicas) desired = cs.min_replicas;
      if (desired < 1 && st.queue_size > 0) desired = 1;  // scale from zero
      start_replicas(f, v, desired);
    } else {
      scale_up(f, v);
    }
  }

  /// Stops warm replica r now (ReplicaLifecycle::stop) and offers its GPUs to the other
  /// services.
  GPUCAP_HD static void stop_and_offer(FleetState& f, uint32_t r) {
    ReplicaLifecycle::stop(f, r);
    offer_gpus(f, f.replicas[r].pool, f.replicas[r].service);
  }

  /// GPUs of pool p were freed by service v: services other than v that run replicas there (in
  /// their pool or fallback pool) and have requests waiting scale up.
  GPUCAP_HD static void offer_gpus(FleetState& f, uint32_t p, uint32_t v) {
    const CompiledModel& m = *f.model;
    for (uint32_t u = 0; u < m.service_count; ++u) {
      const CompiledService& cu = m.services[u];
      if (u != v && (cu.pool == p || cu.fallback.pool == p) && f.state[u].queue_size > 0) {
        if (cu.windowed) {
          start_replicas(f, u, static_cast<double>(f.autoscalers[u].desired));
        } else {
          scale_up(f, u);
        }
      }
    }
  }

 private:
  /// The pool a new replica of cs starts in: the service's pool when it has free GPUs and the
  /// launch does not stock out, else its fallback pool when that has free GPUs; else kNoPool.
  GPUCAP_HD GPUCAP_FORCEINLINE static uint32_t pool_for_replica(FleetState& f,
                                                                const CompiledService& cs) {
    const CompiledModel& m = *f.model;
    if (f.capacity->fits(cs.pool, cs.gpus_per_replica)) {
      const CompiledPool& pool = m.pools[cs.pool];
      if (!(pool.stockout_probability > 0)) return cs.pool;
      if (!(f.stockout_streams[cs.pool].next_uniform() < pool.stockout_probability)) return cs.pool;
      if (f.now() >= m.warmup_s) f.ledger->launch_failure(cs.pool);
    }
    if (cs.fallback.pool != kNoPool && f.capacity->fits(cs.fallback.pool, cs.gpus_per_replica))
      return cs.fallback.pool;
    return kNoPool;
  }
};

GPUCAP_ARENA_NAMESPACE_END
}  // namespace gpucap::engine
