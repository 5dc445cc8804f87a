// gpucap: the flat, compiled form of a scenario that the portable core runs.
//
// CompiledModel is a view: plain structs and raw pointers into arrays owned by a ModelStorage
// (sim/model/include/gpucap/compile.hpp) on the host, or by device memory on a GPU backend. Nothing
// in it allocates. Units: seconds, USD, GPUs.
#pragma once
#include <cstdint>

#include "gpucap/distribution.hpp"
#include "gpucap/llm_iteration.hpp"
#include "gpucap/metrics.hpp"

namespace gpucap {

/// How a pool's GPUs are paid for.
///  on_demand: billed per hold (increment, minimum) at price_usd_per_gpu_s.
///  spot:      billed like on_demand, at a lower price, and preempted (see CompiledPool).
///  reserved:  a committed count; every GPU of it is charged for the whole window, used or not.
///  owned:     on-premises; purchase price amortized per hour plus operations, like reserved.
///  marketplace: decentralized GPU networks; billed like on_demand, nodes fail (preemption) and
///             their speed varies from run to run (slowdown).
///  serverless: replicas of inference services, started on demand (cold start) and scaled to
///             zero; billed per replica lifetime, idle keep-alive time included or not.
enum class PurchaseOption : uint8_t { on_demand, spot, reserved, owned, marketplace, serverless };
// A pool's cost is also filed under kCostOnDemandUsd + its option (metrics.hpp), in this order.
static_assert(kCostOnDemandUsd + static_cast<uint32_t>(PurchaseOption::serverless) ==
                  kCostServerlessUsd,
              "one cost metric per purchase option, in the options' order");
/// A pool's option when its `purchase` is not given. The options' properties and names are the
/// table of purchase_options.hpp (sim/model); nothing else spells an option.
inline constexpr PurchaseOption kDefaultPurchaseOption = PurchaseOption::on_demand;

/// What a step trace (availability) shows after its last row: itself again from its first row,
/// nothing (0), or its last row forever.
enum class TraceEnd : uint8_t { repeat, unavailable, last };

/// A pool: provider x region x GPU model x purchase option, the unit of capacity.
struct CompiledPool {
  double price_usd_per_gpu_s = 0;      ///< per-hold price (on_demand, spot), per GPU-second
  double committed_usd_per_gpu_s = 0;  ///< reserved, owned: charge per GPU of quota per second
  double billing_increment_s = 1;      ///< billed time is rounded up to a multiple of this
  double billing_minimum_s = 0;        ///< and is at least this, per launch
  double speed = 1;                    ///< throughput relative to the reference GPU (work / speed)
  uint32_t quota_gpus = 0;             ///< most GPUs held at once (the count, when committed)
  /// The engine reads the flags below for behaviour; `purchase` only files the pool's cost under
  /// its option's metric (kCostOnDemandUsd + purchase).
  PurchaseOption purchase = kDefaultPurchaseOption;
  bool has_provisioning_delay = false;
  Distribution provisioning_delay_s;  ///< from launch to running (not billed)
  // Stockouts: a launch that finds free quota still fails with this probability; the job tries
  // the next pool of its placement list, and waiting jobs try again stockout_retry_s later.
  double stockout_probability = 0;
  double stockout_retry_s = 0;
  bool launch_checks = false;  ///< preemptible, stockout_probability > 0, or some class's
                               ///< placement_limit pool: placement checks more
  // Preemption (spot): an instance is reclaimed after min(time_to_preemption, max_runtime_s)
  // of running, with notice_s of warning.
  bool preemptible = false;
  bool has_time_to_preemption = false;
  Distribution time_to_preemption_s;  ///< drawn afresh for every run on an instance
  double max_runtime_s = 0;           ///< 0: no limit
  double notice_s = 0;                ///< warning before the reclaim; 0: none
  bool has_zone_events = false;       ///< zone-wide events reclaim every job of the pool at once
  Distribution zone_event_gap_s;      ///< time between zone-wide events
  // Price process (on_demand, spot, marketplace): the price per GPU-second varies in steps of
  // price_step_s, from a trace (table[offset + step mod count], USD per GPU-hour, repeating) or
  // as a mean-reverting log-price: x' = x e^(-theta step) + sigma sqrt((1 - e^(-2 theta step)) /
  // (2 theta)) Z, price = level e^x, x0 drawn from its stationary law; or continuously, as an
  // Ornstein-Uhlenbeck price dP = theta (level - P) dt + sigma level dW, drawn exactly (with its
  // integral) only when a run starts or ends, P0 from its stationary law. A hold pays the
  // integral of the price over its run, plus the end price for billed time beyond the run.
  enum PriceModel : uint8_t {
    kFixedPrice,
    kTracePrice,
    kMeanRevertingPrice,
    kOrnsteinUhlenbeckPrice
  };
  PriceModel price_model = kFixedPrice;
  double price_step_s = 0;
  uint32_t price_offset = 0, price_count = 0;  ///< trace, in CompiledModel::table
  bool price_random_start = false;
  double price_start_s = 0;
  double price_level_usd_per_gpu_s = 0;    ///< mean-reverting: e^0 level; OU: the mean
  double price_reversion_per_s = 0;        ///< theta
  double price_volatility_per_sqrt_s = 0;  ///< sigma (OU: relative to the level)
  double price_decay = 0;             ///< e^(-theta step), computed on the host at compile time
  double price_noise = 0;             ///< mean-reverting: sigma sqrt((1 - e^(-2 theta step)) /
                                      ///< (2 theta))
  double price_stationary_sd = 0;     ///< sigma / sqrt(2 theta); OU: sigma level / sqrt(2 theta)
                                      ///< (USD per GPU-second)
  double price_reversion_time_s = 0;  ///< OU: 1 / theta, computed on the host
  bool has_slowdown = false;          ///< run time multiplied by a factor drawn for each run
  Distribution slowdown;              ///< the factor (plain number, > 0)
  // Availability trace: capacity(t) = min(quota, gpus_per_instance x table[offset + step index
  // mod count]), where the step index of time t is floor((t + start) / step) (after the last
  // row: see availability_after_end). When capacity falls below the GPUs held, the most
  // recently launched jobs are reclaimed.
  bool has_availability = false;
  bool availability_random_start = false;  ///< start uniform over the trace, per replication
  TraceEnd availability_after_end = TraceEnd::repeat;
  uint32_t availability_offset = 0, availability_count = 0;  ///< in CompiledModel::table
  double availability_step_s = 0;
  double availability_start_s = 0;
  double gpus_per_instance = 1;
  // A replica is billed for its whole lifetime when bills_idle (keep-alive billed), else (a
  // pool billed per replica lifetime with bill_idle: false) for its cold start plus the time it
  // has requests in service.
  bool bills_idle = true;

  /// Paid for its whole quota all the time, used or not, never per hold (reserved, owned): set
  /// by compile from the purchase option's row (purchase_options.hpp), as are `preemptible` and
  /// `bills_idle`; the engine reads these flags, never `purchase` (but for the cost split).
  bool committed_quota = false;
  /// Some inference service's pool or fallback pool: its `utilization` is over the GPU-time of
  /// the replicas up in it, not over its quota (pools run either jobs or replicas).
  bool runs_replicas = false;

  GPUCAP_HD bool committed() const { return committed_quota; }

  /// The billing commitment that covers this pool's usage (CompiledModel::commitments), or
  /// kNoCommitment.
  static constexpr uint32_t kNoCommitment = 0xFFFFFFFFu;
  uint32_t commitment = kNoCommitment;
};

/// A billing commitment (CommitmentSpec): settled in periods of period_s from t = 0, its
/// periods' usage kept in the arena (ArenaLayout::commitment_usage) at [2 bin_offset, + 2 bins):
/// for each period, the covered pools' GPU-seconds used in the window and their on-demand
/// price, USD. In a period of w seconds inside the window with usage U GPU-s worth V USD, it
/// costs fee_usd_per_s x w and pays the share f of V: a reservation f = min(1, gpus x w / U),
/// a savings plan f = min(1, fee x w / (plan_rate x V)).
struct CompiledCommitment {
  double gpus = 0;           ///< reservation: GPUs covered in every period
  double fee_usd_per_s = 0;  ///< paid per second of the window, used or not
  double plan_rate = 1;      ///< savings plan: its rates / on-demand prices (1 - discount)
  double period_s = 3600;
  uint32_t bins = 0;         ///< ceil(horizon / period)
  uint32_t bin_offset = 0;   ///< its first period among all commitments' periods
  bool savings_plan = false;
};

enum class ArrivalKind : uint8_t { poisson, profile, trace };
/// How a trace is replayed: as it is, or by a block bootstrap (engine/trace_replay.hpp).
enum class TraceResample : uint8_t { none, moving, stationary };

/// Arrivals of a job class.
///  poisson: rate_per_s.
///  profile: non-homogeneous Poisson, rate(t) = rate_per_s * profile[floor(t / bin_s) mod len].
///  trace:   rows [trace_offset, trace_offset + trace_count) of the model's trace table.
struct CompiledArrivals {
  ArrivalKind kind = ArrivalKind::poisson;
  double rate_per_s = 0;
  double profile_bin_s = 3600;
  uint32_t profile_offset = 0, profile_count = 0;  ///< in CompiledModel::table
  uint32_t trace_offset = 0, trace_count = 0;      ///< in CompiledModel::trace_*
  // Trace replay: layers [layer_offset, layer_offset + layer_count) of the arena's trace layers,
  // each a stream of the trace's jobs; every layer keeps all its jobs but the last, which keeps
  // each with probability last_layer_keep (thinning; scale_rate = layers - 1 + that).
  uint32_t layer_offset = 0, layer_count = 0;
  double last_layer_keep = 1;
  double trace_start_s = 0;  ///< trace time at t = 0 (resample none)
  TraceResample resample = TraceResample::none;
  double block_s = 0;   ///< block length (moving) or its mean (stationary), s
  double phase_s = 0;   ///< a block from target time t starts at t mod phase + k phase
  double period_s = 0;  ///< the trace as a loop: phases * phase_s
  uint32_t phases = 0;  ///< period_s / phase_s, a whole number >= 1
  /// Bursts (poisson, profile): the rate of interval [k burst_interval_s, (k + 1)
  /// burst_interval_s) is multiplied by a draw of `burst` (gamma, mean 1), one per interval in
  /// order from a stream of the class's own; burst_interval_s 0: none.
  double burst_interval_s = 0;
  Distribution burst;
  /// Drift (poisson, profile): the rate's level a geometric random walk, 1 in interval 0 of
  /// drift_interval_s, each later interval's the previous one's times e^(sd Z - sd^2/2) (a
  /// normal Z from the bursts' stream, when the search enters it); drift_interval_s 0: none.
  double drift_interval_s = 0;
  double drift_sd_log = 0;
};

/// A job class: jobs that share GPUs per job, size distribution, priority and placement.
struct CompiledJobClass {
  uint32_t gpus = 1;     ///< gang size: all GPUs in one pool, at once
  int32_t priority = 0;  ///< larger runs first under the priority discipline
  Distribution work_s;   ///< run time on the reference GPU (speed 1), seconds
  CompiledArrivals arrivals;
  uint32_t placement_offset = 0, placement_count = 0;  ///< pool indices in CompiledModel::placement
  /// The placement's pools as bits of their indices, when the list names four or more pools, in
  /// increasing pool order, 0 to 63 only: find_pool then visits only those with a free GPU,
  /// lowest first (the list's order), from PoolCapacity's mask. 0: find_pool walks the list.
  uint64_t placement_mask = 0;
  // Checkpointing (wall-clock seconds on the instance): a checkpoint is written after every
  // checkpoint_interval_s of computing and takes checkpoint_write_s; a run that resumes after a
  // preemption first spends restart_s restoring.
  double checkpoint_interval_s = 0;  ///< 0: no periodic checkpoints
  double checkpoint_write_s = 0;
  double restart_s = 0;
  double checkpoint_size_gb = 0;  ///< copied when a job resumes in another region; 0: never
  double deadline_s = 0;          ///< from arrival; 0: none
  uint32_t fallback_after_preemptions = 0xFFFFFFFFu;  ///< then avoid preemptible pools
  double fallback_slack_s = -1;  ///< avoid preemptible pools when slack falls below; <0: never
  /// fallback.return_to_preemptible: after a run on a pool that is not preemptible, begun while
  /// fallback_after_preemptions held, the job's next launch tries the preemptible pools again.
  bool fallback_returns = false;
  /// Parameter uncertainty (JobClassSpec::rate_sd_log, scale_sd_log): each replication's rate
  /// and work scale multipliers e^(sd Z - sd^2/2), mean 1; 0: none.
  double rate_sd_log = 0, scale_sd_log = 0;
  /// placement_limit: at most limit_jobs jobs of the class hold GPUs in pool limit_pool at once
  /// (provisioning or running); limit_pool kNoLimitPool: no limit.
  uint32_t limit_pool = kNoLimitPool;
  uint32_t limit_jobs = 0;
  /// The limit counts GPUs, not jobs (placement_limit.commitment: the GPUs a reservation pays
  /// for): limit_jobs is then the most GPUs of the class in limit_pool at once.
  bool limit_counts_gpus = false;
  /// placement_limit.share, in (0, 1]: a launch in limit_pool must leave the class's jobs there
  /// at most ceil(limit_share x the class's jobs holding GPUs in any pool), itself counted in
  /// both; 0: the limit is limit_jobs. With a share, limit_jobs is UINT32_MAX.
  double limit_share = 0;
  uint32_t service = kNotAService;  ///< an inference service: its index in CompiledModel::services
  /// kind: deployment: each of its "jobs" is an instance that holds `gpus` GPUs on the wall
  /// clock until arrival + lifetime (work_s draws the lifetime, s; a trace row gives it), and
  /// serves once startup_s has passed after each launch. A reclaim interrupts it: it queues
  /// again, its lifetime running on. See engine/deployment_totals.hpp for what it counts.
  bool deployment = false;
  double startup_s = 0;

  static constexpr uint32_t kNotAService = 0xFFFFFFFFu;
  static constexpr uint32_t kNoLimitPool = 0xFFFFFFFFu;
};

/// An inference service: requests of its job class (arrivals; work_s is the service time per
/// request on the reference GPU) served by replicas in one pool. Each replica holds
/// gpus_per_replica GPUs and serves up to `concurrency` requests at once; requests that find no
/// free replica wait (FIFO, at most queue_capacity of them, else dropped). The autoscaler keeps
/// replicas (starting or warm) at ceil(requests in the system / target_concurrency), within
/// [min_replicas, max_replicas]; a warm replica idle for idle_timeout_s stops (down to
/// min_replicas). A replica's start (cold start) takes the pool's provisioning delay, a container
/// start and the weights load. Latency = network_rtt_s + wait + service time / pool speed.
/// Where replicas of a service may run besides its own pool: its fallback pool, with what a
/// replica there costs in time (cold start, weights) and per request (round trip, egress).
struct CompiledServiceSite {
  static constexpr uint32_t kNone = 0xFFFFFFFFu;
  uint32_t pool = kNone;  ///< kNone: the service has no fallback pool
  bool has_container_start = false;
  Distribution container_start_s;
  double weights_load_s = 0;
  double network_rtt_s = 0;
  double egress_usd_per_request = 0;
  double time_factor = 1;  ///< service time there / service time in the service's pool (speeds)
};

struct CompiledService {
  uint32_t job_class = 0;
  uint32_t pool = 0;
  uint32_t gpus_per_replica = 1;
  uint32_t concurrency = 1;
  double target_concurrency = 1;
  uint32_t min_replicas = 0, max_replicas = 1;
  uint32_t replica_offset = 0;  ///< its replicas in the arena: [offset, offset + max_replicas)
  uint32_t queue_offset = 0;    ///< its waiting room in the arena: [offset, offset + capacity)
  uint32_t queue_capacity = 0;
  double idle_timeout_s = 0;  ///< +inf: replicas never stop for idleness
  bool has_container_start = false;
  Distribution container_start_s;  ///< drawn for every cold start
  double weights_load_s = 0;       ///< model size / load bandwidth, added to every cold start
  double network_rtt_s = 0;        ///< users' region to the pool's region and back
  double slo_latency_s = 0;        ///< a request slower than this violates the SLO; 0: no SLO
  double egress_usd_per_request = 0;
  /// The windowed autoscaler (Knative's model; see WindowedAutoscaler), when `windowed`: every
  /// tick_s it sets the replicas from the average requests in the system over the stable
  /// window (or the panic window, in panic) and lowers them only after scale_down_delay_s.
  /// Windows and the delay are whole numbers of ticks; its history lies in the arena at
  /// [history_offset, + stable_ticks + delay_ticks + 1) doubles.
  bool windowed = false;
  uint32_t stable_ticks = 0;  ///< stable window / tick
  uint32_t panic_ticks = 0;   ///< panic window / tick, <= stable_ticks
  uint32_t delay_ticks = 0;   ///< scale-down delay / tick; 0: no delay
  uint32_t history_offset = 0;
  double tick_s = 0;
  double panic_threshold = 0;  ///< panic when panic-window replicas / warm replicas >= this
  /// The pool is spot or marketplace: each replica lifetime there ends at the pool's reclaim
  /// draw or max_runtime; its requests in service then restart. Their arrival, start and
  /// service time are kept in the arena at [tracked_offset, + max_replicas x concurrency).
  bool preemptible = false;
  uint32_t tracked_offset = 0;
  /// Replicas start here when the pool has no free GPU or a launch there stocks out.
  CompiledServiceSite fallback;
  /// An LLM service (`llm:`): its index in CompiledModel::llm, else kNotLlm. Its requests carry
  /// token counts and its replicas batch them per iteration (llm_serving.hpp); `concurrency`
  /// is then the replica's max_sequences.
  static constexpr uint32_t kNotLlm = 0xFFFFFFFFu;
  uint32_t llm = kNotLlm;
};

/// Where an LLM service's replica runs: its iteration time and its batching (the KV cache
/// depends on the GPU).
struct CompiledLlmSite {
  LlmShape shape;
  LlmScheduling sched;
};

/// The token-level part of an LLM service (docs/llm-serving.md). A request's token counts are
/// row floor(u x token_rows) of the joint sample llm_tokens[2 x (token_offset + row) + {0, 1}]
/// (context, output), u the class's work draw (a uniform on [0, 1)). Its SLOs: time to first
/// token and time per output token; goodput counts requests that meet both.
struct CompiledLlm {
  CompiledLlmSite site;      ///< the service's pool
  CompiledLlmSite fallback;  ///< its fallback pool (when it has one)
  uint32_t token_offset = 0;
  uint32_t token_rows = 0;
  uint32_t seq_offset = 0;  ///< running requests in the arena: [offset, + max_replicas x max_sequences)
  uint32_t unused_ = 0;
  double ttft_slo_s = 0;  ///< 0: none
  double tpot_slo_s = 0;  ///< 0: none
};
enum class QueueDiscipline : uint8_t { fifo, priority, shortest_job_first };

/// What runs or waits at t = 0 (the state the world is in when the run starts), placed in
/// order before any arrival: in `pool` (kAnyPool: the first pool of its class's placement that
/// fits) it runs at once, without provisioning (an instance also without startup); where it
/// does not fit it waits in the queue. A deployment instance's lifetime ends at end_s
/// (+infinity: it outlives the horizon); a job has end_s reference-GPU seconds of work left.
/// One whose remaining is unknown (`residual`) draws it per replication instead: the rest of its
/// class's work_s distribution (a deployment's lifetime) given that it has lasted age_s
/// (residual_life.hpp), from the stream StreamKind::initial_state, in row order.
struct InitialInstance {
  static constexpr uint32_t kAnyPool = 0xFFFFFFFFu;
  double end_s;
  uint32_t job_class;
  uint32_t gpus;
  uint32_t pool = kAnyPool;
  uint32_t residual = 0;  ///< 1: draw end_s given age_s
  double age_s = 0;       ///< s (wall clock for an instance, reference-GPU work for a job)
  /// With residual and an empirical work_s: its values, sorted, at table[sorted_offset, +count).
  uint32_t sorted_offset = 0;
  uint32_t unused_ = 0;
};

struct CompiledModel {
  const CompiledPool* pools = nullptr;
  uint32_t pool_count = 0;
  const CompiledJobClass* classes = nullptr;
  uint32_t class_count = 0;
  const uint32_t* placement = nullptr;  ///< pool indices, in order of preference
  const double* table = nullptr;        ///< empirical samples and rate profiles
  const double* trace_submit_s = nullptr;
  const uint32_t* trace_gpus = nullptr;
  const double* trace_work_s = nullptr;
  uint32_t trace_layer_count = 0;  ///< trace layers of all classes (arena: one TraceLayer each)
  /// Data each run of class c fetches when launched in pool p, [c * pool_count + p]: the time it
  /// takes (latency + size / bandwidth, s; 0 in the data's own region) and its egress (USD).
  const double* transfer_s = nullptr;
  const double* transfer_egress_usd = nullptr;
  bool has_transfers = false;  ///< some class fetches data from another region
  /// Between pools, [from * pool_count + to]: seconds per GB and latency (s) of copying data
  /// (0 within a region), and per pool the egress price of its region (USD per GB). Used to move
  /// a checkpoint when a job resumes in another region.
  const double* pool_link_s_per_gb = nullptr;
  const double* pool_link_latency_s = nullptr;
  const double* pool_egress_usd_per_gb = nullptr;
  bool has_checkpoint_moves = false;  ///< some class's checkpoints may change region
  /// Run speed of class c in pool p, [c * pool_count + p]: the pool's speed times the efficiency
  /// of a job spread over several nodes (all-reduce over the pool's interconnect); only when
  /// has_run_speeds.
  const double* run_speed = nullptr;
  bool has_run_speeds = false;
  /// Some class has fallback_returns or a placement_limit: a reclaimed run updates the job's
  /// kReturnsToPreemptible flag and gives back its place in the limited pool.
  bool has_class_launch_rules = false;
  /// Some class has a placement_mask: PoolCapacity keeps its mask of pools with a free GPU.
  bool placement_by_mask = false;
  const CompiledService* services = nullptr;
  uint32_t service_count = 0;
  const CompiledLlm* llm = nullptr;  ///< LLM services (CompiledService::llm)
  uint32_t llm_count = 0;
  uint32_t llm_sequences = 0;          ///< running requests of every LLM replica (arena entries)
  const uint32_t* llm_tokens = nullptr;  ///< (context, output) pairs of the LLM services' samples
  bool has_deployments = false;              ///< some class is a deployment (kind: deployment)
  bool has_parameter_draws = false;  ///< some class has an uncertainty (rate or scale sd > 0)
  bool has_bursts = false;  ///< some class's arrivals have bursts or a drift (a Cox rate)
  const CompiledCommitment* commitments = nullptr;  ///< billing commitments (pools' commitment)
  uint32_t commitment_count = 0;
  uint32_t commitment_bins = 0;  ///< periods of every commitment together (arena: 2 doubles each)
  const InitialInstance* initial = nullptr;  ///< running or waiting at t = 0, in placement order
  uint32_t initial_count = 0;
  uint32_t replica_count = 0;           ///< replicas of all services (sum of max_replicas)
  uint32_t request_queue_capacity = 0;  ///< waiting rooms of all services
  uint32_t request_capacity = 0;        ///< requests in service at once, all services
  uint32_t windowed_service_count = 0;  ///< services with a windowed autoscaler (one tick each)
  uint32_t autoscale_history = 0;       ///< their history in the arena, doubles
  uint32_t preemptible_replicas = 0;    ///< replicas of preemptible services (one reclaim each)
  uint32_t tracked_requests = 0;        ///< requests in service at once, preemptible services

  double horizon_s = 0;  ///< arrivals stop and the run ends here
  double warmup_s = 0;   ///< statistics cover [warmup_s, horizon_s]
  /// Time series of GPUs in use per pool: bins of timeseries_step_s over [0, horizon_s]
  /// (timeseries_bins = ceil(horizon / step); 0: none).
  double timeseries_step_s = 0;
  uint32_t timeseries_bins = 0;
  /// The time series has one more row after the pools' (the settling probe's): the mean number
  /// of jobs (and deployment instances) waiting in each bin.
  bool timeseries_queue_row = false;

  /// Length of [from, to] inside the statistics window [warmup_s, horizon_s].
  GPUCAP_HD double in_window(double from, double to) const {
    const double lo = from > warmup_s ? from : warmup_s;
    const double hi = to < horizon_s ? to : horizon_s;
    return hi > lo ? hi - lo : 0.0;
  }
  QueueDiscipline discipline = QueueDiscipline::fifo;
  bool backfill = false;
  uint32_t queue_capacity = 0;  ///< most jobs waiting at once; arrivals beyond it are dropped
  uint32_t total_quota_gpus = 0;
  /// Set by compile() from uses_core_only(): the engine may run its core instantiation
  /// (engine/engine_features.hpp), which gives the same bits with less code. False (the
  /// default, for a model put together by hand) always runs the whole engine.
  bool core_only = false;
};

/// Whether the model needs none of the engine's optional parts: jobs only (no inference
/// services), on pools whose capacity and price stay fixed (nothing preemptible, no zone
/// events, availability traces, stockouts or price processes), without placement limits or
/// fallback rules, data or checkpoint transfers, per-class run speeds or slowdowns, trace
/// arrivals, bursts, billing commitments, parameter uncertainty or a time series. Provisioning delays, checkpoints, deadlines, profiles, every
/// queue discipline, backfill and a warm-up are core.
inline bool uses_core_only(const CompiledModel& m) {
  if (m.service_count > 0 || m.has_deployments || m.initial_count > 0 || m.has_class_launch_rules ||
      m.commitment_count > 0 || m.has_parameter_draws || m.has_bursts ||
      m.has_transfers || m.has_checkpoint_moves || m.has_run_speeds || m.timeseries_bins > 0)
    return false;
  for (uint32_t p = 0; p < m.pool_count; ++p) {
    const CompiledPool& pool = m.pools[p];
    // launch_checks: preemptible, stockouts, or a class's placement_limit pool.
    if (pool.launch_checks || pool.has_zone_events || pool.has_availability ||
        pool.price_model != CompiledPool::kFixedPrice || pool.has_slowdown)
      return false;
  }
  // Placement limits and fallback rules are has_class_launch_rules, services service_count.
  for (uint32_t c = 0; c < m.class_count; ++c)
    if (m.classes[c].arrivals.kind == ArrivalKind::trace) return false;
  return true;
}

}  // namespace gpucap
