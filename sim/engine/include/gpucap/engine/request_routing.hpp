// gpucap engine: where an inference service's requests go, and what they count. One of the
// fleet's three parts (service_fleet.hpp composes them over one FleetState, fleet_state.hpp):
// this one puts requests on replicas' concurrency slots or in the waiting room and records
// them; replica_lifecycle.hpp starts and stops the replicas; fleet_autoscaling.hpp decides how
// many run.
//
// Model (see CompiledService): a request goes to the first warm replica (lowest index) with a
// free concurrency slot, packing load onto few replicas so that the others can go idle and
// stop; with a fallback pool (CompiledService::fallback), replicas in the service's own pool
// first, so that fallback replicas idle first and stop first. A request's service takes its
// time on the reference GPU divided by the speed of the service's pool, times the fallback
// site's time_factor on a fallback replica. When no replica has a free slot the request waits in
// the service's FIFO waiting room (a ring buffer of queue_capacity entries; dropped when full), and
// it is cold when a replica was starting as it began to wait. A slot freed by a request's end
// passes straight to the head of the waiting room; a replica that becomes warm takes waiting
// requests up to its concurrency. Latency = the network round trip of the replica's site (the
// service's pool, or its fallback pool) + wait (arrival to the start of service) + service time. A
// served request counts its latency, wait, cold flag and SLO violation (latency over
// slo_latency_s), and its egress price on its replica's pool. A dropped request is an SLO
// violation. Spot and marketplace pools (CompiledService::preemptible): each request in service is
// tracked (a block of `concurrency` TrackedRequest entries per replica), and the service counts
// it as served when its service ends (or is cut by the horizon), not when it begins, so that a
// restarted request is counted once, with its whole latency. When a replica is reclaimed, its
// requests in service restart, earliest arrival first: on free slots of other warm replicas,
// else at the front of the waiting room (kept in arrival order), else (room full) they are
// dropped; a request put back in the room is also cold when a replacement is starting.
// At the horizon, the requests still in service of a preemptible service are served, and each
// request still waiting is an SLO violation once its wait alone (plus the service's round trip)
// breaks the bound.
// Statistics count requests that arrive in the window [warmup, horizon]. Units: times in s;
// egress in USD per request, charged through the ledger.
#pragma once
#include <cstdint>

#include "gpucap/arena_ptr.hpp"
#include "gpucap/compiled_model.hpp"
#include "gpucap/engine/fleet_state.hpp"
#include "gpucap/event_calendar.hpp"
#include "gpucap/portable.hpp"

namespace gpucap::engine {
GPUCAP_ARENA_NAMESPACE_BEGIN

struct RequestRouting {
  /// A request of service `cs` arrived now (counted when it arrived in the window).
  GPUCAP_HD GPUCAP_FORCEINLINE static void count_arrival(FleetState& f, const CompiledService& cs,
                                                         bool counted) {
    if (counted) {
      ++f.totals.arrived;
      if (cs.slo_latency_s > 0) ++f.totals.slo_arrived;
    }
  }

  /// A request of service `cs` is dropped (the waiting room is full): an SLO violation.
  GPUCAP_HD GPUCAP_FORCEINLINE static void drop(FleetState& f, const CompiledService& cs,
                                                bool counted) {
    if (counted) {
      ++f.totals.dropped;
      if (cs.slo_latency_s > 0) ++f.totals.slo_violations;
    }
  }

  /// The first warm replica with a free slot; with a fallback pool, replicas in the service's
  /// own pool first. Precondition: the service has a free slot.
  GPUCAP_HD static uint32_t free_replica(const FleetState& f, const CompiledService& cs) {
    const ArenaPtr<ReplicaSlot> replicas = f.replicas;
    uint32_t r = cs.replica_offset;
    if (cs.fallback.pool != CompiledServiceSite::kNone) {
      for (; r < cs.replica_offset + cs.max_replicas; ++r)
        if (replicas[r].state == kReplicaWarm && replicas[r].active < cs.concurrency &&
            replicas[r].pool == cs.pool)
          return r;
      r = cs.replica_offset;
    }
    while (replicas[r].state != kReplicaWarm || replicas[r].active >= cs.concurrency) {
      ++r;
      GPUCAP_INVARIANT(r < cs.replica_offset + cs.max_replicas, "a free slot exists (caller)");
    }
    return r;
  }

  /// Adds an entry at the tail of service v's waiting room and returns it, for the caller to
  /// fill (the request counts as in the system from now on). Precondition: the room has space.
  GPUCAP_HD GPUCAP_FORCEINLINE static WaitingRequest& enqueue(FleetState& f, uint32_t v) {
    const CompiledService& cs = f.model->services[v];
    ServiceState& st = f.state[v];
    uint32_t tail = st.queue_head + st.queue_size;
    if (tail >= cs.queue_capacity) tail -= cs.queue_capacity;
    ++st.queue_size;
    return f.waiting[cs.queue_offset + tail];
  }

  /// Takes the head of service v's waiting room.
  GPUCAP_HD static WaitingRequest dequeue(FleetState& f, uint32_t v) {
    const CompiledService& cs = f.model->services[v];
    ServiceState& st = f.state[v];
    const WaitingRequest w = f.waiting[cs.queue_offset + st.queue_head];
    if (++st.queue_head == cs.queue_capacity) st.queue_head = 0;
    --st.queue_size;
    return w;
  }

  /// Replica r takes request w now (a free slot of it is available); its busy period begins
  /// with its first request (replica_lifecycle.hpp closes it).
  GPUCAP_HD GPUCAP_FORCEINLINE static void serve(FleetState& f, uint32_t r, const WaitingRequest& w,
                                                 bool counted) {
    ReplicaSlot& rep = f.replicas[r];
    ServiceState& st = f.state[rep.service];
    if (rep.active++ == 0) rep.busy_since_s = f.now();
    ++st.in_service;
    --st.free_slots;
    begin_service(f, r, w, counted);
  }

  /// Warm replica r takes requests from the head of its service's waiting room, up to its
  /// concurrency (it has just become warm).
  GPUCAP_HD static void serve_waiting(FleetState& f, uint32_t r) {
    const ReplicaSlot& rep = f.replicas[r];
    const uint32_t v = rep.service;
    const ServiceState& st = f.state[v];
    const CompiledService& cs = f.model->services[v];
    while (st.queue_size > 0 && rep.active < cs.concurrency) {
      const WaitingRequest w = dequeue(f, v);
      serve(f, r, w, w.arrival_s >= f.model->warmup_s);
    }
  }

  /// A request on replica r finished its service now (EventKind::request_done): it is served
  /// (preemptible services), and its slot passes to the head of the waiting room, or is freed.
  /// Returns true when r has no request left in service (its busy period ends: went_idle).
  GPUCAP_HD GPUCAP_FORCEINLINE static bool request_done(FleetState& f, uint32_t r, double now) {
    ReplicaSlot& rep = f.replicas[r];
    const uint32_t v = rep.service;
    ServiceState& st = f.state[v];
    if (f.model->services[v].preemptible) finish_tracked(f, r, now);
    if (st.queue_size > 0) {  // the slot passes straight to the next waiting request
      const WaitingRequest w = dequeue(f, v);
      begin_service(f, r, w, w.arrival_s >= f.model->warmup_s);
      return false;
    }
    --st.in_service;
    ++st.free_slots;
    return --rep.active == 0;
  }

  /// Replica r of a preemptible service is being reclaimed: moves its requests in service to
  /// the front of its block, in arrival order, and returns how many there are (its active
  /// count). Call before ReplicaLifecycle::reclaim, then restart() them after it.
  GPUCAP_HD static uint32_t take_in_service(FleetState& f, uint32_t r) {
    const ReplicaSlot& rep = f.replicas[r];
    const CompiledService& cs = f.model->services[rep.service];
    const ArenaPtr<TrackedRequest> block = f.tracked + tracked_block(cs, r);
    const uint32_t n = gather_by_arrival(block, cs.concurrency);
    GPUCAP_INVARIANT(n == rep.active, "every request in service is tracked");
    return n;
  }

  /// Restarts the n requests that were in service on reclaimed replica r (take_in_service put
  /// them in arrival order): on free slots of other warm replicas first, then at the front of
  /// the waiting room (kept in arrival order), the rest dropped; each counted as restarted or
  /// dropped. Returns how many went back to the waiting room (for mark_requeued_cold).
  GPUCAP_HD static uint32_t restart(FleetState& f, uint32_t r, uint32_t n) {
    const uint32_t v = f.replicas[r].service;
    const CompiledService& cs = f.model->services[v];
    ServiceState& st = f.state[v];
    const double warmup_s = f.model->warmup_s;
    const ArenaPtr<TrackedRequest> block = f.tracked + tracked_block(cs, r);
    st.in_service -= n;
    // Restart: free slots first, then the front of the waiting room (kept in arrival order).
    uint32_t k = 0;
    for (; k < n && st.free_slots > 0; ++k)
      serve(f, free_replica(f, cs), waiting_of(block[k]), block[k].arrival_s >= warmup_s);
    const uint32_t room = cs.queue_capacity - st.queue_size;
    const uint32_t kept = n - k <= room ? n : k + room;
    for (uint32_t j = kept; j-- > k;) {
      st.queue_head = st.queue_head == 0 ? cs.queue_capacity - 1 : st.queue_head - 1;
      ++st.queue_size;
      f.waiting[cs.queue_offset + st.queue_head] = waiting_of(block[j]);
    }
    for (uint32_t j = 0; j < n; ++j) {
      if (block[j].arrival_s >= warmup_s) {
        if (j < kept) {
          ++f.totals.restarted;
        } else {
          ++f.totals.dropped;
          if (cs.slo_latency_s > 0) ++f.totals.slo_violations;
        }
      }
      block[j].busy = 0;
    }
    return kept - k;
  }

  /// The `requeued` requests at the head of service v's waiting room (restart() put them there)
  /// wait for a cold start when a replacement is starting now.
  GPUCAP_HD static void mark_requeued_cold(FleetState& f, uint32_t v, uint32_t requeued) {
    const CompiledService& cs = f.model->services[v];
    const ServiceState& st = f.state[v];
    for (uint32_t j = 0; j < requeued; ++j) {
      uint32_t at = st.queue_head + j;
      if (at >= cs.queue_capacity) at -= cs.queue_capacity;
      f.waiting[cs.queue_offset + at].cold |= st.starting > 0 ? 1u : 0u;
    }
  }

  /// End of the run, after ReplicaLifecycle::finish: service v's requests still in service
  /// (preemptible services) were served (their service began); requests still waiting count as
  /// SLO violations once their wait alone breaks the bound.
  GPUCAP_HD static void finish(FleetState& f, uint32_t v) {
    const CompiledModel& m = *f.model;
    const CompiledService& cs = m.services[v];
    const double horizon = m.horizon_s;
    if (cs.preemptible)  // requests still in service were served (their service began)
      for (uint32_t i = 0; i < cs.max_replicas * cs.concurrency; ++i) {
        const TrackedRequest& q = f.tracked[cs.tracked_offset + i];
        const uint32_t pool = f.replicas[cs.replica_offset + i / cs.concurrency].pool;
        if (q.busy && q.arrival_s >= m.warmup_s) record_served(f, cs, pool, q);
      }
    const ServiceState& st = f.state[v];
    if (cs.slo_latency_s <= 0) return;
    for (uint32_t i = 0; i < st.queue_size; ++i) {
      uint32_t at = st.queue_head + i;
      if (at >= cs.queue_capacity) at -= cs.queue_capacity;
      const WaitingRequest& w = f.waiting[cs.queue_offset + at];
      if (w.arrival_s >= m.warmup_s && cs.network_rtt_s + horizon - w.arrival_s > cs.slo_latency_s)
        ++f.totals.slo_violations;
    }
  }

 private:
  /// Request w's service begins on replica r now (its slot is counted by the caller). It is
  /// recorded as served now, or, in a preemptible service, tracked until it ends.
  GPUCAP_HD GPUCAP_FORCEINLINE static void begin_service(FleetState& f, uint32_t r,
                                                         const WaitingRequest& w, bool counted) {
    const ReplicaSlot& rep = f.replicas[r];
    const CompiledService& cs = f.model->services[rep.service];
    const double now = f.now();
    const double service_s =
        rep.pool == cs.pool ? w.service_s : w.service_s * cs.fallback.time_factor;
    if (cs.preemptible) {
      ArenaPtr<TrackedRequest> q = f.tracked + tracked_block(cs, r);
      while (q->busy) {  // active <= concurrency: a free entry exists
        ++q;
        GPUCAP_INVARIANT(q < f.tracked + tracked_block(cs, r) + cs.concurrency, "a free entry");
      }
      *q = TrackedRequest{w.arrival_s, service_s, now, w.cold, 1};
    } else if (counted) {
      record_served(f, cs, rep.pool, TrackedRequest{w.arrival_s, service_s, now, w.cold, 1});
    }
    f.push(now + service_s, EventKind::request_done, r);
  }

  /// A request of a preemptible service on replica r ends now: it is served.
  GPUCAP_HD static void finish_tracked(FleetState& f, uint32_t r, double now) {
    const CompiledService& cs = f.model->services[f.replicas[r].service];
    ArenaPtr<TrackedRequest> q = f.tracked + tracked_block(cs, r);
    while (!(q->busy && q->start_s + q->service_s == now)) {  // its request_done is now
      ++q;
      GPUCAP_INVARIANT(q < f.tracked + tracked_block(cs, r) + cs.concurrency, "it is tracked");
    }
    q->busy = 0;
    if (q->arrival_s >= f.model->warmup_s) record_served(f, cs, f.replicas[r].pool, *q);
  }

  /// Offset of replica r's tracked requests in the arena.
  GPUCAP_HD static uint32_t tracked_block(const CompiledService& cs, uint32_t r) {
    return cs.tracked_offset + (r - cs.replica_offset) * cs.concurrency;
  }

  /// Moves the busy entries of a replica's block to its front in arrival order (stable);
  /// returns how many there are.
  GPUCAP_HD static uint32_t gather_by_arrival(ArenaPtr<TrackedRequest> block, uint32_t size) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < size; ++i) {
      if (!block[i].busy) continue;
      const TrackedRequest q = block[i];
      if (i != n) block[i].busy = 0;  // [n, i) are free: q moves down into [0, n]
      uint32_t j = n;
      for (; j > 0 && block[j - 1].arrival_s > q.arrival_s; --j) block[j] = block[j - 1];
      block[j] = q;
      ++n;
    }
    return n;
  }

  /// The waiting-room entry of a request whose service restarts.
  GPUCAP_HD static WaitingRequest waiting_of(const TrackedRequest& q) {
    return WaitingRequest{q.arrival_s, q.service_s, q.cold, 0};
  }

  /// Counts request q as served on a replica in `pool` (the service's, or its fallback pool).
  GPUCAP_HD static void record_served(FleetState& f, const CompiledService& cs, uint32_t pool,
                                      const TrackedRequest& q) {
    const bool own = pool == cs.pool;
    const double rtt = own ? cs.network_rtt_s : cs.fallback.network_rtt_s;
    const double wait = q.start_s - q.arrival_s;
    const double latency = rtt + wait + q.service_s;
    ++f.totals.served;
    f.totals.latency_sum_s += latency;
    f.latency->add(latency);
    f.totals.request_wait_sum_s += wait;
    f.request_wait->add(wait);
    f.totals.cold_served += q.cold;
    if (cs.slo_latency_s > 0 && latency > cs.slo_latency_s) ++f.totals.slo_violations;
    const double egress = own ? cs.egress_usd_per_request : cs.fallback.egress_usd_per_request;
    if (egress > 0) f.ledger->egress(pool, egress);
  }
};

GPUCAP_ARENA_NAMESPACE_END
}  // namespace gpucap::engine
