// gpucap engine: the replicas of inference services inside one replication, and their requests.
//
// ServiceFleet is the replication engine's one entry to the services (replication_engine.hpp
// calls the handlers below, one per event kind). It composes three parts, each a struct of
// static functions over one shared FleetState (fleet_state.hpp: the arena's parts, the
// replication's context and the totals; its invariants). A handler only asks the parts in
// turn, in the order that keeps every draw and event where it belongs (an arrival also picks
// serve, wait or drop, as the autoscaler acts between routing's steps):
//
//   ReplicaLifecycle  launch, cold start, warm, idle timeout, stop, reclaim, billing of a
//                     replica's lifetime                                 (replica_lifecycle)
//   RequestRouting    the replica or waiting room a request goes to, requests in service and
//                     their restart after a reclaim, served / dropped / latency / SLO
//                                                                          (request_routing)
//   FleetAutoscaling  how many replicas run and in which pool they start: the per-request
//                     rule, the windowed autoscaler's ticks, replacements, freed GPUs
//                                                                        (fleet_autoscaling)
//
// The model in one paragraph (each part's header states its share in full): a request goes to
// the first warm replica with a free concurrency slot, else waits in its service's FIFO waiting
// room (dropped when full); the autoscaler starts replicas (cold starts) by its rule, in the
// service's pool or its fallback pool, and replicas stop when idle for their timeout or by a
// windowed autoscaler's tick; min_replicas are warm at time 0. Replicas on spot and marketplace
// pools are reclaimed: their requests restart, and the autoscaler replaces them. Replica
// lifetimes are billed when they end, in their pool.
//
// Events of the fleet (their payload): request_done, replica_ready, idle_check,
// replica_preemption (a replica), autoscale_tick (a service). Random draws, for each replica
// started, in this order: the launch's stockout (the pool's stockout stream; FleetAutoscaling),
// the lifetime's reclaim (its preemption stream), then the cold start's provisioning delay and
// container start (its provisioning stream; ReplicaLifecycle).
//
// The fleet works through one FleetContext (the calendar, the pools' GPUs, the ledger, the
// pools' provisioning, preemption and stockout streams, and the clock); it never calls back
// into the engine.
#pragma once
#include <cstdint>

#include "gpucap/arena_ptr.hpp"
#include "gpucap/compiled_model.hpp"
#include "gpucap/engine/fleet_autoscaling.hpp"
#include "gpucap/engine/fleet_state.hpp"
#include "gpucap/engine/ledger.hpp"
#include "gpucap/engine/llm_serving.hpp"
#include "gpucap/engine/replica_lifecycle.hpp"
#include "gpucap/engine/request_routing.hpp"
#include "gpucap/metrics.hpp"
#include "gpucap/portable.hpp"
#include "gpucap/portable_math.hpp"
#include "gpucap/quantile_recorder.hpp"

namespace gpucap::engine {
GPUCAP_ARENA_NAMESPACE_BEGIN

class ServiceFleet {
 public:
  /// Points the fleet at the replication's context and arena parts and empties it: every
  /// replica off, every waiting room empty, the totals zero (FleetState::bind).
  GPUCAP_HD void bind(const FleetContext& context, const FleetStorage& storage) {
    f_.bind(context, storage);
  }

  /// Time 0: each service's min_replicas are warm (pre-provisioned; no cold start counted);
  /// the first ticks of windowed autoscalers are scheduled.
  GPUCAP_HD void start() {
    for (uint32_t v = 0; v < f_.model->service_count; ++v) FleetAutoscaling::start(f_, v);
  }

  /// Replicas up (starting or warm) over all services.
  GPUCAP_HD uint32_t replicas_up() const { return f_.replicas_up; }
  /// The services' metric accumulators; the engine adds replica_area as its clock advances.
  GPUCAP_HD ServiceTotals& totals() { return f_.totals; }

  /// A request of service v arrives now; its service takes service_ref_s on the reference GPU.
  /// It is served at once, waits, or is dropped (RequestRouting); the autoscaler then scales by
  /// its rule (FleetAutoscaling).
  GPUCAP_HD GPUCAP_FORCEINLINE void on_request(uint32_t v, double service_ref_s, bool counted) {
    const CompiledModel& m = *f_.model;
    const CompiledService& cs = m.services[v];
    if (cs.llm != CompiledService::kNotLlm) {  // service_ref_s: the uniform of its tokens
      LlmServing::on_request(f_, v, service_ref_s, counted);
      return;
    }
    const ServiceState& st = f_.state[v];
    const double now = f_.now();
    const double service_s = service_ref_s / m.pools[cs.pool].speed;
    RequestRouting::count_arrival(f_, cs, counted);
    if (cs.windowed) {
      on_windowed_request(v, WaitingRequest{now, service_s, 0, 0}, counted);
      return;
    }
    if (st.free_slots > 0) {
      const uint32_t r = RequestRouting::free_replica(f_, cs);
      RequestRouting::serve(f_, r, WaitingRequest{now, service_s, 0, 0}, counted);
      if (cs.target_concurrency < cs.concurrency) FleetAutoscaling::scale_up(f_, v);
      return;
    }
    if (st.queue_size < cs.queue_capacity) {
      // It counts in the system before the autoscaler scales, and is cold when that (or an
      // earlier arrival) started a replica.
      WaitingRequest& w = RequestRouting::enqueue(f_, v);
      FleetAutoscaling::scale_up(f_, v);
      w = WaitingRequest{now, service_s, st.starting > 0, 0};
      return;
    }
    RequestRouting::drop(f_, cs, counted);
    FleetAutoscaling::scale_up(f_, v);
  }

  /// A request on replica r finished its service (EventKind::request_done).
  GPUCAP_HD GPUCAP_FORCEINLINE void on_request_done(uint32_t r) {
    const uint32_t v = f_.replicas[r].service;
    if (f_.model->llm_count > 0 && f_.model->services[v].llm != CompiledService::kNotLlm) {
      LlmServing::on_iteration_end(f_, r);  // an LLM replica's iteration ended
      return;
    }
    const double now = f_.now();
    if (f_.any_windowed && f_.model->services[v].windowed)  // one request fewer in the system
      FleetAutoscaling::observe(f_, v, now);
    if (RequestRouting::request_done(f_, r, now)) ReplicaLifecycle::went_idle(f_, r, now);
  }

  /// Replica r's cold start is over (EventKind::replica_ready): it takes waiting requests.
  GPUCAP_HD void on_ready(uint32_t r) {
    ReplicaLifecycle::ready(f_, r);
    if (f_.model->services[f_.replicas[r].service].llm != CompiledService::kNotLlm) {
      LlmServing::on_ready(f_, r);
      return;
    }
    RequestRouting::serve_waiting(f_, r);
    if (f_.replicas[r].active == 0) ReplicaLifecycle::arm_idle_check(f_, r);
  }

  /// Replica r may have been idle for its timeout (EventKind::idle_check).
  GPUCAP_HD void on_idle_check(uint32_t r) {
    if (ReplicaLifecycle::idle_expired(f_, r)) FleetAutoscaling::stop_and_offer(f_, r);
  }

  /// Service v's windowed autoscaler ticks (EventKind::autoscale_tick): it starts replicas up to
  /// its decision, or stops idle warm replicas (highest index first) down to it, and schedules
  /// the next tick.
  GPUCAP_HD void on_tick(uint32_t v) { FleetAutoscaling::tick(f_, v); }

  /// Replica r's spot or marketplace instance is reclaimed (EventKind::replica_preemption): it
  /// stops now, billed to now; its requests in service restart, earliest arrival first, on free
  /// slots of other warm replicas, else at the front of the waiting room, else they are dropped;
  /// then the autoscaler replaces it by its rule, and services sharing the pool may take the GPUs.
  GPUCAP_HD void on_preempted(uint32_t r) {
    const uint32_t v = f_.replicas[r].service;
    if (f_.model->services[v].llm != CompiledService::kNotLlm) {
      LlmServing::on_preempted(f_, r);
      return;
    }
    if (f_.model->services[v].windowed)  // the requests in the system up to now (they change now)
      FleetAutoscaling::observe(f_, v, f_.now());
    const uint32_t n = RequestRouting::take_in_service(f_, r);
    ReplicaLifecycle::reclaim(f_, r);
    const uint32_t requeued = RequestRouting::restart(f_, r, n);
    FleetAutoscaling::replace(f_, v);
    // Requeued requests wait for a cold start when a replacement is starting.
    RequestRouting::mark_requeued_cold(f_, v, requeued);
    // The pool of slot r now: a replacement may have taken the slot (in its fallback pool).
    FleetAutoscaling::offer_gpus(f_, f_.replicas[r].pool, v);
  }

  /// The services' metrics, after the ledger's finish() (it reads the pools' costs).
  /// Ratios over no observations are NaN (not defined), as the ledger's.
  GPUCAP_HD void write_metrics(double* out, double window_s) {
    const CompiledModel& m = *f_.model;
    const ServiceTotals& t = f_.totals;
    const double nan = pmath::quiet_nan();
    const double served = static_cast<double>(t.served);
    out[kRequestsArrived] = static_cast<double>(t.arrived);
    out[kRequestsServed] = served;
    out[kRequestsDropped] = static_cast<double>(t.dropped);
    out[kLatencyMeanS] = served > 0 ? t.latency_sum_s / served : nan;
    out[kRequestWaitMeanS] = served > 0 ? t.request_wait_sum_s / served : nan;
    if (m.service_count > 0) {
      write_percentiles(*f_.latency, out + kLatencyP50S);
      write_percentiles(*f_.request_wait, out + kRequestWaitP50S);
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
    for (uint32_t p = 0; p < m.pool_count; ++p)
      if (m.pools[p].runs_replicas) cost += f_.ledger->pool_value(p, kPoolCostUsd);
    out[kCostPer1000RequestsUsd] = served > 0 ? 1000.0 * cost / served : nan;
    write_llm_metrics(out, window_s);
  }

  /// The LLM services' metrics (NaN without an LLM service).
  GPUCAP_HD void write_llm_metrics(double* out, double window_s) {
    const CompiledModel& m = *f_.model;
    const ServiceTotals& t = f_.totals;
    const double nan = pmath::quiet_nan();
    if (m.llm_count == 0) {
      for (uint32_t k = kTtftMeanS; k <= kCostPerMillionTokensUsd; ++k) out[k] = nan;
      return;
    }
    const double ended = static_cast<double>(t.llm_ended);
    const double tpots = static_cast<double>(t.tpot_count);
    out[kTtftMeanS] = ended > 0 ? t.ttft_sum_s / ended : nan;
    write_percentiles(*f_.ttft, out + kTtftP50S);
    out[kTpotMeanS] = tpots > 0 ? t.tpot_sum_s / tpots : nan;
    write_percentiles(*f_.tpot, out + kTpotP50S);
    out[kOutputTokensPerS] = window_s > 0 ? t.llm_output_tokens / window_s : nan;
    out[kGoodputShare] =
        t.llm_arrived > 0 ? static_cast<double>(t.llm_good) / static_cast<double>(t.llm_arrived)
                          : nan;
    out[kKvCacheUtilization] = t.kv_capacity_area > 0 ? t.kv_held_area / t.kv_capacity_area : nan;
    out[kLlmPreemptions] = static_cast<double>(t.llm_preemptions);
    out[kRecomputedTokens] = t.llm_recomputed_tokens;
    // The pools of LLM services (their own and fallback pools) pay for their tokens.
    double cost = 0;
    for (uint32_t p = 0; p < m.pool_count; ++p) {
      bool llm_pool = false;
      for (uint32_t v = 0; v < m.service_count; ++v)
        llm_pool = llm_pool || (m.services[v].llm != CompiledService::kNotLlm &&
                                (m.services[v].pool == p || m.services[v].fallback.pool == p));
      if (llm_pool) cost += f_.ledger->pool_value(p, kPoolCostUsd);
    }
    out[kCostPerMillionTokensUsd] = t.llm_output_tokens > 0 ? 1e6 * cost / t.llm_output_tokens : nan;
  }

  /// The engine's clock advanced by dt seconds of the window: KV blocks held and warm.
  GPUCAP_HD void elapse_llm(double dt) {
    f_.totals.kv_held_area += f_.kv_blocks_held * dt;
    f_.totals.kv_capacity_area += f_.kv_blocks_warm * dt;
  }

  /// End of the run: replicas still up are used and billed to the horizon; requests still in
  /// service (preemptible services) are served; requests still waiting count as SLO violations
  /// once their wait alone breaks the bound. Service by service, in that order.
  GPUCAP_HD void finish() {
    for (uint32_t v = 0; v < f_.model->service_count; ++v) {
      ReplicaLifecycle::finish(f_, v);
      if (f_.model->services[v].llm != CompiledService::kNotLlm)
        LlmServing::finish(f_, v);
      else
        RequestRouting::finish(f_, v);
    }
  }

 private:
  /// A request of a windowed service: served at once, or waiting, or dropped, as any; the
  /// autoscaler only notes the change, and starts a replica when none is up (scale from zero).
  GPUCAP_HD void on_windowed_request(uint32_t v, const WaitingRequest& request, bool counted) {
    const CompiledService& cs = f_.model->services[v];
    const ServiceState& st = f_.state[v];
    if (st.free_slots > 0) {
      FleetAutoscaling::observe(f_, v, f_.now());
      RequestRouting::serve(f_, RequestRouting::free_replica(f_, cs), request, counted);
      return;
    }
    if (st.replicas_up == 0) FleetAutoscaling::start_replicas(f_, v, 1.0);
    if (st.queue_size < cs.queue_capacity) {
      FleetAutoscaling::observe(f_, v, f_.now());
      WaitingRequest& w = RequestRouting::enqueue(f_, v);
      w = request;
      w.cold = st.starting > 0;
      return;
    }
    RequestRouting::drop(f_, cs, counted);
  }

  FleetState f_;
};

GPUCAP_ARENA_NAMESPACE_END
}  // namespace gpucap::engine
