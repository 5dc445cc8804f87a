// gpucap engine: the replicas of inference services inside one replication.
//
// Model (see CompiledService): a request goes to the first warm replica (lowest index) with a
// free concurrency slot, packing load onto few replicas so that the others can go idle and
// stop; when none has one it waits in the service's FIFO waiting room (dropped when full). After
// every arrival the autoscaler starts replicas until those up (starting or warm) reach
// ceil(requests in the system / target_concurrency), within [min_replicas, max_replicas] and the
// pool's free GPUs. A replica that has been idle for idle_timeout_s stops, unless that would
// leave fewer than min_replicas. min_replicas replicas are warm at time 0 (pre-provisioned).
// A service with a windowed autoscaler (CompiledService::windowed, windowed_autoscaler.hpp)
// instead sets its replicas on ticks (EventKind::autoscale_tick): it starts replicas up to the
// tick's decision, and stops idle warm replicas, highest index first, down to it; between ticks
// it only starts one replica for a request that finds none up (scale from zero); replicas never
// stop for idleness (no idle timeout).
//
// Spot and marketplace pools (CompiledService::preemptible): each replica lifetime draws the
// pool's time to preemption (capped by max_runtime) from the pool's preemption stream, as a
// job run does, counted from its launch. A preempted replica stops at once (billed to that
// instant); its requests in service restart, earliest arrival first: on free slots of other
// warm replicas, else at the front of the waiting room, else (room full) they are dropped; then
// the autoscaler starts replacements by its rule (never fewer than min_replicas). Such a
// service counts a request as served when its service ends (or is cut by the horizon), not when
// it begins, so that a restarted request is counted once, with its whole latency.
// Fallback pool (CompiledService::fallback): a replica starts there when the pool has no free
// GPU or the launch stocks out. Requests go to replicas in the service's pool first, so that
// fallback replicas idle first and stop first; a windowed autoscaler stops idle fallback
// replicas before the others. A fallback replica is not moved back when spot GPUs free up.
//
// Invariants: a replica has at most one pending start or idle check, plus one completion per
// request in service (active <= concurrency), plus one reclaim in a preemptible pool;
// free_slots = sum over warm replicas of (concurrency - active); the waiting room is non-empty
// only while free_slots == 0.
// Accounting: used GPU-seconds are the busy periods (>= 1 request in service) clipped to the
// window; billing happens when a replica's lifetime ends (or at the horizon), for lifetimes that
// end in the window: the whole lifetime, or (serverless without idle billing) its cold start
// plus its busy time, rounded by the pool's increment and minimum, times the share of the
// lifetime inside the window when it began before the warm-up. Committed pools are charged by
// the engine for their whole count instead.
//
// The fleet works through one FleetContext (the calendar, the pools' GPUs, the ledger, the
// provisioning streams and the clock); it never calls back into the engine.
#pragma once
#include <cstdint>

#include "gpucap/billing.hpp"
#include "gpucap/compiled_model.hpp"
#include "gpucap/distribution.hpp"
#include "gpucap/engine/ledger.hpp"
#include "gpucap/engine/pool_capacity.hpp"
#include "gpucap/engine/reclaim_draw.hpp"
#include "gpucap/engine/windowed_autoscaler.hpp"
#include "gpucap/event_calendar.hpp"
#include "gpucap/quantile_recorder.hpp"
#include "gpucap/metrics.hpp"
#include "gpucap/philox.hpp"

namespace gpucap::engine {

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
  double replica_area = 0;  ///< integral of replicas up over the window, replica-seconds
};

/// What the fleet shares with the rest of the replication.
struct FleetContext {
  const CompiledModel* model;
  EventCalendar* calendar;
  PoolCapacity* capacity;
  Ledger* ledger;
  RandomStream* provisioning_streams;  ///< per pool
  RandomStream* preemption_streams;    ///< per pool
  RandomStream* stockout_streams;      ///< per pool
  const double* now_s;                 ///< the engine's clock
};

/// The fleet's own arena parts.
struct FleetStorage {
  ServiceState* state;      ///< per service
  ReplicaSlot* replicas;    ///< model.replica_count
  WaitingRequest* waiting;  ///< model.request_queue_capacity
  QuantileRecorder* latency;
  QuantileRecorder* request_wait;
  AutoscalerState* autoscalers;  ///< per service when some service is windowed, else none
  double* autoscale_history;     ///< model.autoscale_history
  TrackedRequest* tracked;       ///< model.tracked_requests
};

class ServiceFleet {
 public:
  GPUCAP_HD void bind(const FleetContext& context, const FleetStorage& storage) {
    const CompiledModel& m = *context.model;
    m_ = &m;
    state_ = storage.state;
    replicas_ = storage.replicas;
    waiting_ = storage.waiting;
    latency_ = storage.latency;
    request_wait_ = storage.request_wait;
    autoscalers_ = storage.autoscalers;
    autoscale_history_ = storage.autoscale_history;
    any_windowed_ = m.windowed_service_count > 0;
    calendar_ = context.calendar;
    capacity_ = context.capacity;
    ledger_ = context.ledger;
    pool_streams_ = context.provisioning_streams;
    preemption_streams_ = context.preemption_streams;
    stockout_streams_ = context.stockout_streams;
    tracked_ = storage.tracked;
    now_ = context.now_s;
    replicas_up_ = 0;
    totals_ = ServiceTotals{};
    if (m.service_count == 0) return;
    latency_->clear();
    request_wait_->clear();
    for (uint32_t v = 0; v < m.service_count; ++v) {
      const CompiledService& cs = m.services[v];
      state_[v] = ServiceState{0, 0, 0, 0, 0, 0};
      for (uint32_t k = 0; k < cs.max_replicas; ++k) {
        ReplicaSlot& r = replicas_[cs.replica_offset + k];
        r = ReplicaSlot{0, 0, 0, 0, 0, v, 0, kReplicaOff, 0, cs.pool};
      }
      if (cs.preemptible)
        for (uint32_t i = 0; i < cs.max_replicas * cs.concurrency; ++i)
          tracked_[cs.tracked_offset + i] = TrackedRequest{0, 0, 0, 0, 0};
      if (cs.windowed) WindowedAutoscaler::reset(autoscalers_[v], cs);
    }
  }

  /// Time 0: each service's min_replicas are warm (pre-provisioned; no cold start counted).
  GPUCAP_HD void start() {
    for (uint32_t v = 0; v < m_->service_count; ++v) {
      const CompiledService& cs = m_->services[v];
      for (uint32_t k = 0; k < cs.min_replicas; ++k) {
        const uint32_t pool = pool_for_replica(cs);
        if (pool == kNoPool) break;
        become_warm(launch(v, pool));
      }
      if (cs.windowed && cs.tick_s <= m_->horizon_s) push(cs.tick_s, EventKind::autoscale_tick, v);
    }
  }

  GPUCAP_HD uint32_t replicas_up() const { return replicas_up_; }
  GPUCAP_HD ServiceTotals& totals() { return totals_; }

  /// A request of service v arrives now; its service takes service_ref_s on the reference GPU.
  GPUCAP_HD GPUCAP_FORCEINLINE void on_request(uint32_t v, double service_ref_s, bool counted) {
    const CompiledService& cs = m_->services[v];
    ServiceState& st = state_[v];
    const double now = *now_;
    const double service_s = service_ref_s / m_->pools[cs.pool].speed;
    if (counted) {
      ++totals_.arrived;
      if (cs.slo_latency_s > 0) ++totals_.slo_arrived;
    }
    if (cs.windowed) {
      on_windowed_request(v, WaitingRequest{now, service_s, 0, 0}, counted);
      return;
    }
    if (st.free_slots > 0) {
      const uint32_t r = free_replica(cs);
      serve(r, WaitingRequest{now, service_s, 0, 0}, counted);
      if (cs.target_concurrency < cs.concurrency) scale_up(v);
      return;
    }
    if (st.queue_size < cs.queue_capacity) {
      uint32_t tail = st.queue_head + st.queue_size;
      if (tail >= cs.queue_capacity) tail -= cs.queue_capacity;
      ++st.queue_size;
      scale_up(v);
      waiting_[cs.queue_offset + tail] = WaitingRequest{now, service_s, st.starting > 0, 0};
      return;
    }
    if (counted) {
      ++totals_.dropped;
      if (cs.slo_latency_s > 0) ++totals_.slo_violations;
    }
    scale_up(v);
  }

  /// A request on replica r finished its service (EventKind::request_done).
  GPUCAP_HD GPUCAP_FORCEINLINE void on_request_done(uint32_t r) {
    ReplicaSlot& rep = replicas_[r];
    const uint32_t v = rep.service;
    ServiceState& st = state_[v];
    const double now = *now_;
    if (any_windowed_ && m_->services[v].windowed)  // one request fewer in the system
      WindowedAutoscaler::observe(autoscalers_[v], st.in_service + st.queue_size, now);
    if (m_->services[v].preemptible) finish_tracked(r, now);
    if (st.queue_size > 0) {  // the slot passes straight to the next waiting request
      const WaitingRequest w = dequeue(v);
      begin_service(r, w, w.arrival_s >= m_->warmup_s);
      return;
    }
    --st.in_service;
    ++st.free_slots;
    if (--rep.active == 0) {
      end_busy_period(rep, now);
      rep.idle_since_s = now;
      arm_idle_check(r);
    }
  }

  /// Replica r's cold start is over (EventKind::replica_ready).
  GPUCAP_HD void on_ready(uint32_t r) {
    ReplicaSlot& rep = replicas_[r];
    const uint32_t v = rep.service;
    ServiceState& st = state_[v];
    --st.starting;
    become_warm(r);
    const CompiledService& cs = m_->services[v];
    while (st.queue_size > 0 && rep.active < cs.concurrency) {
      const WaitingRequest w = dequeue(v);
      serve(r, w, w.arrival_s >= m_->warmup_s);
    }
    if (rep.active == 0) arm_idle_check(r);
  }

  /// Replica r may have been idle for its timeout (EventKind::idle_check).
  GPUCAP_HD void on_idle_check(uint32_t r) {
    ReplicaSlot& rep = replicas_[r];
    rep.idle_check_pending = 0;
    if (rep.state != kReplicaWarm || rep.active > 0) return;  // re-armed when it idles again
    const CompiledService& cs = m_->services[rep.service];
    if (*now_ < rep.idle_since_s + cs.idle_timeout_s) {  // it was busy since: check later
      arm_idle_check(r);
      return;
    }
    if (state_[rep.service].replicas_up > cs.min_replicas) stop(r);
  }

  /// Service v's windowed autoscaler ticks (EventKind::autoscale_tick): it starts replicas up to
  /// its decision, or stops idle warm replicas (highest index first) down to it, and schedules
  /// the next tick.
  GPUCAP_HD void on_tick(uint32_t v) {
    const CompiledService& cs = m_->services[v];
    ServiceState& st = state_[v];
    AutoscalerState& a = autoscalers_[v];
    const double now = *now_;
    const uint32_t desired =
        WindowedAutoscaler::tick(a, autoscale_history_ + cs.history_offset, cs,
                                 st.in_service + st.queue_size, st.replicas_up - st.starting, now);
    if (desired > st.replicas_up) {
      start_replicas(v, static_cast<double>(desired));
    } else {
      // Idle fallback replicas stop first (pass 0), then the others (pass 1).
      const bool fallback = cs.fallback.pool != CompiledServiceSite::kNone;
      for (uint32_t pass = fallback ? 0 : 1; pass < 2; ++pass)
        for (uint32_t k = cs.max_replicas; k-- > 0 && st.replicas_up > desired;) {
          const ReplicaSlot& rep = replicas_[cs.replica_offset + k];
          if (rep.state == kReplicaWarm && rep.active == 0 && (pass == 1 || rep.pool != cs.pool))
            stop(cs.replica_offset + k);
        }
    }
    const double next = static_cast<double>(a.ticks + 1) * cs.tick_s;
    if (next <= m_->horizon_s) push(next, EventKind::autoscale_tick, v);
  }

  /// Replica r's spot or marketplace instance is reclaimed (EventKind::replica_preemption): it
  /// stops now, billed to now; its requests in service restart, earliest arrival first, on free
  /// slots of other warm replicas, else at the front of the waiting room, else they are dropped;
  /// then the autoscaler replaces it by its rule, and services sharing the pool may take the GPUs.
  GPUCAP_HD void on_preempted(uint32_t r) {
    ReplicaSlot& rep = replicas_[r];
    const uint32_t v = rep.service;
    const CompiledService& cs = m_->services[v];
    ServiceState& st = state_[v];
    const double now = *now_;
    if (cs.windowed)  // the requests in the system up to now (they change now)
      WindowedAutoscaler::observe(autoscalers_[v], st.in_service + st.queue_size, now);
    constexpr uint64_t kPending = kind_bit(EventKind::request_done) |
                                  kind_bit(EventKind::replica_ready) |
                                  kind_bit(EventKind::idle_check);
    while (calendar_->remove(r, kPending)) {
    }
    rep.idle_check_pending = 0;
    if (now >= m_->warmup_s) {
      ++totals_.replica_preemptions;
      ledger_->replica_preempted(rep.pool);
    }
    TrackedRequest* block = tracked_ + tracked_block(cs, r);
    const uint32_t n = gather_by_arrival(block, cs.concurrency);
    GPUCAP_INVARIANT(n == rep.active, "every request in service is tracked");
    if (rep.state == kReplicaStarting) --st.starting;
    if (rep.state == kReplicaWarm) st.free_slots -= cs.concurrency - rep.active;
    end_lifetime(r, now);
    rep.state = kReplicaOff;
    rep.active = 0;
    --st.replicas_up;
    --replicas_up_;
    st.in_service -= n;
    capacity_->give_back(rep.pool, cs.gpus_per_replica);
    // Restart: free slots first, then the front of the waiting room (kept in arrival order).
    uint32_t k = 0;
    for (; k < n && st.free_slots > 0; ++k)
      serve(free_replica(cs), waiting_of(block[k]), block[k].arrival_s >= m_->warmup_s);
    const uint32_t room = cs.queue_capacity - st.queue_size;
    const uint32_t kept = n - k <= room ? n : k + room;
    for (uint32_t j = kept; j-- > k;) {
      st.queue_head = st.queue_head == 0 ? cs.queue_capacity - 1 : st.queue_head - 1;
      ++st.queue_size;
      waiting_[cs.queue_offset + st.queue_head] = waiting_of(block[j]);
    }
    for (uint32_t j = 0; j < n; ++j) {
      if (block[j].arrival_s >= m_->warmup_s) {
        if (j < kept) {
          ++totals_.restarted;
        } else {
          ++totals_.dropped;
          if (cs.slo_latency_s > 0) ++totals_.slo_violations;
        }
      }
      block[j].busy = 0;
    }
    if (cs.windowed) {
      WindowedAutoscaler::observe(autoscalers_[v], st.in_service + st.queue_size, now);
      double desired = static_cast<double>(autoscalers_[v].desired);
      if (desired < cs.min_replicas) desired = cs.min_replicas;
      if (desired < 1 && st.queue_size > 0) desired = 1;  // scale from zero
      start_replicas(v, desired);
    } else {
      scale_up(v);
    }
    // Requeued requests wait for a cold start when a replacement is starting.
    for (uint32_t j = 0; j < kept - k; ++j) {
      uint32_t at = st.queue_head + j;
      if (at >= cs.queue_capacity) at -= cs.queue_capacity;
      waiting_[cs.queue_offset + at].cold |= st.starting > 0 ? 1u : 0u;
    }
    offer_gpus(rep.pool, v);
  }

  /// The services' metrics, after the ledger's finish() (it reads the pools' costs).
  /// Ratios over no observations are NaN (not defined), as the ledger's.
  GPUCAP_HD void write_metrics(double* out, double window_s) {
    const ServiceTotals& t = totals_;
    const double nan = pmath::quiet_nan();
    const double served = static_cast<double>(t.served);
    out[kRequestsArrived] = static_cast<double>(t.arrived);
    out[kRequestsServed] = served;
    out[kRequestsDropped] = static_cast<double>(t.dropped);
    out[kLatencyMeanS] = served > 0 ? t.latency_sum_s / served : nan;
    out[kRequestWaitMeanS] = served > 0 ? t.request_wait_sum_s / served : nan;
    if (m_->service_count > 0) {
      write_percentiles(*latency_, out + kLatencyP50S);
      write_percentiles(*request_wait_, out + kRequestWaitP50S);
    } else {  // no recorder in the arena: nothing to record
      out[kLatencyP50S] = out[kLatencyP95S] = out[kLatencyP99S] = nan;
      out[kRequestWaitP50S] = out[kRequestWaitP95S] = out[kRequestWaitP99S] = nan;
    }
    out[kSloViolationShare] =
        t.slo_arrived > 0 ? static_cast<double>(t.slo_violations) / t.slo_arrived : nan;
    out[kColdStarts] = static_cast<double>(t.cold_starts);
    out[kColdStartShare] = served > 0 ? static_cast<double>(t.cold_served) / served : nan;
    out[kReplicasMean] = window_s > 0 ? t.replica_area / window_s : 0.0;
    out[kReplicaPreemptions] = static_cast<double>(t.replica_preemptions);
    out[kRequestsRestarted] = static_cast<double>(t.restarted);
    // Pools run either jobs or replicas: the cost of those that run replicas is the services'.
    double cost = 0;
    for (uint32_t p = 0; p < m_->pool_count; ++p)
      if (m_->pools[p].runs_replicas) cost += ledger_->pool_value(p, kPoolCostUsd);
    out[kCostPer1000RequestsUsd] = served > 0 ? 1000.0 * cost / served : nan;
  }

  /// End of the run: replicas still up are used and billed to the horizon; requests still
  /// waiting count as SLO violations once their wait alone breaks the bound.
  GPUCAP_HD void finish() {
    const double horizon = m_->horizon_s;
    for (uint32_t v = 0; v < m_->service_count; ++v) {
      const CompiledService& cs = m_->services[v];
      for (uint32_t k = 0; k < cs.max_replicas; ++k) {
        const uint32_t r = cs.replica_offset + k;
        if (replicas_[r].state != kReplicaOff) end_lifetime(r, horizon);
      }
      if (cs.preemptible)  // requests still in service were served (their service began)
        for (uint32_t i = 0; i < cs.max_replicas * cs.concurrency; ++i) {
          const TrackedRequest& q = tracked_[cs.tracked_offset + i];
          const uint32_t pool = replicas_[cs.replica_offset + i / cs.concurrency].pool;
          if (q.busy && q.arrival_s >= m_->warmup_s) record_served(cs, pool, q);
        }
      const ServiceState& st = state_[v];
      if (cs.slo_latency_s <= 0) continue;
      for (uint32_t i = 0; i < st.queue_size; ++i) {
        uint32_t at = st.queue_head + i;
        if (at >= cs.queue_capacity) at -= cs.queue_capacity;
        const WaitingRequest& w = waiting_[cs.queue_offset + at];
        if (w.arrival_s >= m_->warmup_s &&
            cs.network_rtt_s + horizon - w.arrival_s > cs.slo_latency_s)
          ++totals_.slo_violations;
      }
    }
  }

 private:
  static constexpr uint32_t kNoPool = CompiledServiceSite::kNone;

  GPUCAP_HD void push(double time_s, EventKind kind, uint32_t replica) {
    calendar_->schedule(time_s, kind, replica);
  }

  /// The first warm replica with a free slot; with a fallback pool, replicas in the service's
  /// own pool first. Precondition: the service has a free slot.
  GPUCAP_HD uint32_t free_replica(const CompiledService& cs) const {
    uint32_t r = cs.replica_offset;
    if (cs.fallback.pool != kNoPool) {
      for (; r < cs.replica_offset + cs.max_replicas; ++r)
        if (replicas_[r].state == kReplicaWarm && replicas_[r].active < cs.concurrency &&
            replicas_[r].pool == cs.pool)
          return r;
      r = cs.replica_offset;
    }
    while (replicas_[r].state != kReplicaWarm || replicas_[r].active >= cs.concurrency) {
      ++r;
      GPUCAP_INVARIANT(r < cs.replica_offset + cs.max_replicas, "a free slot exists (caller)");
    }
    return r;
  }

  /// A request of a windowed service: served at once, or waiting, or dropped, as any; the
  /// autoscaler only notes the change, and starts a replica when none is up (scale from zero).
  GPUCAP_HD void on_windowed_request(uint32_t v, const WaitingRequest& request, bool counted) {
    const CompiledService& cs = m_->services[v];
    ServiceState& st = state_[v];
    if (st.free_slots > 0) {
      WindowedAutoscaler::observe(autoscalers_[v], st.in_service + st.queue_size, *now_);
      serve(free_replica(cs), request, counted);
      return;
    }
    if (st.replicas_up == 0) start_replicas(v, 1.0);
    if (st.queue_size < cs.queue_capacity) {
      WindowedAutoscaler::observe(autoscalers_[v], st.in_service + st.queue_size, *now_);
      uint32_t tail = st.queue_head + st.queue_size;
      if (tail >= cs.queue_capacity) tail -= cs.queue_capacity;
      ++st.queue_size;
      WaitingRequest w = request;
      w.cold = st.starting > 0;
      waiting_[cs.queue_offset + tail] = w;
      return;
    }
    if (counted) {
      ++totals_.dropped;
      if (cs.slo_latency_s > 0) ++totals_.slo_violations;
    }
  }

  /// Replica r takes request w now (a free slot of it is available).
  GPUCAP_HD GPUCAP_FORCEINLINE void serve(uint32_t r, const WaitingRequest& w, bool counted) {
    ReplicaSlot& rep = replicas_[r];
    ServiceState& st = state_[rep.service];
    if (rep.active++ == 0) rep.busy_since_s = *now_;
    ++st.in_service;
    --st.free_slots;
    begin_service(r, w, counted);
  }

  /// Request w's service begins on replica r now (its slot is counted by the caller). It is
  /// recorded as served now, or, in a preemptible service, tracked until it ends.
  GPUCAP_HD GPUCAP_FORCEINLINE void begin_service(uint32_t r, const WaitingRequest& w,
                                                  bool counted) {
    const ReplicaSlot& rep = replicas_[r];
    const CompiledService& cs = m_->services[rep.service];
    const double now = *now_;
    const double service_s =
        rep.pool == cs.pool ? w.service_s : w.service_s * cs.fallback.time_factor;
    if (cs.preemptible) {
      TrackedRequest* q = tracked_ + tracked_block(cs, r);
      while (q->busy) {  // active <= concurrency: a free entry exists
        ++q;
        GPUCAP_INVARIANT(q < tracked_ + tracked_block(cs, r) + cs.concurrency, "a free entry");
      }
      *q = TrackedRequest{w.arrival_s, service_s, now, w.cold, 1};
    } else if (counted) {
      record_served(cs, rep.pool, TrackedRequest{w.arrival_s, service_s, now, w.cold, 1});
    }
    push(now + service_s, EventKind::request_done, r);
  }

  /// A request of a preemptible service on replica r ends now: it is served.
  GPUCAP_HD void finish_tracked(uint32_t r, double now) {
    const CompiledService& cs = m_->services[replicas_[r].service];
    TrackedRequest* q = tracked_ + tracked_block(cs, r);
    while (!(q->busy && q->start_s + q->service_s == now)) {  // its request_done is now
      ++q;
      GPUCAP_INVARIANT(q < tracked_ + tracked_block(cs, r) + cs.concurrency, "it is tracked");
    }
    q->busy = 0;
    if (q->arrival_s >= m_->warmup_s) record_served(cs, replicas_[r].pool, *q);
  }

  /// Offset of replica r's tracked requests in the arena.
  GPUCAP_HD static uint32_t tracked_block(const CompiledService& cs, uint32_t r) {
    return cs.tracked_offset + (r - cs.replica_offset) * cs.concurrency;
  }

  /// Moves the busy entries of a replica's block to its front in arrival order (stable);
  /// returns how many there are.
  GPUCAP_HD static uint32_t gather_by_arrival(TrackedRequest* block, uint32_t size) {
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
  GPUCAP_HD void record_served(const CompiledService& cs, uint32_t pool, const TrackedRequest& q) {
    const bool own = pool == cs.pool;
    const double rtt = own ? cs.network_rtt_s : cs.fallback.network_rtt_s;
    const double wait = q.start_s - q.arrival_s;
    const double latency = rtt + wait + q.service_s;
    ++totals_.served;
    totals_.latency_sum_s += latency;
    latency_->add(latency);
    totals_.request_wait_sum_s += wait;
    request_wait_->add(wait);
    totals_.cold_served += q.cold;
    if (cs.slo_latency_s > 0 && latency > cs.slo_latency_s) ++totals_.slo_violations;
    const double egress = own ? cs.egress_usd_per_request : cs.fallback.egress_usd_per_request;
    if (egress > 0) ledger_->egress(pool, egress);
  }

  /// Takes the head of service v's waiting room.
  GPUCAP_HD WaitingRequest dequeue(uint32_t v) {
    const CompiledService& cs = m_->services[v];
    ServiceState& st = state_[v];
    const WaitingRequest w = waiting_[cs.queue_offset + st.queue_head];
    if (++st.queue_head == cs.queue_capacity) st.queue_head = 0;
    --st.queue_size;
    return w;
  }

  GPUCAP_HD void end_busy_period(ReplicaSlot& rep, double now) {
    const CompiledService& cs = m_->services[rep.service];
    rep.busy_s += now - rep.busy_since_s;
    ledger_->used(rep.pool, rep.busy_since_s, now, cs.gpus_per_replica);
  }

  GPUCAP_HD void become_warm(uint32_t r) {
    ReplicaSlot& rep = replicas_[r];
    rep.state = kReplicaWarm;
    rep.ready_s = *now_;
    rep.idle_since_s = *now_;
    state_[rep.service].free_slots += m_->services[rep.service].concurrency;
  }

  GPUCAP_HD void arm_idle_check(uint32_t r) {
    ReplicaSlot& rep = replicas_[r];
    const double timeout = m_->services[rep.service].idle_timeout_s;
    if (rep.idle_check_pending || !(timeout < kForever)) return;
    rep.idle_check_pending = 1;
    push(rep.idle_since_s + timeout, EventKind::idle_check, r);
  }

  /// Starts replicas of service v until the autoscaler's target is met (or the pool is full).
  /// A preemptible service never falls below min_replicas (its replicas may be reclaimed).
  GPUCAP_HD void scale_up(uint32_t v) {
    const CompiledService& cs = m_->services[v];
    const ServiceState& st = state_[v];
    const double in_system = static_cast<double>(st.in_service + st.queue_size);
    double desired = __builtin_ceil(in_system / cs.target_concurrency);
    if (desired > cs.max_replicas) desired = cs.max_replicas;
    if (cs.preemptible && desired < cs.min_replicas) desired = cs.min_replicas;
    start_replicas(v, desired);
  }

  /// The pool a new replica of cs starts in: the service's pool when it has free GPUs and the
  /// launch does not stock out, else its fallback pool when that has free GPUs; else kNoPool.
  GPUCAP_HD GPUCAP_FORCEINLINE uint32_t pool_for_replica(const CompiledService& cs) {
    if (capacity_->fits(cs.pool, cs.gpus_per_replica)) {
      const CompiledPool& pool = m_->pools[cs.pool];
      if (!(pool.stockout_probability > 0)) return cs.pool;
      if (!(stockout_streams_[cs.pool].next_uniform() < pool.stockout_probability))
        return cs.pool;
      if (*now_ >= m_->warmup_s) ledger_->launch_failure(cs.pool);
    }
    if (cs.fallback.pool != kNoPool && capacity_->fits(cs.fallback.pool, cs.gpus_per_replica))
      return cs.fallback.pool;
    return kNoPool;
  }

  /// Starts replicas of service v (cold starts) until `desired` are up or no pool has room.
  GPUCAP_HD GPUCAP_FORCEINLINE void start_replicas(uint32_t v, double desired) {
    const CompiledService& cs = m_->services[v];
    ServiceState& st = state_[v];
    while (st.replicas_up < desired) {
      const uint32_t p = pool_for_replica(cs);
      if (p == kNoPool) break;
      const uint32_t r = launch(v, p);
      ++st.starting;
      ReplicaSlot& rep = replicas_[r];
      rep.state = kReplicaStarting;
      const double now = *now_;
      if (now >= m_->warmup_s) ++totals_.cold_starts;
      RandomStream& rng = pool_streams_[p];
      const CompiledPool& pool = m_->pools[p];
      double delay;
      if (p == cs.pool) {
        delay = cs.weights_load_s;
        if (pool.has_provisioning_delay) delay += sample(pool.provisioning_delay_s, rng, m_->table);
        if (cs.has_container_start) delay += sample(cs.container_start_s, rng, m_->table);
      } else {
        delay = cs.fallback.weights_load_s;
        if (pool.has_provisioning_delay) delay += sample(pool.provisioning_delay_s, rng, m_->table);
        if (cs.fallback.has_container_start)
          delay += sample(cs.fallback.container_start_s, rng, m_->table);
      }
      push(now + delay, EventKind::replica_ready, r);
    }
  }

  /// Takes the lowest free replica slot of service v and its GPUs in `pool`; in a preemptible
  /// pool, draws when the lifetime will be reclaimed (as a job run's: the pool's time to
  /// preemption, capped by its max_runtime, from the pool's preemption stream).
  GPUCAP_HD uint32_t launch(uint32_t v, uint32_t pool) {
    const CompiledService& cs = m_->services[v];
    uint32_t r = cs.replica_offset;
    while (replicas_[r].state != kReplicaOff) {
      ++r;
      GPUCAP_INVARIANT(r < cs.replica_offset + cs.max_replicas, "an off replica slot exists");
    }
    ReplicaSlot& rep = replicas_[r];
    rep.up_since_s = *now_;
    rep.ready_s = *now_;
    rep.busy_s = 0;
    rep.active = 0;
    rep.pool = pool;
    ++state_[v].replicas_up;
    ++replicas_up_;
    capacity_->take(pool, cs.gpus_per_replica);
    if (cs.preemptible && pool == cs.pool) {
      const double reclaim_s =
          time_to_reclaim(m_->pools[pool], preemption_streams_[pool], m_->table);
      if (*now_ + reclaim_s <= m_->horizon_s)
        push(*now_ + reclaim_s, EventKind::replica_preemption, r);
    }
    return r;
  }

  GPUCAP_HD void stop(uint32_t r) {
    ReplicaSlot& rep = replicas_[r];
    const uint32_t v = rep.service;
    const CompiledService& cs = m_->services[v];
    if (cs.preemptible && rep.pool == cs.pool)
      calendar_->remove(r, kind_bit(EventKind::replica_preemption));
    end_lifetime(r, *now_);
    rep.state = kReplicaOff;
    --state_[v].replicas_up;
    --replicas_up_;
    state_[v].free_slots -= cs.concurrency;
    capacity_->give_back(rep.pool, cs.gpus_per_replica);
    offer_gpus(rep.pool, v);
  }

  /// GPUs of pool p were freed by service v: services other than v that run replicas there (in
  /// their pool or fallback pool) and have requests waiting scale up.
  GPUCAP_HD void offer_gpus(uint32_t p, uint32_t v) {
    for (uint32_t u = 0; u < m_->service_count; ++u) {
      const CompiledService& cu = m_->services[u];
      if (u != v && (cu.pool == p || cu.fallback.pool == p) && state_[u].queue_size > 0) {
        if (cu.windowed) {
          start_replicas(u, static_cast<double>(autoscalers_[u].desired));
        } else {
          scale_up(u);
        }
      }
    }
  }

  /// Bills replica r's lifetime ending at end_s (and closes an open busy period), in its pool.
  GPUCAP_HD void end_lifetime(uint32_t r, double end_s) {
    ReplicaSlot& rep = replicas_[r];
    const CompiledService& cs = m_->services[rep.service];
    const CompiledPool& pool = m_->pools[rep.pool];
    double busy_s = rep.busy_s;
    if (rep.state == kReplicaWarm && rep.active > 0) {
      busy_s += end_s - rep.busy_since_s;
      ledger_->used(rep.pool, rep.busy_since_s, end_s, cs.gpus_per_replica);
    }
    ledger_->replica_up(rep.pool, rep.up_since_s, end_s, cs.gpus_per_replica);
    if (end_s < m_->warmup_s || pool.committed()) return;
    const double ready_s = rep.state == kReplicaStarting ? end_s : rep.ready_s;
    const double held_s = !pool.bills_idle
                              ? (ready_s - rep.up_since_s) + busy_s
                              : end_s - rep.up_since_s;
    // A lifetime that began before the warm-up (dedicated replicas run from time 0) pays only
    // the share of its bill that falls inside the window.
    const double lifetime_s = end_s - rep.up_since_s;
    const double share = rep.up_since_s >= m_->warmup_s || !(lifetime_s > 0)
                             ? 1.0
                             : m_->in_window(rep.up_since_s, end_s) / lifetime_s;
    ledger_->bill_hold(rep.pool, held_s, cs.gpus_per_replica, share);
  }

  static constexpr double kForever = __builtin_huge_val();

  const CompiledModel* m_ = nullptr;
  ServiceState* state_ = nullptr;
  ReplicaSlot* replicas_ = nullptr;
  WaitingRequest* waiting_ = nullptr;
  QuantileRecorder* latency_ = nullptr;
  QuantileRecorder* request_wait_ = nullptr;
  AutoscalerState* autoscalers_ = nullptr;
  double* autoscale_history_ = nullptr;
  bool any_windowed_ = false;
  EventCalendar* calendar_ = nullptr;
  PoolCapacity* capacity_ = nullptr;
  Ledger* ledger_ = nullptr;
  RandomStream* pool_streams_ = nullptr;
  RandomStream* preemption_streams_ = nullptr;
  RandomStream* stockout_streams_ = nullptr;
  TrackedRequest* tracked_ = nullptr;
  const double* now_ = nullptr;
  uint32_t replicas_up_ = 0;
  ServiceTotals totals_;
};

}  // namespace gpucap::engine
