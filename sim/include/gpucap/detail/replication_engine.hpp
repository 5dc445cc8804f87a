// gpucap internals: the discrete-event engine behind run_replication().
//
// State of one replication, all inside one arena:
//   calendar   pending events: at most one per job class (arrivals; up to 16 classes keep theirs
//              in slots beside the heap), one per job holding GPUs, one availability change and
//              one zone event per pool, one stockout retry,
//   slots      jobs holding GPUs (provisioning or running), at most total_quota_gpus of them,
//   queue      jobs waiting, sorted by the discipline's key, stable (FIFO among equal keys),
//   streams    Philox streams: two per job class (arrivals, sizes), several per pool,
//   pools      availability capacity and price-process state,
//   histograms of wait and completion time,
//   services   inference replicas, their waiting rooms and the latency histogram (ServiceFleet,
//              detail/service_fleet.hpp; it adds one start or idle check per replica and one
//              completion per request in service to the calendar).
// Invariants: free_gpus[p] + GPUs held in pool p == capacity of p (its quota, or what its
// availability trace allows; free_gpus < 0 only while a capacity drop is being handled); every
// slot in use has exactly one pending event in the calendar; the queue is sorted by key and then
// arrival order. A run's wall-clock time is: data transfer, restore, then cycles of computing and
// checkpoint writing.
#pragma once
#include <cstddef>
#include <cstdint>

#include "gpucap/billing.hpp"
#include "gpucap/compiled_model.hpp"
#include "gpucap/detail/service_fleet.hpp"
#include "gpucap/detail/usage_series.hpp"
#include "gpucap/distribution.hpp"
#include "gpucap/event_calendar.hpp"
#include "gpucap/histogram.hpp"
#include "gpucap/metrics.hpp"
#include "gpucap/philox.hpp"

namespace gpucap::detail {

enum EventType : uint32_t {
  kArrival = 0,       ///< payload: job class
  kRunStart = 1,      ///< payload: job slot
  kCompletion = 2,    ///< payload: job slot
  kPreemption = 3,    ///< payload: job slot
  kAvailability = 4,  ///< payload: pool; its availability trace changes value
  kRetry = 5,         ///< waiting jobs try to launch again after a stockout (payload unused)
  kZoneEvent = 6,     ///< payload: pool; a zone-wide event reclaims all its jobs
  kServiceEvent = ServiceFleet::kServiceEventType,  ///< payload: see ServiceEventKind
};

enum SlotState : uint32_t { kSlotFree = 0, kSlotProvisioning = 1, kSlotRunning = 2 };

/// Event types that belong to a job slot (bit t for type t).
constexpr uint32_t kSlotEventTypes = (1u << kRunStart) | (1u << kCompletion) | (1u << kPreemption);

/// Per pool: the availability trace's capacity now (GPUs), the trace position of t = 0 and the
/// step index of the next change; and the price process's state.
struct PoolState {
  int32_t capacity_gpus;
  uint32_t unused_;
  double trace_origin_s;
  uint64_t next_change_step;
  // Price process: the price now (USD per GPU-second), its integral up to price_time_s, the next
  // step boundary, the step index and the mean-reverting log-price.
  double price_per_gpu_s;
  double price_integral;
  double price_time_s;
  double price_next_step_s;
  uint64_t price_step;
  double log_price;
};

/// A job holding GPUs.
struct JobSlot {  // 64 bytes: one cache line
  double arrival_s;
  double start_s;    ///< launch time while provisioning, then the time it began running
  double work_s;     ///< reference-GPU seconds still to do when this run began
  double restart_s;  ///< restoring time at the start of this run (0 on a first run)
  double speed;      ///< throughput of this run (the pool's speed over a slowdown draw)
  uint32_t pool;
  uint32_t gpus;
  uint32_t job_class;
  uint16_t state;            ///< SlotState
  uint16_t flags;            ///< JobFlags
  uint32_t preemptions;      ///< of this job so far
  uint32_t checkpoint_pool;  ///< where its last checkpoint was written; kNoCheckpoint: none
};

/// Per job class: the next unit-exponential gap and the next job's work, drawn one job ahead so
/// that their logarithms are computed off the critical path (the draws, and so the results, are
/// the same as drawing them on demand), and the next row of a trace.
struct ClassState {
  double next_unit_gap;  ///< Exp(1) variate for the next inter-arrival time
  double next_work_s;    ///< reference-GPU seconds of the next job
  Event next_arrival;    ///< pending arrival when arrivals are kept in slots (time +inf: none)
  uint32_t trace_cursor;
  uint32_t unused_;
};

/// Up to this many job classes, pending arrivals live in per-class slots (a linear scan finds
/// the earliest) instead of the heap: half the heap traffic of a typical job. They take their
/// sequence numbers from the calendar, so the order of events, and the results, are the same.
constexpr uint32_t kMaxArrivalSlots = 16;

static_assert(sizeof(JobSlot) == 64, "JobSlot is meant to fill one cache line");

/// A job waiting for GPUs. Sorted by key (discipline) and then arrival order.
struct QueuedJob {
  double arrival_s;
  double work_s;  ///< reference-GPU seconds still to do
  uint32_t job_class;
  uint32_t gpus;
  uint32_t preemptions;      ///< > 0: a job resubmitted after a preemption
  uint32_t flags;            ///< JobFlags
  uint32_t checkpoint_pool;  ///< where its last checkpoint was written; kNoCheckpoint: none
};

constexpr uint32_t kNoCheckpoint = 0xFFFFFFFFu;

enum JobFlags : uint32_t {
  kLaunchedBefore = 1u,  ///< its queue wait was recorded at its first launch
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

/// Byte offsets of each part of a replication's arena; every part 8-byte aligned.
struct ArenaLayout {
  size_t calendar, slots, free_slots, queue, streams, class_state, free_gpus, pool_state,
      price_marks, wait_hist, completion_hist, service_state, replicas, waiting_requests,
      latency_hist, total_bytes;
  uint32_t calendar_capacity, slot_capacity, stream_count;

  GPUCAP_HD static size_t align8(size_t n) { return (n + 7) & ~static_cast<size_t>(7); }

  GPUCAP_HD static ArenaLayout of(const CompiledModel& m) {
    ArenaLayout a{};
    a.slot_capacity = m.total_quota_gpus;
    // One pending arrival per class, one event per slot, one availability change and one zone
    // event per pool, one stockout retry; per inference replica one start or idle check, and
    // one completion per request in service.
    a.calendar_capacity = m.class_count + m.total_quota_gpus + 2 * m.pool_count + 2 +
                          m.replica_count + m.request_capacity;
    a.stream_count = 2 * m.class_count + kPoolStreamCount * m.pool_count;
    size_t at = 0;
    a.calendar = at;
    at += align8(sizeof(Event) * a.calendar_capacity);
    a.slots = at;
    at += align8(sizeof(JobSlot) * a.slot_capacity);
    a.free_slots = at;
    at += align8(sizeof(uint32_t) * a.slot_capacity);
    a.queue = at;
    at += align8(sizeof(QueuedJob) * (m.queue_capacity + 1));
    a.streams = at;
    at += align8(sizeof(RandomStream) * a.stream_count);
    a.class_state = at;
    at += align8(sizeof(ClassState) * m.class_count);
    a.free_gpus = at;
    at += align8(sizeof(int32_t) * m.pool_count);
    a.pool_state = at;
    at += align8(sizeof(PoolState) * m.pool_count);
    a.price_marks = at;
    at += align8(sizeof(double) * m.total_quota_gpus);
    a.wait_hist = at;
    at += align8(sizeof(LogHistogram));
    a.completion_hist = at;
    at += align8(sizeof(LogHistogram));
    a.service_state = at;
    at += align8(sizeof(ServiceState) * m.service_count);
    a.replicas = at;
    at += align8(sizeof(ReplicaSlot) * m.replica_count);
    a.waiting_requests = at;
    at += align8(sizeof(WaitingRequest) * m.request_queue_capacity);
    a.latency_hist = at;
    if (m.service_count > 0) at += align8(sizeof(LogHistogram));
    a.total_bytes = at;
    return a;
  }
};

class ReplicationEngine {
 public:
  GPUCAP_HD ReplicationEngine(const CompiledModel& model, uint64_t seed, uint64_t replication,
                              void* arena, double* scalars, double* pool_values, double* timeseries)
      : m_(model), seed_(seed), replication_(replication), out_(scalars), pool_out_(pool_values) {
    usage_.values = model.timeseries_bins > 0 ? timeseries : nullptr;
    usage_.step_s = model.timeseries_step_s;
    usage_.bins = model.timeseries_bins;
    usage_.pool_count = model.pool_count;
    usage_.clear();
    const ArenaLayout a = ArenaLayout::of(model);
    char* base = static_cast<char*>(arena);
    calendar_.reset(reinterpret_cast<Event*>(base + a.calendar), a.calendar_capacity);
    slots_ = reinterpret_cast<JobSlot*>(base + a.slots);
    free_slots_ = reinterpret_cast<uint32_t*>(base + a.free_slots);
    queue_ = reinterpret_cast<QueuedJob*>(base + a.queue);
    streams_ = reinterpret_cast<RandomStream*>(base + a.streams);
    class_state_ = reinterpret_cast<ClassState*>(base + a.class_state);
    free_gpus_ = reinterpret_cast<int32_t*>(base + a.free_gpus);
    pool_state_ = reinterpret_cast<PoolState*>(base + a.pool_state);
    price_marks_ = reinterpret_cast<double*>(base + a.price_marks);
    wait_hist_ = reinterpret_cast<LogHistogram*>(base + a.wait_hist);
    completion_hist_ = reinterpret_cast<LogHistogram*>(base + a.completion_hist);

    for (uint32_t s = 0; s < a.slot_capacity; ++s) {
      slots_[s].state = kSlotFree;
      free_slots_[s] = a.slot_capacity - 1 - s;  // pop from the back: slot 0 first
    }
    free_slot_count_ = a.slot_capacity;
    arrival_slots_ = model.class_count <= kMaxArrivalSlots;
    for (uint32_t c = 0; c < m_.class_count; ++c) {
      streams_[2 * c] = RandomStream::make(seed, replication, stream_id(StreamKind::arrivals, c));
      streams_[2 * c + 1] =
          RandomStream::make(seed, replication, stream_id(StreamKind::job_size, c));
      ClassState& cs = class_state_[c];
      cs.next_arrival = Event{kNever, 0};
      cs.trace_cursor = 0;
      cs.unused_ = 0;
      if (m_.classes[c].arrivals.kind != ArrivalKind::trace) {
        cs.next_unit_gap = sample_standard_exponential(streams_[2 * c]);
        cs.next_work_s = sample(m_.classes[c].work_s, streams_[2 * c + 1], m_.table);
      }
    }
    for (uint32_t p = 0; p < m_.pool_count; ++p) {
      for (uint32_t k = 0; k < kPoolStreamCount; ++k)
        pool_stream(k, p) =
            RandomStream::make(seed, replication, stream_id(pool_stream_kind(k), p));
      free_gpus_[p] = static_cast<int32_t>(m_.pools[p].quota_gpus);
      PoolState& ps = pool_state_[p];
      ps.capacity_gpus = static_cast<int32_t>(m_.pools[p].quota_gpus);
      ps.unused_ = 0;
      ps.trace_origin_s = 0;
      ps.next_change_step = 0;
    }
    wait_hist_->clear();
    completion_hist_->clear();
    fleet_.bind(model, reinterpret_cast<ServiceState*>(base + a.service_state),
                reinterpret_cast<ReplicaSlot*>(base + a.replicas),
                reinterpret_cast<WaitingRequest*>(base + a.waiting_requests),
                reinterpret_cast<LogHistogram*>(base + a.latency_hist), &calendar_, &status_,
                free_gpus_, &pool_stream(kProvisioningStream, 0), pool_out_, &usage_, &now_);
    for (uint32_t i = 0; i < kScalarMetricCount; ++i) out_[i] = 0;
    for (uint32_t i = 0; i < m_.pool_count * kPoolMetricCount; ++i) pool_out_[i] = 0;
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

  template <typename Stop>
  GPUCAP_HD int run_loop(const Stop& stop) {
    for (uint32_t p = 0; p < m_.pool_count; ++p) {
      if (m_.pools[p].has_availability) start_availability(p);
      if (m_.pools[p].has_zone_events) schedule_zone_event(p);
      if (m_.pools[p].price_model != CompiledPool::kFixedPrice) start_price(p);
    }
    if (m_.service_count > 0) fleet_.start();
    for (uint32_t c = 0; c < m_.class_count; ++c) schedule_next_arrival(c, 0.0);
    uint64_t events = 0;
    while (status_ == 0) {
      // The next event: the earliest of the heap's top and the earliest arrival slot.
      Event e;
      const bool slot_first =
          earliest_class_ != kNoClass &&
          (calendar_.empty() ||
           event_before(class_state_[earliest_class_].next_arrival, calendar_.top()));
      if (slot_first) {
        e = class_state_[earliest_class_].next_arrival;
        if (e.time_s > m_.horizon_s) break;
        class_state_[earliest_class_].next_arrival.time_s = kNever;  // taken
      } else {
        if (calendar_.empty() || calendar_.top().time_s > m_.horizon_s) break;
        e = calendar_.pop();
      }
      ++events;
      if constexpr (Stop::kActive) {
        const int stopped = stop.status(events);
        if (stopped != 0) {
          status_ = stopped;  // kReplicationEventLimit, kReplicationCancelled
          break;
        }
      }
      advance_clock(e.time_s);
      switch (e.type()) {
        case kArrival:
          on_arrival(e.payload());
          break;
        case kRunStart:
          begin_run(e.payload());
          break;
        case kCompletion:
          on_completion(e.payload());
          break;
        case kPreemption:
          on_preemption(e.payload(), true);
          break;
        case kAvailability:
          on_availability_change(e.payload());
          break;
        case kRetry:
          retry_pending_ = false;
          dispatch();
          break;
        case kZoneEvent:
          on_zone_event(e.payload());
          break;
        case kServiceEvent:
          fleet_.on_event(e.payload());
          break;
        default:
          break;
      }
    }
    advance_clock(m_.horizon_s);
    finish(events);
    return status_;
  }

  GPUCAP_HD RandomStream& pool_stream(uint32_t which, uint32_t p) {
    return streams_[2 * m_.class_count + which * m_.pool_count + p];
  }

  // ---- time ---------------------------------------------------------------------------------

  GPUCAP_HD void advance_clock(double t) {
    GPUCAP_INVARIANT(t >= now_ && t <= m_.horizon_s,
                     "events leave the calendar in time order, none after the horizon");
    const double dt = m_.in_window(now_, t);
    if (dt > 0) {
      queue_area_ += static_cast<double>(queue_size_) * dt;
      running_area_ += static_cast<double>(jobs_holding_) * dt;
      if (m_.service_count > 0)
        fleet_.totals().replica_area += static_cast<double>(fleet_.replicas_up()) * dt;
    }
    now_ = t;
  }

  // ---- arrivals -----------------------------------------------------------------------------

  /// Time of the class's next arrival after t (kNever, +infinity, when there is none: a finite
  /// sentinel such as horizon + 1 s equals the horizon once it passes 2^53 s).
  GPUCAP_HD double next_arrival_time(uint32_t c, double t) {
    const CompiledArrivals& arr = m_.classes[c].arrivals;
    ClassState& cs = class_state_[c];
    const double never = kNever;
    if (arr.kind == ArrivalKind::trace)
      return cs.trace_cursor < arr.trace_count
                 ? m_.trace_submit_s[arr.trace_offset + cs.trace_cursor]
                 : never;
    const double unit_gap = cs.next_unit_gap;
    cs.next_unit_gap = sample_standard_exponential(streams_[2 * c]);
    switch (arr.kind) {
      case ArrivalKind::poisson:
        return t + unit_gap / arr.rate_per_s;
      case ArrivalKind::profile: {
        // Invert the piecewise-constant cumulative rate: exact, one uniform per arrival.
        double remaining = unit_gap;
        for (;;) {
          if (t > m_.horizon_s) return never;
          const double bin_index = __builtin_floor(t / arr.profile_bin_s);
          const double bin_end = (bin_index + 1.0) * arr.profile_bin_s;
          const uint64_t slot = static_cast<uint64_t>(bin_index) % arr.profile_count;
          const double rate = arr.rate_per_s * m_.table[arr.profile_offset + slot];
          const double mass = rate * (bin_end - t);
          if (rate > 0 && mass >= remaining) return t + remaining / rate;
          remaining -= mass;
          t = bin_end;
        }
      }
      case ArrivalKind::trace:
        break;
    }
    return never;
  }

  GPUCAP_HD GPUCAP_FORCEINLINE void schedule_next_arrival(uint32_t c, double t) {
    const double next = next_arrival_time(c, t);
    if (!arrival_slots_) {
      if (next <= m_.horizon_s) push(next, kArrival, c);
      return;
    }
    Event& slot = class_state_[c].next_arrival;
    slot.time_s = next <= m_.horizon_s ? next : kNever;
    if (next <= m_.horizon_s) slot.key = calendar_.take_key(kArrival, c);
    earliest_class_ = kNoClass;
    for (uint32_t k = 0; k < m_.class_count; ++k) {
      const Event& candidate = class_state_[k].next_arrival;
      if (candidate.time_s == kNever) continue;
      if (earliest_class_ == kNoClass ||
          event_before(candidate, class_state_[earliest_class_].next_arrival))
        earliest_class_ = k;
    }
  }

  /// An arrival of class c: a job, or a request to an inference service. Its work (reference-GPU
  /// seconds; a request's service time) and GPUs come from its trace row, or were drawn one
  /// arrival ahead.
  GPUCAP_HD GPUCAP_FORCEINLINE void on_arrival(uint32_t c) {
    const CompiledJobClass& cls = m_.classes[c];
    uint32_t gpus = cls.gpus;
    double work_s;
    if (cls.arrivals.kind == ArrivalKind::trace) {
      const uint32_t row = cls.arrivals.trace_offset + class_state_[c].trace_cursor++;
      gpus = m_.trace_gpus[row];
      work_s = m_.trace_work_s[row];
    } else {
      work_s = class_state_[c].next_work_s;
      class_state_[c].next_work_s = sample(cls.work_s, streams_[2 * c + 1], m_.table);
    }
    schedule_next_arrival(c, now_);

    const bool counted = now_ >= m_.warmup_s;
    if (cls.service != CompiledJobClass::kNotAService) {
      fleet_.on_request(cls.service, work_s, counted);
      return;
    }
    if (counted) ++arrived_;
    submit(QueuedJob{now_, work_s, c, gpus, 0, 0, kNoCheckpoint}, counted);
  }

  /// A job asks for GPUs: it starts at once when it fits and nothing waiting takes precedence
  /// over it, else it waits, else (waiting room full) it is dropped.
  GPUCAP_HD GPUCAP_FORCEINLINE void submit(const QueuedJob& job, bool counted) {
    if (m_.backfill || queue_size_ == 0 ||
        (m_.discipline != QueueDiscipline::fifo && precedes(job, queue_[queue_head_]))) {
      const uint32_t pool = find_pool(job);
      if (pool != kNoPool) {
        start_job(job, pool);
        return;
      }
    }
    if (queue_size_ < m_.queue_capacity) {
      enqueue(job);
    } else if (counted) {
      ++dropped_;
    }
  }

  // ---- queue --------------------------------------------------------------------------------

  /// Discipline key: smaller runs first; equal keys keep arrival order.
  GPUCAP_HD double key_of(const QueuedJob& j) const {
    switch (m_.discipline) {
      case QueueDiscipline::priority:
        return -static_cast<double>(m_.classes[j.job_class].priority);
      case QueueDiscipline::shortest_job_first:
        return j.work_s;
      case QueueDiscipline::fifo:
      default:
        return 0.0;
    }
  }

  /// True when `job` (a newcomer) would go before `other` in the queue.
  GPUCAP_HD bool precedes(const QueuedJob& job, const QueuedJob& other) const {
    return key_of(job) < key_of(other);
  }

  GPUCAP_HD void enqueue(const QueuedJob& job) {
    // Storage is queue_[queue_head_ .. queue_head_ + queue_size_). Compact when the end is hit,
    // or when the head has moved further than the queue is long (amortized O(1) per job, and the
    // live entries stay in the same few cache lines instead of sweeping the whole array).
    if (queue_head_ + queue_size_ >= m_.queue_capacity + 1 ||
        (queue_head_ >= 64 && queue_head_ >= queue_size_)) {
      for (uint32_t i = 0; i < queue_size_; ++i) queue_[i] = queue_[queue_head_ + i];
      queue_head_ = 0;
    }
    uint32_t pos = queue_head_ + queue_size_;
    if (m_.discipline != QueueDiscipline::fifo) {  // FIFO: always at the back
      const double key = key_of(job);
      while (pos > queue_head_ && key < key_of(queue_[pos - 1])) {
        queue_[pos] = queue_[pos - 1];
        --pos;
      }
    }
    queue_[pos] = job;
    ++queue_size_;
  }

  GPUCAP_HD void remove_queued(uint32_t index) {  // index relative to the head
    if (index == 0) {
      ++queue_head_;
    } else {
      for (uint32_t i = queue_head_ + index; i + 1 < queue_head_ + queue_size_; ++i)
        queue_[i] = queue_[i + 1];
    }
    --queue_size_;
    if (queue_size_ == 0) queue_head_ = 0;
  }

  /// Starts waiting jobs after GPUs were freed, in queue order; with backfill, any job that fits.
  GPUCAP_HD GPUCAP_FORCEINLINE void dispatch() {
    uint32_t i = 0;
    while (i < queue_size_) {
      const uint32_t pool = find_pool(queue_[queue_head_ + i]);
      if (pool == kNoPool) {
        if (!m_.backfill) return;
        ++i;
        continue;
      }
      const QueuedJob job = queue_[queue_head_ + i];  // a copy: removal moves the entries
      remove_queued(i);
      start_job(job, pool);
    }
  }

  // ---- placement and service ----------------------------------------------------------------

  static constexpr uint32_t kNoPool = 0xFFFFFFFFu;
  static constexpr uint32_t kNoSlot = 0xFFFFFFFFu;

  /// First pool in the class's preference list with enough free GPUs for the whole gang and
  /// whose launch succeeds (a stockout makes it fail and the job tries the next pool).
  /// Preemptible pools are skipped for a job that has been preempted often enough, or whose
  /// slack before its deadline has fallen below the class's threshold (fallback policy).
  GPUCAP_HD GPUCAP_FORCEINLINE uint32_t find_pool(const QueuedJob& job) {
    const CompiledJobClass& cls = m_.classes[job.job_class];
    for (uint32_t k = 0; k < cls.placement_count; ++k) {
      const uint32_t p = m_.placement[cls.placement_offset + k];
      if (free_gpus_[p] < static_cast<int32_t>(job.gpus)) continue;
      const CompiledPool& pool = m_.pools[p];
      if (pool.launch_checks) {  // rare: only preemptible pools and pools with stockouts
        if (pool.preemptible && avoids_preemptible(job, cls)) continue;
        if (pool.stockout_probability > 0 && launch_fails(p)) continue;
      }
      return p;
    }
    return kNoPool;
  }

  /// The fallback policy: true once the job was preempted often enough, or its slack before
  /// the deadline (minus the reference work left) fell below the class's threshold.
  GPUCAP_HD bool avoids_preemptible(const QueuedJob& job, const CompiledJobClass& cls) const {
    return job.preemptions >= cls.fallback_after_preemptions ||
           (cls.fallback_slack_s >= 0 &&
            job.arrival_s + cls.deadline_s - now_ - job.work_s < cls.fallback_slack_s);
  }

  /// Launches `job` in `pool`: its GPUs leave the quota now; it runs after provisioning.
  /// Draws whether a launch in pool p fails for a stockout; a failure schedules a retry.
  GPUCAP_HD bool launch_fails(uint32_t p) {
    const CompiledPool& pool = m_.pools[p];
    RandomStream& rng = pool_stream(kStockoutStream, p);
    if (!(rng.next_uniform() < pool.stockout_probability)) return false;
    if (now_ >= m_.warmup_s) {
      ++launch_failures_;
      pool_out_[p * kPoolMetricCount + kPoolLaunchFailures] += 1;
    }
    if (!retry_pending_) {
      retry_pending_ = true;
      push(now_ + pool.stockout_retry_s, kRetry, 0);
    }
    return true;
  }

  GPUCAP_HD GPUCAP_FORCEINLINE void start_job(const QueuedJob& job, uint32_t pool) {
    if (!(job.flags & kLaunchedBefore) && job.arrival_s >= m_.warmup_s) {  // first launch
      const double wait = now_ - job.arrival_s;
      ++launched_;
      wait_sum_ += wait;
      if (wait > 0) ++waited_;
      wait_hist_->add(wait);
    }
    free_gpus_[pool] -= static_cast<int32_t>(job.gpus);
    const uint32_t s = free_slots_[--free_slot_count_];
    JobSlot& slot = slots_[s];
    slot.arrival_s = job.arrival_s;
    slot.start_s = now_;
    slot.work_s = job.work_s;
    slot.pool = pool;
    slot.gpus = job.gpus;
    slot.job_class = job.job_class;
    slot.preemptions = job.preemptions;
    slot.flags = static_cast<uint16_t>(job.flags | kLaunchedBefore);
    slot.checkpoint_pool = job.checkpoint_pool;
    ++jobs_holding_;
    const CompiledPool& p = m_.pools[pool];
    if (p.has_provisioning_delay) {
      slot.state = kSlotProvisioning;
      const double delay =
          sample(p.provisioning_delay_s, pool_stream(kProvisioningStream, pool), m_.table);
      push(now_ + delay, kRunStart, s);
    } else {
      begin_run(s);
    }
  }

  /// The job starts running: restore (after a preemption), then compute with periodic
  /// checkpoints. The run ends by completion, or earlier by the instance being reclaimed.
  GPUCAP_HD GPUCAP_FORCEINLINE void begin_run(uint32_t s) {
    JobSlot& slot = slots_[s];
    if (slot.preemptions == 0 && slot.arrival_s >= m_.warmup_s) {
      ++started_;
      pool_out_[slot.pool * kPoolMetricCount + kPoolJobsStarted] += 1;
      provisioning_sum_ += now_ - slot.start_s;  // start_s still holds the launch time
    }
    slot.state = kSlotRunning;
    slot.start_s = now_;
    const CompiledJobClass& cls = m_.classes[slot.job_class];
    const CompiledPool& pool = m_.pools[slot.pool];
    if (pool.price_model != CompiledPool::kFixedPrice)
      price_marks_[s] = price_integral_at(slot.pool, now_);
    // A run first fetches its data (from another region), then restores, then computes; the
    // whole prefix is restart_s for the progress arithmetic; transfer_s() is the fetching part.
    slot.restart_s = transfer_s(slot) + (slot.preemptions > 0 ? cls.restart_s : 0.0);
    const double speed =
        m_.has_run_speeds ? m_.run_speed[slot.job_class * m_.pool_count + slot.pool] : pool.speed;
    slot.speed =
        pool.has_slowdown
            ? speed / sample(pool.slowdown, pool_stream(kSlowdownStream, slot.pool), m_.table)
            : speed;
    double duration_s = slot.restart_s + compute_s(slot);
    if (cls.checkpoint_interval_s > 0)
      duration_s += checkpoints_needed(slot) * cls.checkpoint_write_s;
    if (pool.preemptible) {
      double reclaim_s = kNever;
      if (pool.has_time_to_preemption)
        reclaim_s =
            sample(pool.time_to_preemption_s, pool_stream(kPreemptionStream, slot.pool), m_.table);
      if (pool.max_runtime_s > 0 && pool.max_runtime_s < reclaim_s) reclaim_s = pool.max_runtime_s;
      if (reclaim_s < duration_s) {
        push(now_ + reclaim_s, kPreemption, s);
        return;
      }
    }
    push(now_ + duration_s, kCompletion, s);
  }

  // ---- price processes ------------------------------------------------------------------------

  GPUCAP_HD void start_price(uint32_t p) {
    const CompiledPool& pool = m_.pools[p];
    PoolState& ps = pool_state_[p];
    RandomStream& rng = pool_stream(kPriceStream, p);
    double origin_s = 0;
    if (pool.price_model == CompiledPool::kTracePrice) {
      origin_s = pool.price_random_start ? rng.next_uniform() * pool.price_step_s * pool.price_count
                                         : pool.price_start_s;
      ps.price_step = static_cast<uint64_t>(origin_s / pool.price_step_s);
      ps.price_per_gpu_s = m_.table[pool.price_offset + ps.price_step % pool.price_count];
    } else {
      ps.price_step = 0;
      ps.log_price = pool.price_stationary_sd * sample_standard_normal(rng);
      ps.price_per_gpu_s = pool.price_level_usd_per_gpu_s * pmath::exp(ps.log_price);
    }
    ps.price_integral = 0;
    ps.price_time_s = 0;
    ps.price_next_step_s = static_cast<double>(ps.price_step + 1) * pool.price_step_s - origin_s;
  }

  /// The integral of pool p's price (USD per GPU) from 0 to t; t never decreases between calls.
  GPUCAP_HD double price_integral_at(uint32_t p, double t) {
    const CompiledPool& pool = m_.pools[p];
    PoolState& ps = pool_state_[p];
    GPUCAP_INVARIANT(pool.price_step_s > 0 && t <= m_.horizon_s,
                     "price steps are positive and asked for within the horizon");
    while (t >= ps.price_next_step_s) {
      GPUCAP_INVARIANT(ps.price_next_step_s + pool.price_step_s > ps.price_next_step_s,
                       "a price step moves its clock (the event budget keeps steps >> 1 ulp)");
      ps.price_integral += ps.price_per_gpu_s * (ps.price_next_step_s - ps.price_time_s);
      ps.price_time_s = ps.price_next_step_s;
      ps.price_next_step_s += pool.price_step_s;
      ++ps.price_step;
      if (pool.price_model == CompiledPool::kTracePrice) {
        ps.price_per_gpu_s = m_.table[pool.price_offset + ps.price_step % pool.price_count];
      } else {
        ps.log_price = ps.log_price * pool.price_decay +
                       pool.price_noise * sample_standard_normal(pool_stream(kPriceStream, p));
        ps.price_per_gpu_s = pool.price_level_usd_per_gpu_s * pmath::exp(ps.log_price);
      }
    }
    ps.price_integral += ps.price_per_gpu_s * (t - ps.price_time_s);
    ps.price_time_s = t;
    return ps.price_integral;
  }

  // ---- checkpointed runs (wall-clock seconds on the instance) -------------------------------
  // A run is: restart_s restoring, then cycles of checkpoint_interval_s computing followed by a
  // checkpoint_write_s write, with no write after the last piece of work.

  /// Seconds a run of this slot's job in its pool spends fetching data from another region.
  GPUCAP_HD double transfer_s(const JobSlot& slot) const {
    double seconds =
        m_.has_transfers ? m_.transfer_s[slot.job_class * m_.pool_count + slot.pool] : 0.0;
    if (moves_checkpoint(slot)) {
      const uint32_t link = slot.checkpoint_pool * m_.pool_count + slot.pool;
      seconds += m_.pool_link_latency_s[link] +
                 m_.classes[slot.job_class].checkpoint_size_gb * m_.pool_link_s_per_gb[link];
    }
    return seconds;
  }

  /// True when this run resumes from a checkpoint written in another region, which it must
  /// first copy over (time and egress).
  GPUCAP_HD bool moves_checkpoint(const JobSlot& slot) const {
    return m_.has_checkpoint_moves && slot.preemptions > 0 &&
           slot.checkpoint_pool != kNoCheckpoint &&
           m_.classes[slot.job_class].checkpoint_size_gb > 0 &&
           m_.pool_link_s_per_gb[slot.checkpoint_pool * m_.pool_count + slot.pool] > 0;
  }

  /// Wall-clock seconds of computing the run needs.
  GPUCAP_HD double compute_s(const JobSlot& slot) const { return slot.work_s / slot.speed; }

  /// Periodic checkpoints a complete run writes.
  GPUCAP_HD double checkpoints_needed(const JobSlot& slot) const {
    const double interval = m_.classes[slot.job_class].checkpoint_interval_s;
    if (interval <= 0) return 0.0;
    const double n = __builtin_ceil(compute_s(slot) / interval) - 1.0;
    return n > 0 ? n : 0.0;
  }

  /// Where a run stands `elapsed_s` into it (wall-clock seconds): computing done, the part of it
  /// that completed checkpoints saved, and time spent writing checkpoints (partial ones too).
  struct RunProgress {
    double done_s, saved_s, writing_s;
  };

  GPUCAP_HD RunProgress progress_at(const JobSlot& slot, double elapsed_s) const {
    const CompiledJobClass& cls = m_.classes[slot.job_class];
    const double total = compute_s(slot);
    const double t = elapsed_s - slot.restart_s;
    RunProgress p{0.0, 0.0, 0.0};
    if (t <= 0) return p;
    if (cls.checkpoint_interval_s <= 0) {
      p.done_s = t < total ? t : total;
      return p;
    }
    const double cycle = cls.checkpoint_interval_s + cls.checkpoint_write_s;
    const double cycles = __builtin_floor(t / cycle);
    const double in_cycle = t - cycles * cycle;
    const double computing =
        in_cycle < cls.checkpoint_interval_s ? in_cycle : cls.checkpoint_interval_s;
    p.done_s = cycles * cls.checkpoint_interval_s + computing;
    p.saved_s = cycles * cls.checkpoint_interval_s;
    p.writing_s = cycles * cls.checkpoint_write_s + (in_cycle - computing);
    if (p.done_s > total) p.done_s = total;
    if (p.saved_s > total) p.saved_s = total;
    return p;
  }

  GPUCAP_HD GPUCAP_FORCEINLINE void on_completion(uint32_t s) {
    JobSlot& slot = slots_[s];
    const CompiledJobClass& cls = m_.classes[slot.job_class];
    account_hold(s, now_);
    if (cls.checkpoint_interval_s > 0 || slot.restart_s > 0)
      account_overheads(slot, checkpoints_needed(slot) * cls.checkpoint_write_s, slot.restart_s,
                        0.0);
    if (slot.arrival_s >= m_.warmup_s) {
      const double completion = now_ - slot.arrival_s;
      ++completed_;
      completion_sum_ += completion;
      completion_hist_->add(completion);
      if (cls.deadline_s > 0 && completion > cls.deadline_s) ++late_;
    }
    release(s);
    dispatch();
  }

  /// The instance is reclaimed: the job keeps what its last checkpoint saved (or, when the
  /// notice leaves time to write one, what it had done when the notice came), goes back to the
  /// queue with the rest, and the GPUs return to the pool. The run's time splits exactly into
  /// restoring + checkpoint writing + saved computing + lost (computing not saved, idling).
  /// `own_event`: the slot's scheduled preemption; otherwise an availability drop reclaims it
  /// and its pending event is taken out of the calendar.
  GPUCAP_HD void on_preemption(uint32_t s, bool own_event) {
    JobSlot& slot = slots_[s];
    const CompiledJobClass& cls = m_.classes[slot.job_class];
    const CompiledPool& pool = m_.pools[slot.pool];
    if (!own_event) calendar_.remove(s, kSlotEventTypes);
    if (slot.state == kSlotProvisioning) {  // reclaimed before it ran: nothing done or billed
      const QueuedJob job{slot.arrival_s,   slot.work_s, slot.job_class,      slot.gpus,
                          slot.preemptions, slot.flags,  slot.checkpoint_pool};
      release(s);
      submit(job, slot.arrival_s >= m_.warmup_s);
      return;
    }
    const double elapsed_s = now_ - slot.start_s;
    RunProgress progress = progress_at(slot, elapsed_s);
    const bool can_checkpoint = cls.checkpoint_interval_s > 0 || cls.checkpoint_write_s > 0;
    if (can_checkpoint && pool.notice_s > 0 && pool.notice_s >= cls.checkpoint_write_s) {
      // The job stops at the notice and writes an emergency checkpoint.
      const RunProgress at_notice = progress_at(slot, elapsed_s - pool.notice_s);
      if (at_notice.done_s > progress.saved_s) {
        progress.saved_s = at_notice.done_s;
        progress.writing_s = at_notice.writing_s + cls.checkpoint_write_s;
      }
    }
    const double restoring_s = elapsed_s < slot.restart_s ? elapsed_s : slot.restart_s;
    const double lost_s = elapsed_s - restoring_s - progress.writing_s - progress.saved_s;
    account_hold(s, now_);
    account_overheads(slot, progress.writing_s, restoring_s, lost_s > 0 ? lost_s : 0.0);
    if (now_ >= m_.warmup_s) {
      ++preemptions_;
      pool_out_[slot.pool * kPoolMetricCount + kPoolPreemptions] += 1;
    }
    const double left_s = slot.work_s - progress.saved_s * slot.speed;
    // The checkpoint now lives where this run wrote one (if it saved anything).
    const uint32_t checkpoint_pool = progress.saved_s > 0 ? slot.pool : slot.checkpoint_pool;
    const QueuedJob job{slot.arrival_s, left_s > 0 ? left_s : 0.0, slot.job_class,
                        slot.gpus,      slot.preemptions + 1,      slot.flags,
                        checkpoint_pool};
    release(s);
    submit(job, slot.arrival_s >= m_.warmup_s);
    if (own_event) dispatch();
  }

  // ---- zone-wide events ---------------------------------------------------------------------

  GPUCAP_HD void schedule_zone_event(uint32_t p) {
    const double gap_s =
        sample(m_.pools[p].zone_event_gap_s, pool_stream(kZoneEventStream, p), m_.table);
    if (now_ + gap_s <= m_.horizon_s) push(now_ + gap_s, kZoneEvent, p);
  }

  /// Every job of the pool (running or provisioning) is reclaimed at once. While they are, the
  /// pool's free GPUs are pushed far below zero so that none of them relaunches in it during the
  /// event; they may relaunch there right after, when waiting jobs are dispatched.
  GPUCAP_HD void on_zone_event(uint32_t p) {
    constexpr int32_t kBlocked = 0x40000000;
    free_gpus_[p] -= kBlocked;
    for (uint32_t s = 0; s < m_.total_quota_gpus; ++s) {
      const JobSlot& slot = slots_[s];
      if ((slot.state == kSlotRunning || slot.state == kSlotProvisioning) && slot.pool == p)
        on_preemption(s, false);
    }
    free_gpus_[p] += kBlocked;
    schedule_zone_event(p);
    dispatch();
  }

  // ---- availability traces ------------------------------------------------------------------

  /// Instances the trace of pool p shows at step index `step` (the trace repeats).
  GPUCAP_HD uint32_t capacity_at_step(uint32_t p, uint64_t step) const {
    const CompiledPool& pool = m_.pools[p];
    const double instances = m_.table[pool.availability_offset + step % pool.availability_count];
    const double gpus = instances * pool.gpus_per_instance;
    return gpus < pool.quota_gpus ? static_cast<uint32_t>(gpus) : pool.quota_gpus;
  }

  /// Places t = 0 in the trace (fixed, or uniform per replication), sets the capacity and
  /// schedules the first change.
  GPUCAP_HD void start_availability(uint32_t p) {
    const CompiledPool& pool = m_.pools[p];
    PoolState& ps = pool_state_[p];
    const double period_s = pool.availability_step_s * pool.availability_count;
    RandomStream rng =
        RandomStream::make(seed_, replication_, stream_id(StreamKind::availability, p));
    ps.trace_origin_s =
        pool.availability_random_start ? period_s * rng.next_uniform() : pool.availability_start_s;
    const uint64_t step = static_cast<uint64_t>(ps.trace_origin_s / pool.availability_step_s);
    set_capacity(p, capacity_at_step(p, step));
    schedule_availability_change(p, step);
  }

  /// Free GPUs follow the capacity: they fall below 0 when it drops under the GPUs held.
  GPUCAP_HD void set_capacity(uint32_t p, uint32_t capacity) {
    free_gpus_[p] += static_cast<int32_t>(capacity) - pool_state_[p].capacity_gpus;
    pool_state_[p].capacity_gpus = static_cast<int32_t>(capacity);
  }

  /// Schedules the first step after `step` whose capacity differs (none if the trace is flat).
  GPUCAP_HD void schedule_availability_change(uint32_t p, uint64_t step) {
    const CompiledPool& pool = m_.pools[p];
    PoolState& ps = pool_state_[p];
    GPUCAP_INVARIANT(pool.availability_step_s > 0 && pool.availability_count > 0,
                     "an availability trace has rows and a positive step");
    const uint32_t now_capacity = capacity_at_step(p, step);
    for (uint64_t k = step + 1; k <= step + pool.availability_count; ++k) {
      if (capacity_at_step(p, k) == now_capacity) continue;
      const double t = static_cast<double>(k) * pool.availability_step_s - ps.trace_origin_s;
      if (t > m_.horizon_s) return;
      ps.next_change_step = k;
      push(t > now_ ? t : now_, kAvailability, p);
      return;
    }
  }

  /// The trace changes: capacity rises (waiting jobs may start) or falls (the most recently
  /// launched jobs are reclaimed until the GPUs held fit).
  GPUCAP_HD void on_availability_change(uint32_t p) {
    PoolState& ps = pool_state_[p];
    const uint32_t capacity = capacity_at_step(p, ps.next_change_step);
    set_capacity(p, capacity);
    while (free_gpus_[p] < 0) {
      uint32_t newest = kNoSlot;
      for (uint32_t s = 0; s < m_.total_quota_gpus; ++s) {
        const JobSlot& slot = slots_[s];
        if ((slot.state != kSlotRunning && slot.state != kSlotProvisioning) || slot.pool != p)
          continue;
        if (newest == kNoSlot || slot.start_s >= slots_[newest].start_s) newest = s;
      }
      if (newest == kNoSlot) break;
      on_preemption(newest, false);
    }
    schedule_availability_change(p, ps.next_change_step);
    dispatch();
  }

  /// Checkpoint writing, run prefix (fetching data, then restoring) and lost time (wall-clock
  /// s) of a run that ends now.
  GPUCAP_HD void account_overheads(const JobSlot& slot, double writing_s, double prefix_s,
                                   double lost_s) {
    if (now_ < m_.warmup_s) return;
    const double gpus = slot.gpus;
    const double fetch_s = transfer_s(slot);
    const double transferring_s = prefix_s < fetch_s ? prefix_s : fetch_s;
    checkpointing_gpu_s_ += writing_s * gpus;
    transferring_gpu_s_ += transferring_s * gpus;
    restarting_gpu_s_ += (prefix_s - transferring_s) * gpus;
    lost_gpu_s_ += lost_s * gpus;
  }

  /// The job's GPUs go back to its pool and its slot is free. Precondition: the slot has no
  /// event left in the calendar.
  GPUCAP_HD void release(uint32_t s) {
    JobSlot& slot = slots_[s];
    free_gpus_[slot.pool] += static_cast<int32_t>(slot.gpus);
    slot.state = kSlotFree;
    free_slots_[free_slot_count_++] = s;
    --jobs_holding_;
  }

  /// Bills and records the usage of a running job's GPUs from its start to `end_s`.
  /// Usage is clipped to the window; billing counts holds that end inside the window. During the
  /// run the pool rows hold GPU-seconds; finish() turns them into GPU-hours and USD.
  GPUCAP_HD void account_hold(uint32_t s, double end_s) {
    const JobSlot& slot = slots_[s];
    const CompiledPool& p = m_.pools[slot.pool];
    double* pool_row = pool_out_ + slot.pool * kPoolMetricCount;
    pool_row[kPoolGpuHoursUsed] += m_.in_window(slot.start_s, end_s) * slot.gpus;
    usage_.add(slot.pool, slot.start_s, end_s, slot.gpus);
    // Egress of the data this run fetched: charged, like the billed time, when the run ends.
    if (m_.has_transfers && end_s >= m_.warmup_s)
      pool_row[kPoolEgressUsd] +=
          m_.transfer_egress_usd[slot.job_class * m_.pool_count + slot.pool];
    if (moves_checkpoint(slot) && end_s >= m_.warmup_s)
      pool_row[kPoolEgressUsd] += m_.classes[slot.job_class].checkpoint_size_gb *
                                  m_.pool_egress_usd_per_gb[slot.checkpoint_pool];
    if (end_s < m_.warmup_s || p.committed()) return;  // committed pools: charged in finish()
    const double held_s = end_s - slot.start_s;
    const double billed_s =
        gpucap::billed_seconds(held_s, p.billing_increment_s, p.billing_minimum_s);
    pool_row[kPoolGpuHoursBilled] += billed_s * slot.gpus;
    if (p.price_model != CompiledPool::kFixedPrice) {
      // The price paid over the run, and the end price for billed time beyond it.
      const double run_usd = price_integral_at(slot.pool, end_s) - price_marks_[s];
      pool_row[kPoolCostUsd] +=
          (run_usd + (billed_s - held_s) * pool_state_[slot.pool].price_per_gpu_s) * slot.gpus;
    }
  }

 private:
  // ---- end of run ---------------------------------------------------------------------------

  GPUCAP_HD void finish(uint64_t events) {
    if (m_.service_count > 0) fleet_.finish();
    // GPUs still held at the horizon: used and billed up to the horizon.
    for (uint32_t s = 0; s < m_.total_quota_gpus; ++s) {
      const JobSlot& slot = slots_[s];
      if (slot.state != kSlotRunning) continue;
      account_hold(s, m_.horizon_s);
      // Overheads of the unfinished run so far (nothing is lost: it is merely cut off).
      const double elapsed_s = m_.horizon_s - slot.start_s;
      account_overheads(slot, progress_at(slot, elapsed_s).writing_s,
                        elapsed_s < slot.restart_s ? elapsed_s : slot.restart_s, 0.0);
    }

    const double window_s = m_.horizon_s - m_.warmup_s;
    double total_quota_h = 0;
    for (uint32_t p = 0; p < m_.pool_count; ++p) {
      double* row = pool_out_ + p * kPoolMetricCount;
      const CompiledPool& pool = m_.pools[p];
      // Committed pools bill every GPU of the count for the whole window, used or not.
      const double billed_gpu_s =
          pool.committed() ? pool.quota_gpus * window_s : row[kPoolGpuHoursBilled];
      // Pools with a price process have accumulated their cost hold by hold.
      const double compute_usd =
          pool.price_model != CompiledPool::kFixedPrice
              ? row[kPoolCostUsd]
              : billed_gpu_s *
                    (pool.committed() ? pool.committed_usd_per_gpu_s : pool.price_usd_per_gpu_s);
      row[kPoolCostUsd] = compute_usd + row[kPoolEgressUsd];
      out_[kEgressUsd] += row[kPoolEgressUsd];
      row[kPoolGpuHoursBilled] = billed_gpu_s / 3600.0;
      row[kPoolGpuHoursUsed] /= 3600.0;
      const double quota_h = m_.pools[p].quota_gpus * window_s / 3600.0;
      total_quota_h += quota_h;
      row[kPoolUtilization] = quota_h > 0 ? row[kPoolGpuHoursUsed] / quota_h : 0.0;
      out_[kCostUsd] += row[kPoolCostUsd];
      out_[kGpuHoursUsed] += row[kPoolGpuHoursUsed];
      out_[kGpuHoursBilled] += row[kPoolGpuHoursBilled];
    }
    out_[kUtilization] = total_quota_h > 0 ? out_[kGpuHoursUsed] / total_quota_h : 0.0;
    usage_.finish(m_.horizon_s);
    const double arrived = static_cast<double>(arrived_);
    const double started = static_cast<double>(started_);
    const double completed = static_cast<double>(completed_);
    out_[kJobsArrived] = arrived;
    out_[kJobsStarted] = started;
    out_[kJobsCompleted] = completed;
    out_[kJobsDropped] = static_cast<double>(dropped_);
    out_[kJobsLate] = static_cast<double>(late_);
    out_[kPreemptions] = static_cast<double>(preemptions_);
    out_[kLaunchFailures] = static_cast<double>(launch_failures_);
    out_[kGpuHoursLost] = lost_gpu_s_ / 3600.0;
    out_[kGpuHoursCheckpointing] = checkpointing_gpu_s_ / 3600.0;
    out_[kGpuHoursRestarting] = restarting_gpu_s_ / 3600.0;
    out_[kGpuHoursTransferring] = transferring_gpu_s_ / 3600.0;
    out_[kDropFraction] = arrived > 0 ? out_[kJobsDropped] / arrived : 0.0;
    const double launched = static_cast<double>(launched_);
    out_[kWaitProbability] = launched > 0 ? static_cast<double>(waited_) / launched : 0.0;
    out_[kWaitMeanS] = launched > 0 ? wait_sum_ / launched : 0.0;
    out_[kProvisioningMeanS] = started > 0 ? provisioning_sum_ / started : 0.0;
    out_[kWaitP50S] = wait_hist_->quantile(0.50);
    out_[kWaitP95S] = wait_hist_->quantile(0.95);
    out_[kWaitP99S] = wait_hist_->quantile(0.99);
    out_[kCompletionMeanS] = completed > 0 ? completion_sum_ / completed : 0.0;
    out_[kCompletionP50S] = completion_hist_->quantile(0.50);
    out_[kCompletionP95S] = completion_hist_->quantile(0.95);
    out_[kCompletionP99S] = completion_hist_->quantile(0.99);
    out_[kQueueLengthMean] = window_s > 0 ? queue_area_ / window_s : 0.0;
    out_[kJobsRunningMean] = window_s > 0 ? running_area_ / window_s : 0.0;
    if (m_.service_count > 0) finish_services(window_s);
    out_[kEvents] = static_cast<double>(events);
  }

  GPUCAP_HD void finish_services(double window_s) {
    const ServiceTotals& t = fleet_.totals();
    const double served = static_cast<double>(t.served);
    out_[kRequestsArrived] = static_cast<double>(t.arrived);
    out_[kRequestsServed] = served;
    out_[kRequestsDropped] = static_cast<double>(t.dropped);
    out_[kLatencyMeanS] = served > 0 ? t.latency_sum_s / served : 0.0;
    out_[kLatencyP50S] = fleet_.latency().quantile(0.50);
    out_[kLatencyP95S] = fleet_.latency().quantile(0.95);
    out_[kLatencyP99S] = fleet_.latency().quantile(0.99);
    out_[kSloViolationShare] =
        t.slo_arrived > 0 ? static_cast<double>(t.slo_violations) / t.slo_arrived : 0.0;
    out_[kColdStarts] = static_cast<double>(t.cold_starts);
    out_[kColdStartShare] = served > 0 ? static_cast<double>(t.cold_served) / served : 0.0;
    out_[kReplicasMean] = window_s > 0 ? t.replica_area / window_s : 0.0;
    // Pools run either jobs or replicas: the cost of those that run replicas is the services'.
    double cost = 0;
    for (uint32_t p = 0; p < m_.pool_count; ++p) {
      bool runs_replicas = false;
      for (uint32_t v = 0; v < m_.service_count; ++v) runs_replicas |= m_.services[v].pool == p;
      if (runs_replicas) cost += pool_out_[p * kPoolMetricCount + kPoolCostUsd];
    }
    out_[kCostPer1000RequestsUsd] = served > 0 ? 1000.0 * cost / served : 0.0;
  }

  GPUCAP_HD void push(double time_s, uint32_t type, uint32_t payload) {
    GPUCAP_INVARIANT(time_s >= now_, "no event is scheduled in the past (nor at NaN)");
    if (!calendar_.push(time_s, type, payload)) status_ = 1;
  }

  const CompiledModel& m_;
  uint64_t seed_, replication_;
  double* out_;
  double* pool_out_;
  UsageSeries usage_;  ///< GPUs in use per pool over time (scenario key timeseries)
  EventCalendar calendar_;
  JobSlot* slots_;
  uint32_t* free_slots_;
  uint32_t free_slot_count_ = 0;
  QueuedJob* queue_;
  uint32_t queue_head_ = 0, queue_size_ = 0;
  RandomStream* streams_;
  ClassState* class_state_;
  int32_t* free_gpus_;  ///< capacity - GPUs held; below 0 only while a capacity drop is handled
  PoolState* pool_state_;
  double* price_marks_;  ///< per slot: the pool's price integral when its run began
  LogHistogram* wait_hist_;
  LogHistogram* completion_hist_;
  ServiceFleet fleet_;
  uint32_t jobs_holding_ = 0;
  static constexpr uint32_t kNoClass = 0xFFFFFFFFu;
  static constexpr double kNever = __builtin_huge_val();
  bool arrival_slots_ = false;
  uint32_t earliest_class_ = kNoClass;
  double now_ = 0;
  double queue_area_ = 0, running_area_ = 0;
  double wait_sum_ = 0, completion_sum_ = 0;
  double provisioning_sum_ = 0;
  double lost_gpu_s_ = 0, checkpointing_gpu_s_ = 0, restarting_gpu_s_ = 0, transferring_gpu_s_ = 0;
  uint64_t late_ = 0, preemptions_ = 0, launch_failures_ = 0;
  bool retry_pending_ = false;
  uint64_t arrived_ = 0, launched_ = 0, started_ = 0, completed_ = 0, dropped_ = 0, waited_ = 0;
  int status_ = 0;
};

}  // namespace gpucap::detail
