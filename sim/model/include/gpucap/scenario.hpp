// gpucap: the validated, host-side description of a scenario (the rich form of a YAML file).
//
// A Scenario is what load_scenario() returns after every check has passed; compile() turns it
// into the flat CompiledModel the engine runs. Units: seconds, USD, GPUs.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "gpucap/compiled_model.hpp"
#include "gpucap/data_file.hpp"
#include "gpucap/distribution.hpp"
#include "gpucap/goal.hpp"
#include "gpucap/llm_catalog.hpp"

namespace gpucap {

/// A distribution as written by the user; `samples` holds the values of an empirical one.
struct DistributionSpec {
  DistKind kind = DistKind::deterministic;
  double p0 = 0, p1 = 0;  ///< see DistKind for their meaning (already converted)
  std::vector<double> samples;
  double mean() const;  ///< analytic mean (sample mean for empirical); infinite if it diverges
};

enum class ProviderKind : uint8_t { hyperscaler, gpu_cloud, serverless, marketplace, onprem };

struct ProviderSpec {
  std::string name;
  ProviderKind kind = ProviderKind::hyperscaler;
};

struct RegionSpec {
  std::string name;
  std::map<std::string, double> latency_ms;      ///< one-way latency to other regions, ms
  std::map<std::string, double> bandwidth_gbps;  ///< transfer bandwidth to other regions, Gbit/s
  double egress_usd_per_gb = 0;                  ///< price of data leaving this region, USD/GB
};

struct PoolSpec {
  std::string name;
  std::string provider;  ///< empty when no providers are declared
  std::string region;    ///< empty when no regions are declared
  std::string gpu;
  PurchaseOption purchase = kDefaultPurchaseOption;
  double price_usd_per_gpu_hour = 0;
  double billing_increment_s = 1;
  double billing_minimum_s = 0;
  uint32_t quota_gpus = 0;
  double speed = 1;
  double gpu_memory_gb = 0;  ///< 0: not declared (every job fits)
  bool has_provisioning_delay = false;
  DistributionSpec provisioning_delay_s;
  double stockout_probability = 0;  ///< a launch fails this often even with free quota
  double stockout_retry_s = 300;    ///< waiting jobs try again after this
  // reserved: committed price per GPU-hour; owned: capex amortized plus opex, per GPU-hour
  double committed_usd_per_gpu_hour = 0;
  // spot
  bool has_time_to_preemption = false;
  DistributionSpec time_to_preemption_s;
  double max_runtime_s = 0;
  double notice_s = 0;
  bool has_zone_events = false;
  DistributionSpec zone_event_gap_s;
  bool has_slowdown = false;
  DistributionSpec slowdown;
  // Price process (see CompiledPool): none, a trace, or mean-reverting.
  CompiledPool::PriceModel price_model = CompiledPool::kFixedPrice;
  std::vector<double> price_trace_usd_per_gpu_hour;
  double price_step_s = 0;
  bool price_random_start = false;
  double price_start_s = 0;
  double price_reversion_per_hour = 0;
  double price_volatility_per_sqrt_hour = 0;
  // Capacity from a trace of available instances at a fixed step (empty: the quota always).
  std::vector<double> availability;  ///< instances available at each step
  double availability_step_s = 0;
  double gpus_per_instance = 1;
  bool availability_random_start = false;  ///< each replication starts at a uniform offset
  double availability_start_s = 0;         ///< else: trace time at t = 0
  TraceEnd availability_after_end = TraceEnd::repeat;  ///< after the trace's last row
  std::string availability_file;
  // Nodes and their interconnect: a job of more GPUs than a node has spans several nodes.
  uint32_t gpus_per_node = 0;  ///< 0: not declared (a job never spans nodes)
  double interconnect_latency_s = 0;
  double interconnect_gbps = 0;  ///< Gbit/s between nodes; 0: not declared
  // Replicas of inference services: cold start = provisioning delay + container start + model
  // weights / weights bandwidth, or a snapshot restore instead of container + weights.
  bool has_container_start = false;
  DistributionSpec container_start_s;
  double weights_gb_per_s = 0;     ///< 0: weights load instantly
  double snapshot_restore_s = -1;  ///< >= 0: cold starts restore a snapshot in this time
  bool bills_idle = true;          ///< serverless: keep-alive time is billed
};

/// A billing commitment (`commitments.NAME`), as the clouds bill reservations and savings
/// plans: paid every `period` of the window whether used or not, and applied in each period to
/// whatever usage the on-demand pools it `covers` have then, whichever instances run it; usage
/// beyond it is billed at those pools' prices. A reservation covers `gpus` GPUs at
/// price_usd_per_gpu_hour; a savings plan commits usd_per_hour of usage valued at its own
/// rates (the pools' prices less `discount`). Unlike a `reserved` pool (a physical capacity
/// reservation), it holds no GPUs and places nothing.
struct CommitmentSpec {
  std::string name;
  std::vector<std::string> covers;     ///< on-demand pools of fixed price, each in one commitment
  bool savings_plan = false;           ///< usd_per_hour given (else gpus)
  uint32_t gpus = 0;                   ///< reservation: GPUs covered in every period
  double price_usd_per_gpu_hour = 0;   ///< reservation: paid per committed GPU-hour
  double usd_per_hour = 0;             ///< savings plan: committed spend per hour, at plan rates
  double discount = 0;                 ///< savings plan: plan rate = on-demand price x (1 - this)
  double period_s = 3600;              ///< coverage is settled per period from t = 0
};

/// One row of an arrival trace: submit time (s from the start), GPUs, reference run time (s),
/// and the row of the trace file it came from (1 = the first data row; 0: not from a file).
struct TraceRow {
  double submit_s;
  uint32_t gpus;
  uint32_t row;  ///< sits in what would be padding: 24 bytes as before
  double work_s;
};

/// What holds or waits for GPUs at t = 0 (a deployment's instance that began before the window,
/// from its trace or its `initial_state` file; a job's, from its `initial_state` file).
struct AliveAtStart {
  /// An instance: when its lifetime ends (s from t = 0, > 0; +infinity: still running). A job:
  /// the reference-GPU seconds of work it has left.
  double end_s;
  uint32_t gpus;
  std::string pool;  ///< where it runs at t = 0; "": placed at t = 0 by its placement list
  /// Its data row in the file it came from (the trace or the `initial_state` file; 1 = first).
  uint32_t row = 0;
  /// Remaining unknown (`remaining: unknown`): drawn per replication from the workload's
  /// lifetime (instance) or work (job) distribution given that it has lasted `age_s` already
  /// (residual_life.hpp); end_s is then unused.
  bool residual = false;
  double age_s = 0;  ///< s of wall clock (instance) or reference-GPU work done (job); >= 0
};

struct ArrivalSpec {
  ArrivalKind kind = ArrivalKind::poisson;
  double rate_per_s = 0;
  std::vector<double> profile;  ///< multipliers, one per bin (24 hourly or 168 weekly)
  double profile_bin_s = 3600;
  std::vector<TraceRow> trace;  ///< sorted by submit time
  std::string trace_file;
  /// A deployment's trace: rows that began before the window (blank or negative start) and
  /// end after t = 0, in file order: the state at t = 0, kept out of replay and resampling.
  std::vector<AliveAtStart> alive_at_start;
  // Trace replay (see CompiledArrivals): where it starts, thinning or superposition, and a
  // block bootstrap.
  double trace_start_s = 0;  ///< trace time at t = 0 (without resampling)
  double scale_rate = 1;     ///< multiplier of the arrival rate, in (0, 16]
  TraceResample resample = TraceResample::none;
  double resample_block_s = 0;   ///< block length, or its mean (stationary)
  double resample_phase_s = 0;   ///< blocks keep the time modulo this
  double resample_period_s = 0;  ///< the trace's length as a loop, a multiple of phase
  /// `burst` (poisson, nhpp): a doubly stochastic (Cox) rate, the rate of each interval of
  /// burst_interval_s from t = 0 times a gamma multiplier of mean 1 and coefficient of
  /// variation burst_cv, independent between intervals; 0: none (a Poisson process).
  double burst_interval_s = 0;
  double burst_cv = 0;
  /// `drift` (poisson, nhpp): the rate's level a geometric random walk from 1 at t = 0, each
  /// interval of drift_interval_s the previous one's times e^(sd Z - sd²/2); 0: none.
  double drift_interval_s = 0;
  double drift_sd_log = 0;
};

enum class WorkloadKind : uint8_t { training, batch, inference, deployment };

/// The token-level model of an LLM service (`llm:`; docs/llm-serving.md), as the loader
/// resolves it: the model's shape, the GPUs of the service's pools, the batching and the
/// requests' token counts.
struct LlmServiceSpec {
  bool enabled = false;
  LlmModelShape model;
  GpuSpec gpu;           ///< the pool's GPU (memory_gb: the pool's gpu_memory_gb when declared)
  GpuSpec fallback_gpu;  ///< the fallback pool's (when the service has one)
  LlmEfficiency efficiency;
  std::vector<std::pair<double, double>> profile;  ///< (tokens, s) rows; empty: the roofline
  uint32_t max_sequences = 256;
  uint32_t max_batched_tokens = 8192;
  uint32_t block_tokens = 16;
  bool chunked_prefill = true;
  std::vector<uint32_t> tokens;  ///< (context, output) pairs, one per request of the sample
  double ttft_slo_s = 0;         ///< 0: none
  double tpot_slo_s = 0;         ///< 0: none
};

/// An inference service (a workload of kind inference); see CompiledService for the model.
struct ServiceSpec {
  std::string pool;
  std::string fallback_pool;      ///< replicas start here when `pool` has no room; empty: none
  uint32_t concurrency = 1;       ///< requests a replica serves at once
  double target_concurrency = 1;  ///< the autoscaler's aim, requests per replica
  uint32_t min_replicas = 0, max_replicas = 1;
  double idle_timeout_s = 0;       ///< +inf: never scale down
  /// The windowed autoscaler (Knative's model), when `windowed`: see CompiledService.
  bool windowed = false;
  double stable_window_s = 0;
  double panic_window_s = 0;
  double panic_threshold = 2;  ///< panic-window replicas / warm replicas (2 = 200 %)
  double scale_down_delay_s = 0;
  double tick_s = 2;
  double model_gb = 0;             ///< weights loaded at every cold start
  std::string users_region;        ///< where requests come from; empty: the pool's region
  double slo_latency_s = 0;        ///< 0: no SLO
  uint32_t queue_capacity = 1000;  ///< requests waiting at once
  double response_kb = 0;          ///< egress per request
  LlmServiceSpec llm;              ///< `llm:` (llm.enabled)
};

struct JobClassSpec {
  std::string name;
  WorkloadKind kind = WorkloadKind::batch;
  ServiceSpec service;  ///< kind inference only
  uint32_t gpus = 1;
  int32_t priority = 0;
  DistributionSpec work_s;
  ArrivalSpec arrivals;
  std::vector<std::string> placement;  ///< pool names in order of preference
  double vram_gb = 0;                  ///< GPU memory each GPU of the job needs; 0: any
  double data_gb = 0;                  ///< input data each run fetches; 0: none
  std::string data_region;             ///< where that data lives
  double checkpoint_interval_s = 0;
  double checkpoint_write_s = 0;
  double restart_s = 0;
  double checkpoint_size_gb = 0;  ///< copied when a job resumes in another region
  double deadline_s = 0;
  uint32_t fallback_after_preemptions = 0xFFFFFFFFu;
  double fallback_slack_s = -1;
  bool fallback_returns = false;  ///< fallback.return_to_preemptible: the fallback lasts one run
  std::string limit_pool;         ///< placement_limit.pool: a pool of the placement; "": no limit
  uint32_t limit_jobs = 0;        ///< placement_limit.jobs: most jobs of the class in it at once
  bool limit_gpus = false;        ///< placement_limit.commitment: limit_jobs counts GPUs
  double limit_share = 0;         ///< placement_limit.share: most share of the class's jobs
                                  ///< holding GPUs that may be in it, in (0, 1]; 0: by count
  // Data-parallel training across nodes: every step of step_s (reference GPU) all-reduces
  // gradient_gb over the pool's interconnect.
  double sync_step_s = 0;  ///< 0: no synchronization modelled
  double sync_gradient_gb = 0;
  /// kind: deployment: work_s is the lifetime (wall clock, s); after each launch an instance
  /// starts for startup_s before it serves.
  double startup_s = 0;
  /// `initial_state`: what of this workload runs or waits at t = 0 (after the trace's own rows
  /// that began before the window, for a deployment), in file order.
  std::vector<AliveAtStart> initial_state;
  std::string initial_state_file;
  /// `uncertainty`: doubt about the model's own parameters (what a fit estimated): each
  /// replication draws its arrival rate's multiplier e^(rate_sd_log Z1 - rate_sd_log^2/2) and
  /// its work's (a deployment's lifetime's) scale e^(scale_sd_log Z2 - scale_sd_log^2/2) (mean 1), Z1, Z2 standard normals of its own
  /// stream (the same at every sweep point). 0: none.
  double rate_sd_log = 0;
  double scale_sd_log = 0;
};

struct PolicySpec {
  QueueDiscipline discipline = QueueDiscipline::fifo;
  bool backfill = false;
  uint32_t queue_capacity = 10000;
  bool queue_capacity_set = false;  ///< false: the default above applies
};

/// The longest horizon a scenario may have: 1000 years (3.156e10 s). Times are doubles in
/// seconds; at 1000 years they still resolve 4 microseconds, enough for the shortest service
/// times and for ties between events to be real ties.
inline constexpr double kMaxHorizonS = 1000.0 * 365.25 * 86400.0;

/// The most replications one run (or one sweep point) may have.
inline constexpr uint64_t kMaxReplications = 1000000000;

struct Scenario {
  std::string name;
  std::string description;
  std::string source_path;  ///< the file it came from
  /// The scenario as YAML, overrides applied: parsed again (with the same base folder and no
  /// overrides) it gives this same scenario. Results files store it.
  std::string source_text;
  std::string original_text;  ///< the text as read, before any override
  /// The overrides applied to original_text, in order: (dotted path, YAML value), as given.
  std::vector<std::pair<std::string, std::string>> overrides;
  /// Every data file read (traces, samples, catalogs), as resolved paths; with the scenario's
  /// own file (when loaded from one) these are the run's inputs, which outputs must not replace.
  std::vector<std::string> input_files;
  /// The data files read (not the scenario's own file), each once, with their size and SHA-256:
  /// results record them as the run's provenance.
  std::vector<DataFileRecord> data_files;
  double horizon_s = 0;
  double warmup_s = 0;
  uint64_t seed = 1;
  uint64_t replications = 1000;
  /// Record GPUs in use per pool in bins of this width over [0, horizon] (0: no time series).
  double timeseries_step_s = 0;
  /// Not a key: the series has a row of jobs waiting after the pools' (the settling probe's).
  bool timeseries_queue_row = false;
  /// Per-job records of the first this many replications of each point (`records.jobs`; 0:
  /// none). Made after the run by simulating those replications again (job_records.hpp).
  uint64_t record_jobs = 0;
  std::vector<ProviderSpec> providers;
  std::vector<RegionSpec> regions;
  std::vector<PoolSpec> pools;
  /// Billing commitments over on-demand pools (`commitments:`), in the file's order.
  std::vector<CommitmentSpec> commitments;
  std::vector<JobClassSpec> workloads;
  PolicySpec policy;
  /// Indicator metrics evaluated on each replication (`goals:`), in the file's order.
  std::vector<GoalSpec> goals;

  /// Index of the pool with this name, or -1.
  int pool_index(const std::string& pool_name) const;
  /// Index of the commitment with this name, or -1.
  int commitment_index(const std::string& commitment_name) const;
  /// Bins of the time series: ceil(horizon / step), or 0 when none is recorded.
  double timeseries_bins() const;
  /// Region by name, or nullptr.
  const RegionSpec* region(const std::string& region_name) const;
  /// Latency (ms) and bandwidth (Gbit/s) between two regions, either direction; < 0: not given.
  double latency_ms(const std::string& a, const std::string& b) const;
  double bandwidth_gbps(const std::string& a, const std::string& b) const;
};

/// True when each GPU of `pool` has the memory a job of `job` needs (or either is undeclared).
inline bool fits_memory(const JobClassSpec& job, const PoolSpec& pool) {
  return job.vram_gb <= 0 || pool.gpu_memory_gb <= 0 || job.vram_gb <= pool.gpu_memory_gb;
}

}  // namespace gpucap
