// gpucap engine: the discrete-event engine behind run_replication(): the event loop, and the
// handler of each event kind (event_kinds.hpp), which asks the components for decisions:
//
//   EventCalendar  pending events, the tie rule, the per-class arrival slots  (event_calendar)
//   JobQueue       jobs waiting, in the discipline's order                    (job_queue)
//   JobSlots       jobs holding GPUs                                          (job_slots)
//   PoolCapacity   each pool's capacity, free GPUs and availability trace     (pool_capacity)
//   RunArithmetic  a run's prefix, computing, checkpoints, progress at a time (run_arithmetic)
//   Ledger         billing, accounting, prices, the replication's metrics     (ledger)
//   ServiceFleet   inference replicas and their requests                     (service_fleet)
//
// Components hold their state in the arena (arena_layout.hpp) and never call back into the
// engine. Invariants: every slot holding GPUs has exactly one pending event (run_start,
// completion or preemption); free GPUs + GPUs held == capacity in every pool (PoolCapacity).
#pragma once
#include <cstddef>
#include <cstdint>

#include "gpucap/arena_ptr.hpp"
#include "gpucap/compiled_model.hpp"
#include "gpucap/distribution.hpp"
#include "gpucap/engine/arena_layout.hpp"
#include "gpucap/engine/engine_features.hpp"
#include "gpucap/engine/job_queue.hpp"
#include "gpucap/engine/job_slots.hpp"
#include "gpucap/engine/ledger.hpp"
#include "gpucap/engine/pool_capacity.hpp"
#include "gpucap/engine/reclaim_draw.hpp"
#include "gpucap/engine/run_arithmetic.hpp"
#include "gpucap/engine/service_fleet.hpp"
#include "gpucap/engine/trace_replay.hpp"
#include "gpucap/event_calendar.hpp"
#include "gpucap/metrics.hpp"
#include "gpucap/philox.hpp"
#include "gpucap/residual_life.hpp"

namespace gpucap::engine {
GPUCAP_ARENA_NAMESPACE_BEGIN

/// Event kinds that belong to a job slot.
constexpr uint64_t kSlotEventKinds = kind_bit(EventKind::run_start) |
                                     kind_bit(EventKind::completion) |
                                     kind_bit(EventKind::preemption);

/// The observer of every run: nothing, at no cost (`kActive` false compiles each hook out).
/// JobRecorder (job_recorder.hpp, host only) has the same members and records every job.
struct NoRecorder {
  static constexpr bool kActive = false;
  GPUCAP_HD uint32_t arrival(uint32_t, double, uint32_t) { return 0; }
  GPUCAP_HD uint32_t initial(uint32_t, uint32_t) { return 0; }
  GPUCAP_HD void launch(uint32_t, uint32_t, uint32_t, double) {}
  GPUCAP_HD void run_begins(uint32_t) {}
  GPUCAP_HD void billed(uint32_t, double) {}
  GPUCAP_HD void preempted(uint32_t) {}
  GPUCAP_HD void completed(uint32_t, double) {}
  GPUCAP_HD uint32_t job_of(uint32_t) const { return 0; }
};

/// The engine, observed by `Recorder` (job_recorder.hpp): NoRecorder in every run, whose hooks
/// compile to nothing; JobRecorder when per-job records are made on the host. `Features`
/// (engine_features.hpp) says which optional parts are compiled in: CoreFeatures runs only
/// models that CompiledModel::core_only marks, with the same bits as AllFeatures.
template <typename Recorder = NoRecorder, typename F = AllFeatures>
class BasicReplicationEngine {
 public:
  /// `arena`: the arena of this replication (kArenaLanes = 1), or of the group of kArenaLanes
  /// replications whose arenas are interleaved (arena_ptr.hpp), this one lane `lane` of them;
  /// kArenaLanes x ArenaLayout::total_bytes, 8-byte aligned. `calendar_memory` likewise holds
  /// the group's event calendars (kArenaLanes x ArenaLayout::calendar_part_bytes) apart from the
  /// arenas, or is null (the calendars in the arenas). Where state lives changes no result.
  GPUCAP_HD BasicReplicationEngine(const CompiledModel& model, uint64_t seed, uint64_t replication,
                                   void* arena, double* scalars, double* pool_values,
                                   double* timeseries, Recorder* recorder = nullptr,
                                   void* calendar_memory = nullptr, uint32_t lane = 0)
      : m_(model),
        seed_(seed),
        replication_(replication),
        out_(scalars),
        run_(model),
        ledger_(model),
        rec_(recorder) {
    const ArenaLayout a = ArenaLayout::of(model);
    char* const group = static_cast<char*>(arena);
    const LaneParts part{group, lane};
    const LaneParts calendar_parts{calendar_memory ? static_cast<char*>(calendar_memory) : group,
                                   lane};
    calendar_.reset(calendar_parts.at<Event>(a.calendar), a.calendar_capacity,
                    calendar_parts.at<Event>(a.arrival_slots), a.arrival_slot_count);
    slots_.bind(part.at<JobSlot>(a.slots), part.at<uint32_t>(a.free_slots), a.slot_capacity);
    queue_.bind(model, part.at<QueuedJob>(a.queue));
    streams_ = part.at<RandomStream>(a.streams);
    class_state_ = part.at<ClassState>(a.class_state);
    trace_layers_ = part.at<TraceLayer>(a.trace_layers);
    capacity_.bind(model, part.at<int32_t>(a.free_gpus),
                   part.at<AvailabilityState>(a.availability));

    for (uint32_t c = 0; c < m_.class_count; ++c) {
      streams_[2 * c] = RandomStream::make(seed, replication, stream_id(StreamKind::arrivals, c));
      streams_[2 * c + 1] =
          RandomStream::make(seed, replication, stream_id(StreamKind::job_size, c));
      ClassState& cs = class_state_[c];
      cs.trace_layer = 0;
      cs.limited_jobs = 0;
      cs.holding_jobs = 0;
      draw_parameters(c, cs);
      const CompiledArrivals& arr = m_.classes[c].arrivals;
      cs.burst_end_s = 0.0;  // interval 0's multiplier is drawn by the first arrival's search
      cs.burst_factor = 1.0;
      cs.drift_end_s = 0.0;
      cs.drift_level = 1.0;
      if (F::kBursts && (arr.burst_interval_s > 0 || arr.drift_interval_s > 0))
        cs.burst_stream = RandomStream::make(seed, replication, stream_id(StreamKind::bursts, c));
      if (arr.kind != ArrivalKind::trace) {
        cs.next_unit_gap = sample_standard_exponential(streams_[2 * c]);
        cs.next_work_s =
            sample(m_.classes[c].work_s, streams_[2 * c + 1], m_.table) * cs.scale_factor;
      } else {
        TraceReplay::start(m_, arr, trace_layers_ + arr.layer_offset, seed, replication, c);
      }
    }
    for (uint32_t p = 0; p < m_.pool_count; ++p)
      for (uint32_t k = 0; k < kPoolStreamCount; ++k)
        pool_stream(k, p) =
            RandomStream::make(seed, replication, stream_id(pool_stream_kind(k), p));

    UsageSeries usage;
    usage.values = model.timeseries_bins > 0 ? timeseries : nullptr;
    usage.queue = usage.values && model.timeseries_queue_row
                      ? timeseries + static_cast<uint64_t>(model.pool_count) * model.timeseries_bins
                      : nullptr;
    usage.step_s = model.timeseries_step_s;
    usage.bins = model.timeseries_bins;
    usage.pool_count = model.pool_count;
    ledger_.bind(LedgerStorage{
        pool_values, part.at<double>(a.price_marks), part.at<QuantileRecorder>(a.wait_quantiles),
        part.at<QuantileRecorder>(a.completion_quantiles),
        model.has_deployments ? part.at<QuantileRecorder>(a.restore_quantiles) : nullptr,
        part.at<PriceState>(a.prices), pool_streams(kPriceStream), usage,
        part.at<double>(a.commitment_usage)});
    fleet_.bind(
        FleetContext{&model, &calendar_, &capacity_, &ledger_, pool_streams(kProvisioningStream),
                     pool_streams(kPreemptionStream), pool_streams(kStockoutStream), &now_},
        FleetStorage{part.at<ServiceState>(a.service_state), part.at<ReplicaSlot>(a.replicas),
                     part.at<WaitingRequest>(a.waiting_requests),
                     part.at<QuantileRecorder>(a.latency_quantiles),
                     part.at<QuantileRecorder>(a.request_wait_quantiles),
                     part.at<AutoscalerState>(a.autoscalers), part.at<double>(a.autoscale_history),
                     part.at<TrackedRequest>(a.tracked_requests),
                     part.at<LlmRequest>(a.llm_running), part.at<LlmRequest>(a.llm_waiting),
                     part.at<QuantileRecorder>(a.ttft_quantiles),
                     part.at<QuantileRecorder>(a.tpot_quantiles)});
    for (uint32_t i = 0; i < kScalarMetricCount; ++i) out_[i] = 0;
  }

  /// Runs to the horizon.
  GPUCAP_HD int run() { return run_loop(NoStop{}); }
  /// Runs to the horizon, or stops with status 2 (kReplicationEventLimit in replication.hpp)
  /// after `max_events` events. A separate instance, so that run() pays nothing for the limit.
  GPUCAP_HD int run_limited(uint64_t max_events) { return run_loop(EventLimit{max_events}); }
  /// Runs to the horizon, or stops early when `stop.status(events)` returns a status other
  /// than 0 (checked after every event; see run_replication_cancellable in replication.hpp).
  template <typename Stop>
  GPUCAP_HD int run_until(const Stop& stop) {
    return run_loop(stop);
  }

 private:
  /// Stop conditions of run_loop: `kActive` false compiles the check out of run().
  struct NoStop {
    static constexpr bool kActive = false;
    GPUCAP_HD int status(uint64_t) const { return 0; }
  };
  struct EventLimit {
    static constexpr bool kActive = true;
    uint64_t max_events;
    GPUCAP_HD int status(uint64_t events) const { return events > max_events ? 2 : 0; }
  };

  static constexpr double kNever = EventCalendar::kNever;
  static constexpr uint32_t kNoPool = 0xFFFFFFFFu;

  /// This replication's parameters of class c (uncertainty): multipliers e^(sd Z - sd^2/2) of
  /// its rate and work scale, two standard normals of the class's own stream in that order (the same
  /// at every sweep point: common random numbers); 1 and 1 without an uncertainty.
  GPUCAP_HD void draw_parameters(uint32_t c, ClassState& cs) {
    cs.rate_factor = 1.0;
    cs.scale_factor = 1.0;
    if constexpr (!F::kParameterDraws) return;
    const CompiledJobClass& cls = m_.classes[c];
    if (!m_.has_parameter_draws || !(cls.rate_sd_log > 0 || cls.scale_sd_log > 0)) return;
    RandomStream draws =
        RandomStream::make(seed_, replication_, stream_id(StreamKind::parameters, c));
    const double z_rate = sample_standard_normal(draws);
    const double z_scale = sample_standard_normal(draws);
    // Mean-preserving lognormals: E[e^(sd Z - sd^2/2)] = 1, so the rate and mean work given
    // stay the means over replications.
    cs.rate_factor = pmath::exp(cls.rate_sd_log * z_rate - 0.5 * cls.rate_sd_log * cls.rate_sd_log);
    cs.scale_factor =
        pmath::exp(cls.scale_sd_log * z_scale - 0.5 * cls.scale_sd_log * cls.scale_sd_log);
  }

  template <typename Stop>
  GPUCAP_HD int run_loop(const Stop& stop) {
    for (uint32_t p = 0; p < m_.pool_count; ++p) {
      const CompiledPool& pool = m_.pools[p];
      if (pool.has_availability) {
        const double next = capacity_.start_trace(
            p, RandomStream::make(seed_, replication_, stream_id(StreamKind::availability, p)));
        if (next != kNever) push(next, EventKind::availability, p);
      }
      if (pool.has_zone_events) schedule_zone_event(p);
      if (PriceProcess::moves(pool)) ledger_.prices().start(p, pool_stream(kPriceStream, p));
    }
    if (m_.service_count > 0) fleet_.start();
    if constexpr (F::kDeployments) place_initial_state();
    for (uint32_t c = 0; c < m_.class_count; ++c) schedule_next_arrival(c, 0.0);
    uint64_t events = 0;
    int status = 0;
    Event e{0.0, 0};
    while (!calendar_.overflowed && calendar_.pop_until(m_.horizon_s, e)) {
      ++events;
      if constexpr (Stop::kActive) {
        status = stop.status(events);
        if (status != 0) break;  // kReplicationEventLimit, kReplicationCancelled
      }
      advance_clock(e.time_s);
      const uint32_t x = e.payload();
      switch (e.kind()) {
        case EventKind::arrival:
          on_arrival(x);
          break;
        case EventKind::run_start:
          begin_run(x);
          break;
        case EventKind::completion:
          on_completion(x);
          break;
        // The kinds below never occur in a model without their part (engine_features.hpp).
        case EventKind::preemption:
          if constexpr (F::kReclaims) {
            reclaim(x, true);
            dispatch();
          }
          break;
        case EventKind::availability:
          if constexpr (F::kReclaims) on_availability_change(x);
          break;
        case EventKind::retry:
          if constexpr (F::kLaunchChecks) {
            retry_pending_ = false;
            dispatch();
          }
          break;
        case EventKind::zone_event:
          if constexpr (F::kReclaims) on_zone_event(x);
          break;
        case EventKind::request_done:
          if constexpr (F::kServices) fleet_.on_request_done(x);
          break;
        case EventKind::replica_ready:
          if constexpr (F::kServices) fleet_.on_ready(x);
          break;
        case EventKind::idle_check:
          if constexpr (F::kServices) fleet_.on_idle_check(x);
          break;
        case EventKind::autoscale_tick:
          if constexpr (F::kServices) fleet_.on_tick(x);
          break;
        case EventKind::replica_preemption:
          if constexpr (F::kServices) fleet_.on_preempted(x);
          break;
      }
    }
    if (calendar_.overflowed || calendar_.exhausted()) status = 1;  // kReplicationCalendarOverflow
    advance_clock(m_.horizon_s);
    finish(events);
    return status;
  }

  GPUCAP_HD RandomStream& pool_stream(uint32_t which, uint32_t p) {
    return streams_[2 * m_.class_count + which * m_.pool_count + p];
  }
  /// The streams of kind `which`, one per pool.
  GPUCAP_HD ArenaPtr<RandomStream> pool_streams(uint32_t which) {
    return streams_ + (2 * m_.class_count + which * m_.pool_count);
  }

  GPUCAP_HD GPUCAP_FORCEINLINE void push(double time_s, EventKind kind, uint32_t payload) {
    GPUCAP_INVARIANT(time_s >= now_, "no event is scheduled in the past (nor at NaN)");
    calendar_.schedule(time_s, kind, payload);
  }

  // ---- time ---------------------------------------------------------------------------------

  GPUCAP_HD GPUCAP_FORCEINLINE void advance_clock(double t) {
    GPUCAP_INVARIANT(t >= now_ && t <= m_.horizon_s,
                     "events leave the calendar in time order, none after the horizon");
    const double dt = ledger_.elapse(now_, t, queue_.size(), slots_.held());
    if constexpr (F::kTimeseries) ledger_.waiting(now_, t, queue_.size());
    if (F::kServices && m_.service_count > 0 && dt > 0)
      fleet_.totals().replica_area += static_cast<double>(fleet_.replicas_up()) * dt;
    if (F::kServices && m_.llm_count > 0 && dt > 0) fleet_.elapse_llm(dt);
    if (F::kDeployments && m_.has_deployments) ledger_.deployments().elapse(dt);
    now_ = t;
  }

  // ---- arrivals -----------------------------------------------------------------------------

  /// Time of the class's next arrival after t (kNever, +infinity, when there is none: a finite
  /// sentinel such as horizon + 1 s equals the horizon once it passes 2^53 s).
  GPUCAP_HD GPUCAP_FORCEINLINE double next_arrival_time(uint32_t c, double t) {
    const CompiledArrivals& arr = m_.classes[c].arrivals;
    ClassState& cs = class_state_[c];
    if (F::kTraceArrivals && arr.kind == ArrivalKind::trace) {
      const ArenaPtr<TraceLayer> layers = trace_layers_ + arr.layer_offset;
      cs.trace_layer = arr.layer_count == 1 ? 0 : TraceReplay::earliest(layers, arr.layer_count);
      return layers[cs.trace_layer].next_s;
    }
    const double unit_gap = cs.next_unit_gap;
    cs.next_unit_gap = sample_standard_exponential(streams_[2 * c]);
    if (F::kBursts && (arr.burst_interval_s > 0 || arr.drift_interval_s > 0))
      return next_burst_arrival(c, t, unit_gap);
    switch (arr.kind) {
      case ArrivalKind::poisson:
        return t + unit_gap / (F::kParameterDraws ? arr.rate_per_s * cs.rate_factor : arr.rate_per_s);
      case ArrivalKind::profile: {
        // Invert the piecewise-constant cumulative rate: exact, one uniform per arrival.
        double remaining = unit_gap;
        for (;;) {
          if (t > m_.horizon_s) return kNever;
          const double bin_index = __builtin_floor(t / arr.profile_bin_s);
          const double bin_end = (bin_index + 1.0) * arr.profile_bin_s;
          const uint64_t slot = static_cast<uint64_t>(bin_index) % arr.profile_count;
          const double base =
              F::kParameterDraws ? arr.rate_per_s * cs.rate_factor : arr.rate_per_s;
          const double rate = base * m_.table[arr.profile_offset + slot];
          const double mass = rate * (bin_end - t);
          if (rate > 0 && mass >= remaining) return t + remaining / rate;
          remaining -= mass;
          t = bin_end;
        }
      }
      case ArrivalKind::trace:
        break;
    }
    return kNever;
  }

  /// The next arrival after t of a class with bursts or a drift: the cumulative rate, piecewise
  /// constant between the profile's bins and the burst and drift intervals, inverted at
  /// `unit_gap` (a unit exponential). Each interval's multiplier (a burst's gamma, the drift's
  /// step) is drawn when the search first enters it, so the intervals draw in order whatever
  /// the arrivals do (kNever: none before the horizon).
  GPUCAP_HD GPUCAP_NOINLINE double next_burst_arrival(uint32_t c, double t, double unit_gap) {
    const CompiledArrivals& arr = m_.classes[c].arrivals;
    ClassState& cs = class_state_[c];
    const double base = F::kParameterDraws ? arr.rate_per_s * cs.rate_factor : arr.rate_per_s;
    const bool profiled = arr.kind == ArrivalKind::profile;
    double remaining = unit_gap;
    const bool bursts = arr.burst_interval_s > 0, drifts = arr.drift_interval_s > 0;
    for (;;) {
      if (t > m_.horizon_s) return kNever;
      if (bursts && t >= cs.burst_end_s) {
        cs.burst_end_s = (__builtin_floor(t / arr.burst_interval_s) + 1.0) * arr.burst_interval_s;
        if (!(cs.burst_end_s > t)) cs.burst_end_s = t + arr.burst_interval_s;  // past 2^53 s
        cs.burst_factor = sample(arr.burst, cs.burst_stream, m_.table);
      }
      if (drifts && t >= cs.drift_end_s) {
        // Interval 0 keeps level 1; each later one steps from the one before.
        if (cs.drift_end_s > 0) {
          const double sd = arr.drift_sd_log;
          cs.drift_level *= pmath::exp(sd * sample_standard_normal(cs.burst_stream) - 0.5 * sd * sd);
        }
        cs.drift_end_s = (__builtin_floor(t / arr.drift_interval_s) + 1.0) * arr.drift_interval_s;
        if (!(cs.drift_end_s > t)) cs.drift_end_s = t + arr.drift_interval_s;
      }
      double end = kNever;
      if (bursts) end = cs.burst_end_s;
      if (drifts && cs.drift_end_s < end) end = cs.drift_end_s;
      double rate = base * cs.burst_factor * cs.drift_level;
      if (profiled) {
        const double bin_index = __builtin_floor(t / arr.profile_bin_s);
        const double bin_end = (bin_index + 1.0) * arr.profile_bin_s;
        if (bin_end < end) end = bin_end;
        rate *= m_.table[arr.profile_offset + static_cast<uint64_t>(bin_index) % arr.profile_count];
      }
      const double mass = rate * (end - t);
      if (rate > 0 && mass >= remaining) return t + remaining / rate;
      remaining -= mass;
      t = end;
    }
  }

  /// Every class keeps its pending arrival in its calendar slot (kNever: none left).
  GPUCAP_HD GPUCAP_FORCEINLINE void schedule_next_arrival(uint32_t c, double t) {
    const double next = next_arrival_time(c, t);
    GPUCAP_INVARIANT(next == kNever || next >= now_, "no arrival is scheduled in the past");
    calendar_.set_slot(c, next <= m_.horizon_s ? next : kNever, EventKind::arrival, c);
  }

  /// An arrival of class c: a job, or a request to an inference service. Its work (reference-GPU
  /// seconds; a request's service time) and GPUs come from its trace row, or were drawn one
  /// arrival ahead.
  GPUCAP_HD GPUCAP_FORCEINLINE void on_arrival(uint32_t c) {
    const CompiledJobClass& cls = m_.classes[c];
    uint32_t gpus = cls.gpus;
    double work_s;
    uint32_t trace_index = 0xFFFFFFFFu;  // for a recorder: the trace row (none: drawn)
    if (F::kTraceArrivals && cls.arrivals.kind == ArrivalKind::trace) {
      const uint32_t l = class_state_[c].trace_layer;
      TraceLayer& layer = trace_layers_[cls.arrivals.layer_offset + l];
      const uint32_t row = cls.arrivals.trace_offset + layer.next_row;
      trace_index = row;
      gpus = m_.trace_gpus[row];
      work_s = m_.trace_work_s[row];
      TraceReplay::advance(m_, cls.arrivals, layer, l + 1 == cls.arrivals.layer_count);
    } else {
      work_s = class_state_[c].next_work_s;
      const double draw = sample_inline_exponential(cls.work_s, streams_[2 * c + 1], m_.table);
      class_state_[c].next_work_s =
          F::kParameterDraws ? draw * class_state_[c].scale_factor : draw;
    }
    schedule_next_arrival(c, now_);

    const bool counted = now_ >= m_.warmup_s;
    if (F::kServices && cls.service != CompiledJobClass::kNotAService) {
      fleet_.on_request(cls.service, work_s, counted);
      return;
    }
    if (F::kDeployments && cls.deployment) {
      arrive_instance(c, gpus, now_ + work_s, trace_index);
      return;
    }
    if (counted) ++ledger_.jobs().arrived;
    uint32_t flags = 0;  // with a recorder, the job's id rides above the JobFlags bits
    if constexpr (Recorder::kActive) flags = rec_->arrival(c, now_, trace_index) << kJobIdShift;
    submit(QueuedJob{now_, work_s, c, gpus, 0, flags, kNoCheckpoint}, counted);
  }

  /// A job asks for GPUs: it starts at once when it fits and nothing waiting takes precedence
  /// over it, else it waits, else (waiting room full) it is dropped.
  GPUCAP_HD GPUCAP_FORCEINLINE void submit(const QueuedJob& job, bool counted) {
    if (m_.backfill || queue_.size() == 0 || queue_.jumps_queue(job)) {
      const uint32_t pool = find_pool(job);
      if (pool != kNoPool) {
        start_job(job, pool);
        return;
      }
    }
    if (!queue_.full()) {
      queue_.enqueue(job);
    } else if (F::kDeployments && m_.has_deployments && m_.classes[job.job_class].deployment) {
      ledger_.deployments().dropped(now_);
      retire_queued_instance(job);
    } else if (counted) {
      ++ledger_.jobs().dropped;
    }
  }

  /// Starts waiting jobs after GPUs were freed, in queue order; with backfill, any job that fits.
  GPUCAP_HD GPUCAP_FORCEINLINE void dispatch() {
    uint32_t i = 0;
    while (i < queue_.size()) {
      if (F::kDeployments && m_.has_deployments && lifetime_over(queue_.at(i))) {
        retire_queued_instance(queue_.take(i));
        continue;
      }
      const uint32_t pool = find_pool(queue_.at(i));
      if (pool == kNoPool) {
        if (!m_.backfill) return;
        ++i;
        continue;
      }
      start_job(queue_.take(i), pool);
    }
  }

  // ---- placement and runs -------------------------------------------------------------------

  /// First pool in the class's preference list with enough free GPUs for the whole gang and
  /// whose launch succeeds (a stockout makes it fail and the job tries the next pool).
  /// Preemptible pools are skipped for a job that has been preempted often enough, or whose
  /// slack before its deadline has fallen below the class's threshold (fallback policy).
  /// With the class's placement_mask, only the pools that have a free GPU are visited, in the
  /// list's order (lowest index first): the same pools, checks and draws as the walk.
  GPUCAP_HD GPUCAP_FORCEINLINE uint32_t find_pool(const QueuedJob& job) {
    const CompiledJobClass& cls = m_.classes[job.job_class];
    if (m_.placement_by_mask && cls.placement_mask != 0) {
      for (uint64_t candidates = cls.placement_mask & capacity_.pools_with_free_gpus();
           candidates != 0; candidates &= candidates - 1) {
        const uint32_t p = lowest_set_bit(candidates);
        if (placeable(job, cls, p)) return p;
      }
      return kNoPool;
    }
    for (uint32_t k = 0; k < cls.placement_count; ++k)
      if (placeable(job, cls, m_.placement[cls.placement_offset + k]))
        return m_.placement[cls.placement_offset + k];
    return kNoPool;
  }

  /// Whether the job launches in pool p: its gang fits and the pool's launch checks pass (a
  /// job that passes counts as holding GPUs, for its class's placement share).
  GPUCAP_HD GPUCAP_FORCEINLINE bool placeable(const QueuedJob& job, const CompiledJobClass& cls,
                                              uint32_t p) {
    if (!capacity_.fits(p, job.gpus)) return false;
    if (F::kLaunchChecks && m_.pools[p].launch_checks && !passes_launch_checks(job, cls, p))
      return false;
    if (F::kLaunchChecks && cls.limit_share > 0) ++class_state_[job.job_class].holding_jobs;
    return true;
  }

  /// The rarer checks of a launch in pool p (preemptible, with stockouts, or some class's
  /// placement_limit pool), in this order: the class's placement limit, the fallback policy,
  /// then the stockout draw (drawn only for a launch that nothing else refused). A job that
  /// passes in its class's limited pool takes its place there: find_pool's callers launch it
  /// at once (the place is given back in on_completion or reclaim). Out of line so that
  /// scenarios without such pools keep find_pool small.
  GPUCAP_HD GPUCAP_FORCEINLINE bool passes_launch_checks(const QueuedJob& job,
                                                         const CompiledJobClass& cls, uint32_t p) {
    const CompiledPool& pool = m_.pools[p];
    const bool limited = p == cls.limit_pool;
    if (limited && !within_placement_limit(class_state_[job.job_class], cls, job.gpus))
      return false;
    if (pool.preemptible && avoids_preemptible(job, cls)) return false;
    if (pool.stockout_probability > 0 && launch_fails(p)) return false;
    if (limited) class_state_[job.job_class].limited_jobs += limit_units(cls, job.gpus);
    return true;
  }

  /// Whether one more job of `gpus` GPUs of the class may take GPUs in its placement_limit pool:
  /// it keeps the class there within limit_jobs (jobs, or GPUs when the limit counts them), and with a share, limited + 1 <= ceil(share x (holding + 1)), both counts
  /// with the new job, i.e. limited < share x (holding + 1) (1e-9 absorbs the rounding of
  /// share x count above a whole number, e.g. 0.07 x 100 = 7.000000000000001). Rounding up
  /// lets a class always have one job there, so a job that may use no other pool never
  /// waits for ever.
  GPUCAP_HD static bool within_placement_limit(const ClassState& cs, const CompiledJobClass& cls,
                                                uint32_t gpus) {
    if (static_cast<uint64_t>(cs.limited_jobs) + limit_units(cls, gpus) > cls.limit_jobs) return false;
    return !(cls.limit_share > 0) || static_cast<double>(cs.limited_jobs) + 1e-9 <
                                         cls.limit_share * static_cast<double>(cs.holding_jobs + 1);
  }

  /// What a job of `gpus` GPUs counts for under its class's placement limit: 1 job, or its
  /// GPUs when the limit counts GPUs.
  GPUCAP_HD static uint32_t limit_units(const CompiledJobClass& cls, uint32_t gpus) {
    return cls.limit_counts_gpus ? gpus : 1u;
  }

  /// The fallback policy: true once the job was preempted often enough (unless its last run
  /// fell back and the class returns to preemptible pools), or its slack before the deadline
  /// (minus the reference work left) fell below the class's threshold.
  GPUCAP_HD bool avoids_preemptible(const QueuedJob& job, const CompiledJobClass& cls) const {
    return (job.preemptions >= cls.fallback_after_preemptions &&
            !(job.flags & kReturnsToPreemptible)) ||
           (cls.fallback_slack_s >= 0 &&
            job.arrival_s + cls.deadline_s - now_ - job.work_s < cls.fallback_slack_s);
  }

  /// Draws whether a launch in pool p fails for a stockout; a failure schedules a retry.
  GPUCAP_HD bool launch_fails(uint32_t p) {
    const CompiledPool& pool = m_.pools[p];
    RandomStream& rng = pool_stream(kStockoutStream, p);
    if (!(rng.next_uniform() < pool.stockout_probability)) return false;
    if (now_ >= m_.warmup_s) ledger_.launch_failure(p);
    if (!retry_pending_) {
      retry_pending_ = true;
      push(now_ + pool.stockout_retry_s, EventKind::retry, 0);
    }
    return true;
  }

  /// A run of slot s ends early (reclaimed): the job gives up its place under its class's
  /// placement_limit, and returns its flags for the job's next launch. For a class that returns
  /// to preemptible pools, a run in a preemptible pool clears kReturnsToPreemptible and a run
  /// elsewhere begun while fallback.after_preemptions held sets it (it fell back: its next
  /// launch tries them again). Out of line: only scenarios with such rules call it.
  GPUCAP_HD GPUCAP_NOINLINE uint32_t end_run_rules(uint32_t s) {
    const JobSlot& slot = slots_[s];
    const CompiledJobClass& cls = m_.classes[slot.job_class];
    release_placement_limit(slot, cls);
    const uint32_t flags = slot.flags;
    if (!cls.fallback_returns) return flags;
    if (m_.pools[slot.pool].preemptible)
      return flags & ~static_cast<uint32_t>(kReturnsToPreemptible);
    return slot.preemptions >= cls.fallback_after_preemptions ? flags | kReturnsToPreemptible
                                                              : flags;
  }

  /// The job's hold ends (completion or reclaim): it leaves its class's placement_limit counts.
  GPUCAP_HD GPUCAP_FORCEINLINE void release_placement_limit(const JobSlot& slot,
                                                            const CompiledJobClass& cls) {
    if constexpr (!F::kLaunchChecks) return;
    if (slot.pool == cls.limit_pool)
      class_state_[slot.job_class].limited_jobs -= limit_units(cls, slot.gpus);
    if (cls.limit_share > 0) --class_state_[slot.job_class].holding_jobs;
  }

  /// Launches `job` in `pool`: its GPUs leave the pool now; it runs after provisioning.
  GPUCAP_HD GPUCAP_FORCEINLINE void start_job(const QueuedJob& job, uint32_t pool) {
    const bool instance =
        F::kDeployments && m_.has_deployments && m_.classes[job.job_class].deployment;
    if (instance) {
      if (!(job.flags & kLaunchedBefore)) ledger_.deployments().waited(job.arrival_s, now_);
      ledger_.deployments().holding(+1);
    } else if ((!F::kReclaims || !(job.flags & kLaunchedBefore)) && job.arrival_s >= m_.warmup_s) {
      // Without reclaims a job launches once: its first launch is this one.
      ledger_.first_launch(now_ - job.arrival_s);
    }
    capacity_.take(pool, job.gpus);
    const uint32_t s = slots_.acquire();
    JobSlot& slot = slots_[s];
    slot.arrival_s = job.arrival_s;
    slot.start_s = now_;
    slot.work_s = job.work_s;
    slot.pool = pool;
    slot.gpus = job.gpus;
    slot.job_class = job.job_class;
    slot.preemptions = job.preemptions;
    // A slot keeps the JobFlags only (with a recorder, the job's id stays with the recorder).
    const bool at_start = (job.flags & kRunningAtStart) != 0;
    const uint32_t kept_flags = job.flags & kJobFlagBits & ~static_cast<uint32_t>(kRunningAtStart);
    slot.flags = static_cast<uint16_t>(kept_flags | kLaunchedBefore);
    slot.checkpoint_pool = job.checkpoint_pool;
    if constexpr (Recorder::kActive) rec_->launch(s, job.flags >> kJobIdShift, pool, now_);
    const CompiledPool& p = m_.pools[pool];
    if (F::kDeployments && at_start) {  // running at t = 0: no provisioning (nor startup)
      if (instance)
        begin_instance_run(s, true);
      else
        begin_run(s);
      return;
    }
    if (p.has_provisioning_delay) {
      slot.state = kSlotProvisioning;
      const double delay =
          sample(p.provisioning_delay_s, pool_stream(kProvisioningStream, pool), m_.table);
      push(now_ + delay, EventKind::run_start, s);
    } else {
      begin_run(s);
    }
  }

  /// The job starts running: its prefix (fetching, restoring), then computing with periodic
  /// checkpoints. The run ends by completion, or earlier by the instance being reclaimed.
  GPUCAP_HD GPUCAP_FORCEINLINE void begin_run(uint32_t s) {
    JobSlot& slot = slots_[s];
    if (F::kDeployments && m_.has_deployments && m_.classes[slot.job_class].deployment) {
      begin_instance_run(s, false);
      return;
    }
    if ((!F::kReclaims || slot.preemptions == 0) && slot.arrival_s >= m_.warmup_s)
      ledger_.first_start(slot.pool, now_ - slot.start_s);  // start_s: still the launch time
    slot.state = kSlotRunning;
    slot.start_s = now_;
    if constexpr (Recorder::kActive) rec_->run_begins(s);
    const CompiledPool& pool = m_.pools[slot.pool];
    if constexpr (F::kMovingPrices) ledger_.run_begins(s, slot.pool, now_);
    // The prefix: 0 without transfers and reclaims (no data to fetch, nothing to restore).
    slot.restart_s = F::kTransfers || F::kReclaims ? run_.prefix_s(slot) : 0.0;
    const double speed = F::kRunSpeeds && m_.has_run_speeds
                             ? m_.run_speed[slot.job_class * m_.pool_count + slot.pool]
                             : pool.speed;
    slot.speed =
        F::kRunSpeeds && pool.has_slowdown
            ? speed / sample(pool.slowdown, pool_stream(kSlowdownStream, slot.pool), m_.table)
            : speed;
    const double duration_s = run_.duration_s(slot);
    if (F::kReclaims && pool.preemptible) {
      const double reclaim_s =
          time_to_reclaim(pool, pool_stream(kPreemptionStream, slot.pool), m_.table);
      if (reclaim_s < duration_s) {  // equal: the work is done first (the tie rule)
        push(now_ + reclaim_s, EventKind::preemption, s);
        return;
      }
    }
    push(now_ + duration_s, EventKind::completion, s);
  }

  GPUCAP_HD GPUCAP_FORCEINLINE void on_completion(uint32_t s) {
    JobSlot& slot = slots_[s];
    const CompiledJobClass& cls = m_.classes[slot.job_class];
    if (F::kDeployments && cls.deployment) {
      end_instance(s);
      return;
    }
    bill_hold(s, slot, now_);
    if constexpr (Recorder::kActive) rec_->completed(s, now_);
    if (cls.checkpoint_interval_s > 0 || ((F::kTransfers || F::kReclaims) && slot.restart_s > 0))
      ledger_.overheads(slot, now_, run_.checkpoints_needed(slot) * cls.checkpoint_write_s,
                        slot.restart_s, 0.0);
    if (slot.arrival_s >= m_.warmup_s) {
      const double completion = now_ - slot.arrival_s;
      ledger_.completion(completion, cls.deadline_s > 0 && completion > cls.deadline_s);
    }
    release_placement_limit(slot, cls);
    release(s);
    dispatch();
  }

  /// The instance is reclaimed: the job keeps what its last checkpoint saved (or, when the
  /// notice leaves time to write one, what it had done when the notice came), goes back to the
  /// queue with the rest, and the GPUs return to the pool. The run's time splits exactly into
  /// restoring + checkpoint writing + saved computing + lost (computing not saved, idling).
  /// `own_event`: the slot's scheduled preemption; otherwise a capacity change reclaims it and
  /// its pending event is taken out of the calendar. The caller dispatches afterwards.
  GPUCAP_HD void reclaim(uint32_t s, bool own_event) {
    JobSlot& slot = slots_[s];
    if (!own_event) calendar_.remove(s, kSlotEventKinds);
    const uint32_t flags = m_.has_class_launch_rules ? end_run_rules(s) : slot.flags;
    if (slot.state == kSlotProvisioning) {  // reclaimed before it ran: nothing done or billed
      const QueuedJob job{slot.arrival_s,   slot.work_s,         slot.job_class,      slot.gpus,
                          slot.preemptions, job_flags(s, flags), slot.checkpoint_pool};
      release(s);
      submit(job, slot.arrival_s >= m_.warmup_s);
      return;
    }
    if (F::kDeployments && m_.has_deployments && m_.classes[slot.job_class].deployment) {
      interrupt_instance(s, flags);
      return;
    }
    const double elapsed_s = now_ - slot.start_s;
    const RunProgress progress =
        run_.progress_when_reclaimed(slot, elapsed_s, m_.pools[slot.pool].notice_s);
    const double restoring_s = elapsed_s < slot.restart_s ? elapsed_s : slot.restart_s;
    const double lost_s = elapsed_s - restoring_s - progress.writing_s - progress.saved_s;
    bill_hold(s, slot, now_);
    if constexpr (Recorder::kActive) rec_->preempted(s);
    ledger_.overheads(slot, now_, progress.writing_s, restoring_s, lost_s > 0 ? lost_s : 0.0);
    if (now_ >= m_.warmup_s) ledger_.preemption(slot.pool);
    const double left_s = slot.work_s - progress.saved_s * slot.speed;
    // The checkpoint now lives where this run wrote one (if it saved anything).
    const uint32_t checkpoint_pool = progress.saved_s > 0 ? slot.pool : slot.checkpoint_pool;
    const QueuedJob job{slot.arrival_s,       left_s > 0 ? left_s : 0.0, slot.job_class, slot.gpus,
                        slot.preemptions + 1, job_flags(s, flags),       checkpoint_pool};
    release(s);
    submit(job, slot.arrival_s >= m_.warmup_s);
  }

  /// The job's GPUs go back to its pool and its slot is free. Precondition: the slot has no
  /// event left in the calendar.
  GPUCAP_HD GPUCAP_FORCEINLINE void release(uint32_t s) {
    if (F::kDeployments && m_.has_deployments && m_.classes[slots_[s].job_class].deployment)
      ledger_.deployments().holding(-1);
    capacity_.give_back(slots_[s].pool, slots_[s].gpus);
    slots_.release(s);
  }

  /// Bills the hold of slot s up to `end_s`; a recorder learns what it cost: the change in the
  /// pool's row (compute at the pool's price, not for committed pools, plus egress).
  GPUCAP_HD void bill_hold(uint32_t s, const JobSlot& slot, double end_s) {
    if constexpr (Recorder::kActive) {
      const CompiledPool& pool = m_.pools[slot.pool];
      const double billed0 = ledger_.pool_value(slot.pool, kPoolGpuHoursBilled);
      const double cost0 = ledger_.pool_value(slot.pool, kPoolCostUsd);
      const double egress0 = ledger_.pool_value(slot.pool, kPoolEgressUsd);
      ledger_.template bill_hold<F>(s, slot, end_s);
      double usd = ledger_.pool_value(slot.pool, kPoolEgressUsd) - egress0;
      if (PriceProcess::moves(pool))
        usd += ledger_.pool_value(slot.pool, kPoolCostUsd) - cost0;
      else if (!pool.committed())  // billed GPU-s (hours only after finish) at the price
        usd += (ledger_.pool_value(slot.pool, kPoolGpuHoursBilled) - billed0) *
               pool.price_usd_per_gpu_s;
      rec_->billed(s, usd);
    } else {
      ledger_.template bill_hold<F>(s, slot, end_s);
    }
  }
  /// With a recorder, a queued job's JobFlags carry its id from this bit up (a slot's do not:
  /// the recorder keeps the id of each slot's job). Without one, the flags are JobFlags alone.
  static constexpr uint32_t kJobIdShift = 4;
  static_assert((kLaunchedBefore | kReturnsToPreemptible | kServedBefore | kRunningAtStart) <
                    (1u << kJobIdShift),
                "JobFlags stay below the job id");
  static constexpr uint32_t kJobFlagBits = (1u << kJobIdShift) - 1;
  /// The queued flags of slot s's job: its slot flags, and with a recorder its id.
  GPUCAP_HD GPUCAP_FORCEINLINE uint32_t job_flags(uint32_t s, uint32_t slot_flags) const {
    if constexpr (Recorder::kActive) return slot_flags | (rec_->job_of(s) << kJobIdShift);
    (void)s;
    return slot_flags;
  }

  // ---- deployment instances -----------------------------------------------------------------
  // A deployment's queued job: arrival_s is when it last stopped serving, work_s the end of its
  // lifetime (absolute, s). Its slot keeps both; restart_s is the run's startup (serving from
  // start_s + restart_s).

  /// An instance arrives now and lives until end_s (+infinity: past the horizon); trace_index:
  /// its trace row, for a recorder.
  GPUCAP_HD void arrive_instance(uint32_t c, uint32_t gpus, double end_s, uint32_t trace_index) {
    ledger_.deployments().demand(now_, end_s);
    uint32_t flags = 0;
    if constexpr (Recorder::kActive) flags = rec_->arrival(c, now_, trace_index) << kJobIdShift;
    submit(QueuedJob{now_, end_s, c, gpus, 0, flags, kNoCheckpoint}, now_ >= m_.warmup_s);
  }

  /// The state at t = 0 (CompiledModel::initial), placed in order before any arrival: in its
  /// pool, or the first of its placement that fits, it runs at once (an instance serves at
  /// once); where it does not fit it waits as an arrival at t = 0 does.
  GPUCAP_HD void place_initial_state() {
    RandomStream residuals =
        RandomStream::make(seed_, replication_, stream_id(StreamKind::initial_state, 0));
    for (uint32_t i = 0; i < m_.initial_count; ++i) {
      const InitialInstance& x = m_.initial[i];
      const CompiledJobClass& cls = m_.classes[x.job_class];
      double end_s = x.end_s;
      if (x.residual) {
        Distribution life = cls.work_s;
        life.table_offset = x.sorted_offset;
        // This replication's lifetime (work) is the class's scaled by f: its rest given the age
        // is f times the rest of the class's given age / f. A bounded distribution scaled down
        // may end before the age (the loader checked only f = 1): the rest is then the
        // unscaled one's.
        const double f = F::kParameterDraws ? class_state_[x.job_class].scale_factor : 1.0;
        end_s = f == 1.0 || !reaches_age(life, x.age_s / f, m_.table)
                    ? sample_residual(life, x.age_s, residuals, m_.table)
                    : f * sample_residual(life, x.age_s / f, residuals, m_.table);
      }
      if (cls.deployment)
        ledger_.deployments().demand(0.0, end_s);
      else if (m_.warmup_s <= 0)
        ++ledger_.jobs().arrived;
      uint32_t id = 0;
      if constexpr (Recorder::kActive) id = rec_->initial(x.job_class, i) << kJobIdShift;
      QueuedJob job{0.0, end_s, x.job_class, x.gpus, 0, id | kRunningAtStart, kNoCheckpoint};
      uint32_t pool = kNoPool;
      if (x.pool == InitialInstance::kAnyPool) {
        pool = find_pool(job);
      } else if (capacity_.fits(x.pool, x.gpus)) {
        pool = x.pool;  // already there: no launch checks, but it takes its place in the counts
        if (F::kLaunchChecks && cls.limit_share > 0) ++class_state_[x.job_class].holding_jobs;
        if (F::kLaunchChecks && pool == cls.limit_pool)
          class_state_[x.job_class].limited_jobs += limit_units(cls, x.gpus);
      }
      if (pool != kNoPool) {
        start_job(job, pool);
        continue;
      }
      job.flags = id;
      submit(job, m_.warmup_s <= 0);
    }
  }

  GPUCAP_HD bool lifetime_over(const QueuedJob& job) const {
    return m_.classes[job.job_class].deployment && job.work_s <= now_;
  }

  /// A queued instance leaves for good (its lifetime is over, or it found no room to wait):
  /// if it never launched, all its time so far waited for capacity.
  GPUCAP_HD void retire_queued_instance(const QueuedJob& job) {
    if (!(job.flags & kLaunchedBefore)) ledger_.deployments().waited(job.arrival_s, job.work_s);
  }

  /// An instance's run begins: its startup (none for an instance running at t = 0), then it
  /// serves until its lifetime ends or the pool reclaims it. A run that will serve ends the
  /// restore that its instance's last reclaim began.
  GPUCAP_HD void begin_instance_run(uint32_t s, bool at_start) {
    JobSlot& slot = slots_[s];
    slot.state = kSlotRunning;
    slot.start_s = now_;
    if constexpr (Recorder::kActive) rec_->run_begins(s);
    if constexpr (F::kMovingPrices) ledger_.run_begins(s, slot.pool, now_);
    const CompiledPool& pool = m_.pools[slot.pool];
    if (!at_start) ledger_.instance_start(slot.pool, now_);
    slot.restart_s = at_start ? 0.0 : m_.classes[slot.job_class].startup_s;
    slot.speed = pool.speed;
    const double left_s = slot.work_s > now_ ? slot.work_s - now_ : 0.0;
    double run_s = left_s;  // until the lifetime ends, or the reclaim when it comes first
    EventKind ends_by = EventKind::completion;
    if (F::kReclaims && pool.preemptible) {
      const double reclaim_s =
          time_to_reclaim(pool, pool_stream(kPreemptionStream, slot.pool), m_.table);
      if (reclaim_s < left_s) {  // equal: the lifetime ends first (the tie rule)
        run_s = reclaim_s;
        ends_by = EventKind::preemption;
      }
    }
    const double serves_from_s = now_ + slot.restart_s;
    if ((slot.flags & kServedBefore) && run_s > slot.restart_s && serves_from_s <= m_.horizon_s)
      ledger_.deployments().restored(slot.arrival_s, serves_from_s);
    push(now_ + run_s, ends_by, s);
  }

  /// The part of slot s's run that served, up to end_s, to the ledger.
  GPUCAP_HD void serve_until(const JobSlot& slot, double end_s) {
    const double from_s = slot.start_s + slot.restart_s;
    if (from_s < end_s) ledger_.instance_served(slot.pool, from_s, end_s);
  }

  /// An instance's lifetime ends while it runs.
  GPUCAP_HD void end_instance(uint32_t s) {
    JobSlot& slot = slots_[s];
    bill_hold(s, slot, now_);
    serve_until(slot, now_);
    if constexpr (Recorder::kActive) rec_->completed(s, now_);
    release_placement_limit(slot, m_.classes[slot.job_class]);
    release(s);
    dispatch();
  }

  /// A running instance is reclaimed: it is down from now (if it served in this run; else
  /// since it last stopped serving) until a later run serves, and queues again with its
  /// lifetime's end unchanged. The caller dispatches afterwards.
  GPUCAP_HD void interrupt_instance(uint32_t s, uint32_t flags) {
    JobSlot& slot = slots_[s];
    bill_hold(s, slot, now_);
    serve_until(slot, now_);
    const bool served = now_ > slot.start_s + slot.restart_s;
    if constexpr (Recorder::kActive) rec_->preempted(s);
    if (now_ >= m_.warmup_s) ledger_.preemption(slot.pool);
    ledger_.deployments().interrupted(now_);
    const uint32_t next_flags = served ? flags | kServedBefore : flags;
    const QueuedJob job{served ? now_ : slot.arrival_s,
                        slot.work_s,
                        slot.job_class,
                        slot.gpus,
                        slot.preemptions + 1,
                        job_flags(s, next_flags),
                        kNoCheckpoint};
    release(s);
    submit(job, true);
  }

  // ---- capacity changes ---------------------------------------------------------------------

  GPUCAP_HD void schedule_zone_event(uint32_t p) {
    const double gap_s =
        sample(m_.pools[p].zone_event_gap_s, pool_stream(kZoneEventStream, p), m_.table);
    if (now_ + gap_s <= m_.horizon_s) push(now_ + gap_s, EventKind::zone_event, p);
  }

  /// Every job of the pool (running or provisioning) is reclaimed at once. While they are, the
  /// pool's free GPUs are pushed far below zero so that none of them relaunches in it during the
  /// event; they may relaunch there right after, when waiting jobs are dispatched.
  GPUCAP_HD void on_zone_event(uint32_t p) {
    constexpr uint32_t kBlocked = 0x40000000;
    capacity_.take(p, kBlocked);
    for (uint32_t s = 0; s < slots_.capacity(); ++s) {
      const JobSlot& slot = slots_[s];
      if (slot.holds_gpus() && slot.pool == p) reclaim(s, false);
    }
    capacity_.give_back(p, kBlocked);
    schedule_zone_event(p);
    dispatch();
  }

  /// The trace changes: capacity rises (waiting jobs may start) or falls (the most recently
  /// launched jobs are reclaimed until the GPUs held fit).
  GPUCAP_HD void on_availability_change(uint32_t p) {
    const double next = capacity_.change(p, now_);
    while (capacity_.over(p)) {
      const uint32_t newest = slots_.newest_in_pool(p);
      if (newest == JobSlots::kNoSlot) break;
      reclaim(newest, false);
    }
    if (next != kNever) push(next, EventKind::availability, p);
    dispatch();
  }

  // ---- end of run ---------------------------------------------------------------------------

  GPUCAP_HD void finish(uint64_t events) {
    if (F::kServices && m_.service_count > 0) fleet_.finish();
    // GPUs still held at the horizon: used and billed up to the horizon.
    for (uint32_t s = 0; s < slots_.capacity(); ++s) {
      const JobSlot& slot = slots_[s];
      if (slot.state != kSlotRunning) continue;
      bill_hold(s, slot, m_.horizon_s);
      if (F::kDeployments && m_.has_deployments && m_.classes[slot.job_class].deployment) {
        serve_until(slot, m_.horizon_s);
        continue;
      }
      // Overheads of the unfinished run so far (nothing is lost: it is merely cut off).
      const double elapsed_s = m_.horizon_s - slot.start_s;
      ledger_.overheads(slot, now_, run_.progress_at(slot, elapsed_s).writing_s,
                        elapsed_s < slot.restart_s ? elapsed_s : slot.restart_s, 0.0);
    }
    if (F::kDeployments && m_.has_deployments)
      for (uint32_t i = 0; i < queue_.size(); ++i)
        if (m_.classes[queue_.at(i).job_class].deployment) retire_queued_instance(queue_.at(i));
    ledger_.finish(out_);
    fleet_.write_metrics(out_, m_.horizon_s - m_.warmup_s);
    out_[kEvents] = static_cast<double>(events);
  }

  const CompiledModel& m_;
  uint64_t seed_, replication_;
  double* out_;
  EventCalendar calendar_;
  JobSlots slots_;
  JobQueue queue_;
  PoolCapacity capacity_;
  RunArithmetic run_;
  Ledger ledger_;
  ServiceFleet fleet_;
  ArenaPtr<RandomStream> streams_;
  ArenaPtr<ClassState> class_state_;
  ArenaPtr<TraceLayer>
      trace_layers_;  ///< CompiledModel::trace_layer_count, by class (layer_offset)
  Recorder* rec_;     ///< null for NoRecorder
  double now_ = 0;
  bool retry_pending_ = false;
};

/// The engine of every run.
using ReplicationEngine = BasicReplicationEngine<NoRecorder>;

GPUCAP_ARENA_NAMESPACE_END
}  // namespace gpucap::engine
