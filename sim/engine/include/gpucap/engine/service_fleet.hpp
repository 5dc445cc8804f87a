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
// Invariants: a replica has at most one pending start or idle check, plus one completion per
// request in service (active <= concurrency); free_slots = sum over warm replicas of
// (concurrency - active); the waiting room is non-empty only while free_slots == 0.
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
  uint32_t unused_;
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
  uint64_t slo_arrived = 0, slo_violations = 0;
  double latency_sum_s = 0;
  double replica_area = 0;  ///< integral of replicas up over the window, replica-seconds
};

/// What the fleet shares with the rest of the replication.
struct FleetContext {
  const CompiledModel* model;
  EventCalendar* calendar;
  PoolCapacity* capacity;
  Ledger* ledger;
  RandomStream* provisioning_streams;  ///< per pool
  const double* now_s;                 ///< the engine's clock
};

/// The fleet's own arena parts.
struct FleetStorage {
  ServiceState* state;      ///< per service
  ReplicaSlot* replicas;    ///< model.replica_count
  WaitingRequest* waiting;  ///< model.request_queue_capacity
  QuantileRecorder* latency;
  AutoscalerState* autoscalers;  ///< per service when some service is windowed, else none
  double* autoscale_history;     ///< model.autoscale_history
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
    autoscalers_ = storage.autoscalers;
    autoscale_history_ = storage.autoscale_history;
    any_windowed_ = m.windowed_service_count > 0;
    calendar_ = context.calendar;
    capacity_ = context.capacity;
    ledger_ = context.ledger;
    pool_streams_ = context.provisioning_streams;
    now_ = context.now_s;
    replicas_up_ = 0;
    totals_ = ServiceTotals{};
    if (m.service_count == 0) return;
    latency_->clear();
    for (uint32_t v = 0; v < m.service_count; ++v) {
      const CompiledService& cs = m.services[v];
      state_[v] = ServiceState{0, 0, 0, 0, 0, 0};
      for (uint32_t k = 0; k < cs.max_replicas; ++k) {
        ReplicaSlot& r = replicas_[cs.replica_offset + k];
        r = ReplicaSlot{0, 0, 0, 0, 0, v, 0, kReplicaOff, 0, 0};
      }
      if (cs.windowed) WindowedAutoscaler::reset(autoscalers_[v], cs);
    }
  }

  /// Time 0: each service's min_replicas are warm (pre-provisioned; no cold start counted).
  GPUCAP_HD void start() {
    for (uint32_t v = 0; v < m_->service_count; ++v) {
      const CompiledService& cs = m_->services[v];
      for (uint32_t k = 0; k < cs.min_replicas; ++k) {
        if (!capacity_->fits(cs.pool, cs.gpus_per_replica)) break;
        const uint32_t r = launch(v);
        become_warm(r);
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
    if (st.queue_size > 0) {  // the slot passes straight to the next waiting request
      const WaitingRequest w = dequeue(v);
      if (w.arrival_s >= m_->warmup_s) record_served(m_->services[v], w, now);
      push(now + w.service_s, EventKind::request_done, r);
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
      for (uint32_t k = cs.max_replicas; k-- > 0 && st.replicas_up > desired;) {
        const ReplicaSlot& rep = replicas_[cs.replica_offset + k];
        if (rep.state == kReplicaWarm && rep.active == 0) stop(cs.replica_offset + k);
      }
    }
    const double next = static_cast<double>(a.ticks + 1) * cs.tick_s;
    if (next <= m_->horizon_s) push(next, EventKind::autoscale_tick, v);
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
    if (m_->service_count > 0) {
      write_percentiles(*latency_, out + kLatencyP50S);
    } else {  // no recorder in the arena: nothing to record
      out[kLatencyP50S] = out[kLatencyP95S] = out[kLatencyP99S] = nan;
    }
    out[kSloViolationShare] =
        t.slo_arrived > 0 ? static_cast<double>(t.slo_violations) / t.slo_arrived : nan;
    out[kColdStarts] = static_cast<double>(t.cold_starts);
    out[kColdStartShare] = served > 0 ? static_cast<double>(t.cold_served) / served : nan;
    out[kReplicasMean] = window_s > 0 ? t.replica_area / window_s : 0.0;
    // Pools run either jobs or replicas: the cost of those that run replicas is the services'.
    double cost = 0;
    for (uint32_t p = 0; p < m_->pool_count; ++p) {
      bool runs_replicas = false;
      for (uint32_t v = 0; v < m_->service_count; ++v) runs_replicas |= m_->services[v].pool == p;
      if (runs_replicas) cost += ledger_->pool_value(p, kPoolCostUsd);
    }
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
  GPUCAP_HD void push(double time_s, EventKind kind, uint32_t replica) {
    calendar_->schedule(time_s, kind, replica);
  }

  /// The first warm replica with a free slot. Precondition: the service has a free slot.
  GPUCAP_HD uint32_t free_replica(const CompiledService& cs) const {
    uint32_t r = cs.replica_offset;
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
    const CompiledService& cs = m_->services[rep.service];
    ServiceState& st = state_[rep.service];
    const double now = *now_;
    if (rep.active++ == 0) rep.busy_since_s = now;
    ++st.in_service;
    --st.free_slots;
    if (counted) record_served(cs, w, now);
    push(now + w.service_s, EventKind::request_done, r);
  }

  GPUCAP_HD void record_served(const CompiledService& cs, const WaitingRequest& w, double now) {
    const double latency = cs.network_rtt_s + (now - w.arrival_s) + w.service_s;
    ++totals_.served;
    totals_.latency_sum_s += latency;
    latency_->add(latency);
    totals_.cold_served += w.cold;
    if (cs.slo_latency_s > 0 && latency > cs.slo_latency_s) ++totals_.slo_violations;
    if (cs.egress_usd_per_request > 0) ledger_->egress(cs.pool, cs.egress_usd_per_request);
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
    ledger_->used(cs.pool, rep.busy_since_s, now, cs.gpus_per_replica);
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
  GPUCAP_HD void scale_up(uint32_t v) {
    const CompiledService& cs = m_->services[v];
    const ServiceState& st = state_[v];
    const double in_system = static_cast<double>(st.in_service + st.queue_size);
    double desired = __builtin_ceil(in_system / cs.target_concurrency);
    if (desired > cs.max_replicas) desired = cs.max_replicas;
    start_replicas(v, desired);
  }

  /// Starts replicas of service v (cold starts) until `desired` are up or the pool is full.
  GPUCAP_HD GPUCAP_FORCEINLINE void start_replicas(uint32_t v, double desired) {
    const CompiledService& cs = m_->services[v];
    ServiceState& st = state_[v];
    while (st.replicas_up < desired &&
           capacity_->fits(cs.pool, cs.gpus_per_replica)) {
      const uint32_t r = launch(v);
      ++st.starting;
      ReplicaSlot& rep = replicas_[r];
      rep.state = kReplicaStarting;
      const double now = *now_;
      if (now >= m_->warmup_s) ++totals_.cold_starts;
      RandomStream& rng = pool_streams_[cs.pool];
      const CompiledPool& pool = m_->pools[cs.pool];
      double delay = cs.weights_load_s;
      if (pool.has_provisioning_delay) delay += sample(pool.provisioning_delay_s, rng, m_->table);
      if (cs.has_container_start) delay += sample(cs.container_start_s, rng, m_->table);
      push(now + delay, EventKind::replica_ready, r);
    }
  }

  /// Takes the lowest free replica slot of service v and its GPUs.
  GPUCAP_HD uint32_t launch(uint32_t v) {
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
    ++state_[v].replicas_up;
    ++replicas_up_;
    capacity_->take(cs.pool, cs.gpus_per_replica);
    return r;
  }

  GPUCAP_HD void stop(uint32_t r) {
    ReplicaSlot& rep = replicas_[r];
    const uint32_t v = rep.service;
    const CompiledService& cs = m_->services[v];
    end_lifetime(r, *now_);
    rep.state = kReplicaOff;
    --state_[v].replicas_up;
    --replicas_up_;
    state_[v].free_slots -= cs.concurrency;
    capacity_->give_back(cs.pool, cs.gpus_per_replica);
    // Services sharing the pool may have been waiting for these GPUs.
    for (uint32_t u = 0; u < m_->service_count; ++u)
      if (u != v && m_->services[u].pool == cs.pool && state_[u].queue_size > 0) {
        if (m_->services[u].windowed) {
          start_replicas(u, static_cast<double>(autoscalers_[u].desired));
        } else {
          scale_up(u);
        }
      }
  }

  /// Bills replica r's lifetime ending at end_s (and closes an open busy period).
  GPUCAP_HD void end_lifetime(uint32_t r, double end_s) {
    ReplicaSlot& rep = replicas_[r];
    const CompiledService& cs = m_->services[rep.service];
    const CompiledPool& pool = m_->pools[cs.pool];
    double busy_s = rep.busy_s;
    if (rep.state == kReplicaWarm && rep.active > 0) {
      busy_s += end_s - rep.busy_since_s;
      ledger_->used(cs.pool, rep.busy_since_s, end_s, cs.gpus_per_replica);
    }
    if (end_s < m_->warmup_s || pool.committed()) return;
    const double ready_s = rep.state == kReplicaStarting ? end_s : rep.ready_s;
    const double held_s = pool.purchase == PurchaseOption::serverless && !pool.bills_idle
                              ? (ready_s - rep.up_since_s) + busy_s
                              : end_s - rep.up_since_s;
    // A lifetime that began before the warm-up (dedicated replicas run from time 0) pays only
    // the share of its bill that falls inside the window.
    const double lifetime_s = end_s - rep.up_since_s;
    const double share = rep.up_since_s >= m_->warmup_s || !(lifetime_s > 0)
                             ? 1.0
                             : m_->in_window(rep.up_since_s, end_s) / lifetime_s;
    ledger_->billed(cs.pool, billed_seconds(held_s, pool.billing_increment_s,
                                            pool.billing_minimum_s) *
                                 share * cs.gpus_per_replica);
  }

  static constexpr double kForever = __builtin_huge_val();

  const CompiledModel* m_ = nullptr;
  ServiceState* state_ = nullptr;
  ReplicaSlot* replicas_ = nullptr;
  WaitingRequest* waiting_ = nullptr;
  QuantileRecorder* latency_ = nullptr;
  AutoscalerState* autoscalers_ = nullptr;
  double* autoscale_history_ = nullptr;
  bool any_windowed_ = false;
  EventCalendar* calendar_ = nullptr;
  PoolCapacity* capacity_ = nullptr;
  Ledger* ledger_ = nullptr;
  RandomStream* pool_streams_ = nullptr;
  const double* now_ = nullptr;
  uint32_t replicas_up_ = 0;
  ServiceTotals totals_;
};

}  // namespace gpucap::engine
