// gpucap engine: the replicas of LLM services (a service with `llm:`; docs/llm-serving.md).
// One of the fleet's parts (service_fleet.hpp composes them over one FleetState): this one puts
// an LLM service's requests, with their token counts, in its waiting room and runs each warm
// replica's iterations through the batching core (llm_batch.hpp) and its iteration time
// (llm_iteration.hpp); replica_lifecycle.hpp starts, stops and reclaims the replicas and
// fleet_autoscaling.hpp decides how many run, as for any service.
//
// Model: a request's (context, output) token counts are a row of the service's joint sample,
// drawn with the class's work draw (a uniform). It is dropped when it can never fit a
// replica's KV cache (in the service's pool) or the waiting room is full. Requests wait in the
// service's FIFO room, which every replica's scheduler reads (a shared queue in front of the
// replicas, as a router that dispatches at each iteration boundary): at the end of each of its
// iterations a replica applies it (tokens emitted, requests ended) and plans the next from its
// batch and the room's head; a warm replica without an iteration in flight starts one as soon
// as a request waits (lowest index first). One event per replica: its iteration's end
// (EventKind::request_done). A replica's `active` is its batch; its busy period lasts while the
// batch is non-empty. A reclaimed replica (spot, marketplace) loses its batch's KV: the
// requests go back to the front of the room in admission order and recompute (counted as
// preemptions, their computed tokens as recomputed). Requests count when they arrive in the
// window; one that ends counts as served with latency = round trip + end - arrival, wait =
// start of its first iteration - arrival, TTFT = round trip + first token - arrival, TPOT =
// (end - first token) / (output - 1) (two output tokens or more), and is good when it meets
// both token SLOs. At the horizon a request not ended is not served; it violates the latency
// SLO once its time in the system alone breaks it.
// Units: times in s; tokens; KV blocks.
#pragma once
#include <cstdint>

#include "gpucap/arena_ptr.hpp"
#include "gpucap/compiled_model.hpp"
#include "gpucap/engine/fleet_autoscaling.hpp"
#include "gpucap/engine/fleet_state.hpp"
#include "gpucap/engine/llm_batch.hpp"
#include "gpucap/engine/replica_lifecycle.hpp"
#include "gpucap/engine/request_routing.hpp"
#include "gpucap/llm_iteration.hpp"
#include "gpucap/portable.hpp"

namespace gpucap::engine {
GPUCAP_ARENA_NAMESPACE_BEGIN

struct LlmServing {
  /// Where replica r's batch and its service's waiting room are, and how it schedules.
  struct View {
    LlmReplica batch;
    LlmQueue queue;
    const CompiledLlmSite* site;
  };

  /// Hears the batching core's events on one replica and counts them.
  struct Sink {
    FleetState& f;
    const CompiledService& cs;
    const CompiledLlm& cl;
    uint32_t pool;
    GPUCAP_HD void first_token(const LlmRequest&, double) {}
    GPUCAP_HD void done(const LlmRequest& s, double end_s) {
      if (s.arrival_s < f.model->warmup_s) return;
      const bool own = pool == cs.pool;
      const double rtt = own ? cs.network_rtt_s : cs.fallback.network_rtt_s;
      ServiceTotals& t = f.totals;
      const double latency = rtt + end_s - s.arrival_s;
      const double wait = s.start_s - s.arrival_s;
      const double ttft = rtt + s.first_token_s - s.arrival_s;
      ++t.served;
      t.latency_sum_s += latency;
      f.latency->add(latency);
      t.request_wait_sum_s += wait;
      f.request_wait->add(wait);
      t.cold_served += s.cold;
      if (cs.slo_latency_s > 0 && latency > cs.slo_latency_s) ++t.slo_violations;
      ++t.llm_ended;
      t.llm_output_tokens += s.output;
      t.ttft_sum_s += ttft;
      f.ttft->add(ttft);
      bool good = !(cl.ttft_slo_s > 0 && ttft > cl.ttft_slo_s);
      if (s.output > 1) {
        const double tpot = (end_s - s.first_token_s) / (s.output - 1);
        ++t.tpot_count;
        t.tpot_sum_s += tpot;
        f.tpot->add(tpot);
        good = good && !(cl.tpot_slo_s > 0 && tpot > cl.tpot_slo_s);
      }
      t.llm_good += good ? 1u : 0u;
      const double egress = own ? cs.egress_usd_per_request : cs.fallback.egress_usd_per_request;
      if (egress > 0) f.ledger->egress(pool, egress);
    }
    GPUCAP_HD void preempted(const LlmRequest&, uint32_t lost) {
      if (f.now() < f.model->warmup_s) return;
      ++f.totals.llm_preemptions;
      f.totals.llm_recomputed_tokens += lost;
    }
    GPUCAP_HD void evicted(const LlmRequest& s, uint32_t lost) { preempted(s, lost); }
    GPUCAP_HD void dropped(const LlmRequest& s) {
      RequestRouting::drop(f, cs, s.arrival_s >= f.model->warmup_s);
    }
  };

  /// A request of LLM service v arrives now; u (in [0, 1)) picks its token counts.
  GPUCAP_HD static void on_request(FleetState& f, uint32_t v, double u, bool counted) {
    const CompiledModel& m = *f.model;
    const CompiledService& cs = m.services[v];
    const CompiledLlm& cl = m.llm[cs.llm];
    ServiceState& st = f.state[v];
    const double now = f.now();
    uint32_t row = static_cast<uint32_t>(u * cl.token_rows);
    if (row >= cl.token_rows) row = cl.token_rows - 1;
    const uint32_t* pair = m.llm_tokens + 2 * (cl.token_offset + row);
    LlmRequest s{now, -1, pair[0], pair[1], 0, 0, 0, 0, 0, 0};
    RequestRouting::count_arrival(f, cs, counted);
    if (counted) ++f.totals.llm_arrived;
    if (cs.windowed) FleetAutoscaling::observe(f, v, now);
    if (!LlmBatch::fits(cl.site.sched, s) || st.queue_size == cs.queue_capacity) {
      RequestRouting::drop(f, cs, counted);
      if (!cs.windowed) FleetAutoscaling::scale_up(f, v);
      return;
    }
    const uint32_t idle = idle_replica(f, cs);
    View w = view(f, cs.replica_offset, v);
    w.queue.push_back(s);
    st.queue_size = w.queue.size;
    if (cs.windowed) {
      if (st.replicas_up == 0) FleetAutoscaling::start_replicas(f, v, 1.0);
    } else {
      FleetAutoscaling::scale_up(f, v);
    }
    if (idle != kNone) {
      step(f, idle, false);
    } else if (st.starting > 0) {
      w.queue.at(w.queue.size - 1).cold = 1;  // it waits while a replica starts
    }
  }

  /// Replica r's iteration ended now (EventKind::request_done): it is applied and the next one
  /// planned.
  GPUCAP_HD static void on_iteration_end(FleetState& f, uint32_t r) {
    const uint32_t v = f.replicas[r].service;
    if (f.model->services[v].windowed) FleetAutoscaling::observe(f, v, f.now());
    f.replicas[r].iterating = 0;
    step(f, r, true);
  }

  /// Replica r became warm now: it starts on the waiting requests, else idles.
  GPUCAP_HD static void on_ready(FleetState& f, uint32_t r) {
    step(f, r, false);
    if (f.replicas[r].active == 0) ReplicaLifecycle::arm_idle_check(f, r);
  }

  /// Replica r's instance is reclaimed now: its batch goes back to the front of the waiting
  /// room (its KV lost), the replica stops (ReplicaLifecycle::reclaim), the autoscaler replaces
  /// it, and idle warm replicas take the requests.
  GPUCAP_HD static void on_preempted(FleetState& f, uint32_t r) {
    const CompiledModel& m = *f.model;
    ReplicaSlot& rep = f.replicas[r];
    const uint32_t v = rep.service;
    const CompiledService& cs = m.services[v];
    ServiceState& st = f.state[v];
    if (cs.windowed) FleetAutoscaling::observe(f, v, f.now());
    View w = view(f, r, v);
    Sink sink{f, cs, m.llm[cs.llm], rep.pool};
    const uint32_t running = rep.active;
    const uint32_t requeued = LlmBatch::evict_all(w.batch, w.queue, sink);
    st.queue_head = w.queue.head;
    st.queue_size = w.queue.size;
    st.in_service -= running;
    f.kv_blocks_held -= rep.kv_blocks_used;
    rep.kv_blocks_used = 0;
    rep.iterating = 0;
    ReplicaLifecycle::reclaim(f, r);  // its pending iteration end leaves the calendar
    FleetAutoscaling::replace(f, v);
    if (st.starting > 0)
      for (uint32_t j = 0; j < requeued; ++j) w.queue.at(j).cold = 1;
    serve_waiting(f, v);
    FleetAutoscaling::offer_gpus(f, f.replicas[r].pool, v);
  }

  /// Warm replicas of service v without an iteration in flight start one on the waiting
  /// requests, lowest index first.
  GPUCAP_HD static void serve_waiting(FleetState& f, uint32_t v) {
    const CompiledService& cs = f.model->services[v];
    for (uint32_t k = 0; k < cs.max_replicas && f.state[v].queue_size > 0; ++k) {
      const ReplicaSlot& rep = f.replicas[cs.replica_offset + k];
      if (rep.state == kReplicaWarm && !rep.iterating) step(f, cs.replica_offset + k, false);
    }
  }

  /// End of the run, after ReplicaLifecycle::finish: requests of the window not ended violate
  /// the latency SLO once their time in the system alone breaks it.
  GPUCAP_HD static void finish(FleetState& f, uint32_t v) {
    const CompiledModel& m = *f.model;
    const CompiledService& cs = m.services[v];
    if (cs.slo_latency_s <= 0) return;
    const auto late = [&](const LlmRequest& s) {
      return s.arrival_s >= m.warmup_s &&
             cs.network_rtt_s + m.horizon_s - s.arrival_s > cs.slo_latency_s;
    };
    const View w = view(f, cs.replica_offset, v);
    for (uint32_t i = 0; i < w.queue.size; ++i) f.totals.slo_violations += late(w.queue.at(i));
    for (uint32_t k = 0; k < cs.max_replicas; ++k) {
      const View b = view(f, cs.replica_offset + k, v);
      for (uint32_t i = 0; i < f.replicas[cs.replica_offset + k].active; ++i)
        f.totals.slo_violations += late(b.batch.seqs[i]);
    }
  }

 private:
  static constexpr uint32_t kNone = 0xFFFFFFFFu;

  /// Replica r's batch (r: any replica of v for the room alone) and v's waiting room.
  GPUCAP_HD static View view(const FleetState& f, uint32_t r, uint32_t v) {
    const CompiledService& cs = f.model->services[v];
    const CompiledLlm& cl = f.model->llm[cs.llm];
    const ReplicaSlot& rep = f.replicas[r];
    const ServiceState& st = f.state[v];
    View w;
    w.site = rep.pool == cs.pool || cs.fallback.pool == CompiledServiceSite::kNone ? &cl.site
                                                                                 : &cl.fallback;
    w.batch.seqs = f.llm_running + (cl.seq_offset + (r - cs.replica_offset) * cs.concurrency);
    w.batch.running = rep.active;
    w.batch.kv_blocks_used = rep.kv_blocks_used;
    w.queue.entries = f.llm_waiting + cs.queue_offset;
    w.queue.capacity = cs.queue_capacity;
    w.queue.head = st.queue_head;
    w.queue.size = st.queue_size;
    return w;
  }

  /// The first warm replica of service cs without an iteration in flight (kNone: none).
  GPUCAP_HD static uint32_t idle_replica(const FleetState& f, const CompiledService& cs) {
    for (uint32_t r = cs.replica_offset; r < cs.replica_offset + cs.max_replicas; ++r)
      if (f.replicas[r].state == kReplicaWarm && !f.replicas[r].iterating) return r;
    return kNone;
  }

  /// Warm replica r applies its iteration that ended now (when `applied`), then plans and
  /// starts the next; with nothing to run it idles.
  GPUCAP_HD static void step(FleetState& f, uint32_t r, bool applied) {
    const CompiledModel& m = *f.model;
    ReplicaSlot& rep = f.replicas[r];
    const uint32_t v = rep.service;
    const CompiledService& cs = m.services[v];
    ServiceState& st = f.state[v];
    const double now = f.now();
    View w = view(f, r, v);
    Sink sink{f, cs, m.llm[cs.llm], rep.pool};
    const uint32_t running_before = rep.active;
    const uint32_t kv_before = rep.kv_blocks_used;
    if (applied) LlmBatch::finish(w.batch, now, sink);
    const LlmIterationLoad load = LlmBatch::plan(w.batch, w.queue, w.site->sched, sink);
    st.queue_head = w.queue.head;
    st.queue_size = w.queue.size;
    const uint32_t running = w.batch.running;
    st.in_service = st.in_service - running_before + running;
    st.free_slots = st.free_slots + running_before - running;
    rep.active = running;
    rep.kv_blocks_used = w.batch.kv_blocks_used;
    f.kv_blocks_held += static_cast<double>(rep.kv_blocks_used) - kv_before;
    for (uint32_t i = 0; i < running; ++i)
      if (w.batch.seqs[i].start_s < 0 && w.batch.seqs[i].step > 0) w.batch.seqs[i].start_s = now;
    if (running_before == 0 && running > 0) rep.busy_since_s = now;
    if (load.tokens > 0) {
      rep.iterating = 1;
      f.push(now + llm_iteration_s(w.site->shape, m.table, load), EventKind::request_done, r);
      return;
    }
    if (running_before > 0) ReplicaLifecycle::went_idle(f, r, now);
  }
};

GPUCAP_ARENA_NAMESPACE_END
}  // namespace gpucap::engine
