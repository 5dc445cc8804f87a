// gpucap: the metrics one replication produces, with their names and units.
//
// A replication writes kScalarMetricCount doubles (indexed by ScalarMetric) and, for each pool,
// kPoolMetricCount doubles (indexed by PoolMetric, row-major [pool][metric]). The tables below
// name each one for the CLI, the HDF5 file and Python. Statistics cover [warmup, horizon].
#pragma once
#include <cstdint>

namespace gpucap {

enum ScalarMetric : uint32_t {
  kCostUsd,                ///< USD billed for GPU holds that ended in the window
  kGpuHoursUsed,           ///< GPU-hours running jobs (incl. restarts and checkpoints), in window
  kGpuHoursBilled,         ///< GPU-hours billed (increments and minimums applied)
  kGpuHoursLost,           ///< GPU-hours of preempted runs that saved nothing (redo, idle)
  kGpuHoursCheckpointing,  ///< GPU-hours spent writing checkpoints
  kGpuHoursRestarting,     ///< GPU-hours spent restoring after preemptions
  kGpuHoursTransferring,   ///< GPU-hours spent fetching input data from another region
  kEgressUsd,              ///< USD of data egress (part of kCostUsd)
  kUtilization,            ///< GPU-hours used / (sum of quotas x window hours)
  kJobsArrived,            ///< jobs that arrived in the window
  kJobsStarted,            ///< of those, jobs that started running (after provisioning)
  kJobsCompleted,          ///< of those, jobs that finished before the horizon
  kJobsDropped,            ///< of those, jobs dropped because the waiting room was full
  kDropFraction,           ///< dropped / arrived
  kJobsLate,               ///< jobs of the window that finished after their deadline
  kPreemptions,            ///< runs ended by a preemption in the window
  kLaunchFailures,         ///< launches that failed for a stockout in the window
  kWaitProbability,        ///< share of launched jobs that queued at all (wait > 0)
  kWaitMeanS,              ///< mean wait in the queue: arrival to launch, s
  kWaitP50S,
  kWaitP95S,
  kWaitP99S,
  kProvisioningMeanS,  ///< mean provisioning delay (launch to running) of started jobs, s
  kCompletionMeanS,    ///< mean time from arrival to finish, s
  kCompletionP50S,
  kCompletionP95S,
  kCompletionP99S,
  kQueueLengthMean,  ///< time-average number of jobs waiting
  kJobsRunningMean,  ///< time-average number of jobs holding GPUs
  // Inference services
  kRequestsArrived,  ///< requests that arrived in the window
  kRequestsServed,   ///< of those, requests whose service began before the horizon
  kRequestsDropped,  ///< of those, requests dropped because the waiting room was full
  kLatencyMeanS,     ///< mean latency of served requests: RTT + wait + service, s
  kLatencyP50S,
  kLatencyP95S,
  kLatencyP99S,
  kSloViolationShare,       ///< (served slower than the SLO + dropped) / arrived, SLO'd services
  kColdStarts,              ///< replica starts in the window (scale-ups from the autoscaler)
  kColdStartShare,          ///< share of served requests that waited for a starting replica
  kReplicasMean,            ///< time-average replicas up (starting or warm)
  kCostPer1000RequestsUsd,  ///< cost of the pools of inference services per 1000 served
  kReplicaPreemptions,      ///< replica lifetimes ended by a preemption in the window
  kRequestsRestarted,       ///< requests of the window whose service restarted (preemption)
  kRequestWaitMeanS,        ///< mean wait of served requests: arrival to the start of service, s
  kRequestWaitP50S,
  kRequestWaitP95S,
  kRequestWaitP99S,
  // Deployments (long-running instances): instance-hours of the window
  kInstanceHoursDemanded,  ///< instances alive (arrived, lifetime not over), instance-h
  kInstanceHoursServed,    ///< instances running past their startup, instance-h
  kInstanceHoursUnserved,  ///< demanded - served, instance-h
  kInstanceHoursWaiting,   ///< of those, before an instance's first launch (no capacity)
  kInstanceHoursDown,      ///< of those, after it: provisioning, startup, reclaimed until back
  kUnservedFraction,       ///< unserved / demanded
  kInterruptions,          ///< instance runs reclaimed in the window
  kInstancesDropped,       ///< instances dropped because the waiting room was full
  kRestoreMeanS,           ///< mean time from a reclaim until the instance serves again, s
  kRestoreP50S,
  kRestoreP95S,
  kRestoreP99S,
  kInstancesServedMean,  ///< time-average instances served (running past their startup)
  kInstancesPeak,        ///< most instances holding GPUs at once in the window
  // Cost by purchase option: the costs of the pools bought so (egress included), in the order
  // of PurchaseOption; with the commitments' fees they add up to kCostUsd
  kCostOnDemandUsd,
  kCostSpotUsd,
  kCostReservedUsd,
  kCostOwnedUsd,
  kCostMarketplaceUsd,
  kCostServerlessUsd,
  /// Fees of the billing commitments (`commitments:`), used or not; the on-demand usage they
  /// pay for is left out of the on-demand pools' cost, so the cost metrics above and this one
  /// add up to kCostUsd
  kCostCommitmentsUsd,
  /// Time-average jobs waiting over the second half of the window minus over the first half:
  /// about 0 in a steady state; positive when the queue still grows (a start-up transient that
  /// outlasts the warm-up, or more load than capacity), which biases waits
  kQueueLengthDrift,
  // LLM services (llm:): requests of the window that ended before the horizon; NaN without one
  kTtftMeanS,  ///< time to first token: network round trip + arrival to the first token, s
  kTtftP50S,
  kTtftP95S,
  kTtftP99S,
  kTpotMeanS,  ///< time per output token after the first: (end - first token) / (output - 1), s
  kTpotP50S,
  kTpotP95S,
  kTpotP99S,
  kOutputTokensPerS,         ///< output tokens of the window's ended requests / window, tokens/s
  kGoodputShare,             ///< requests meeting both token SLOs / requests arrived
  kKvCacheUtilization,       ///< time-average KV blocks held / KV blocks of warm replicas
  kLlmPreemptions,           ///< KV-cache preemptions and reclaim evictions (recomputed)
  kRecomputedTokens,         ///< tokens whose KV was computed again after those
  kCostPerMillionTokensUsd,  ///< cost of the LLM services' pools per million output tokens
  kEvents,  ///< events processed by the calendar in the whole run
  kScalarMetricCount
};

enum PoolMetric : uint32_t {
  kPoolCostUsd,
  kPoolGpuHoursUsed,
  kPoolGpuHoursBilled,
  kPoolUtilization,
  kPoolJobsStarted,
  kPoolPreemptions,
  kPoolLaunchFailures,
  kPoolEgressUsd,
  kPoolGpuHoursUp,           ///< GPU-hours of replicas up (starting or warm) in the pool, window
  kPoolQuotaUtilization,     ///< GPU-hours used / (quota x window), every pool
  kPoolInstanceHoursServed,  ///< instance-hours of deployments served in the pool, window
  kPoolMetricCount
};

/// Which workloads a metric describes (reports leave out groups a scenario does not have).
/// cost_by_option: every kind of workload, a row where some replication paid for the option.
enum class MetricGroup : uint8_t { common, jobs, inference, deployments, cost_by_option, llm };

/// Whether a table of results shows a group's metrics, given which workloads the results have
/// (jobs, services, deployments): the jobs' unless only other kinds ran, the others only when
/// they ran. A cost_by_option row asks, besides, metric_row_shown.
inline constexpr bool metric_group_shown(MetricGroup g, bool jobs, bool services,
                                         bool deployments) {
  return g == MetricGroup::jobs          ? jobs || !(services || deployments)
         : g == MetricGroup::inference || g == MetricGroup::llm ? services
         : g == MetricGroup::deployments ? deployments
                                         : true;
}

/// Whether a table shows a metric of the group whose mean over replications is `mean`: the cost
/// of a purchase option only where some replication paid for it (not 0; NaN in files written
/// before the split), an LLM metric only where defined (some LLM service ran), the others
/// always.
inline constexpr bool metric_row_shown(MetricGroup g, double mean) {
  return g == MetricGroup::llm              ? mean == mean
         : g == MetricGroup::cost_by_option ? mean != 0 && mean == mean
                                            : true;
}

struct MetricInfo {
  const char* name;
  const char* unit;
  const char* description;
  MetricGroup group = MetricGroup::common;
  /// For a metric over observations (a mean, a share, a percentile): what a replication needs
  /// for it to be defined; without it the value is NaN, not 0. Null: always defined.
  const char* defined_when = nullptr;
};

inline constexpr MetricInfo kScalarMetricInfo[kScalarMetricCount] = {
    {"cost", "USD", "billed cost of GPU holds (jobs, replicas) that ended in the window"},
    {"gpu_hours_used", "GPU-h", "GPU-hours running jobs or serving requests in the window"},
    {"gpu_hours_billed", "GPU-h", "GPU-hours billed, increments and minimums applied"},
    {"gpu_hours_lost", "GPU-h", "run time lost to preemptions (work not saved, idle notice)"},
    {"gpu_hours_checkpointing", "GPU-h", "GPU-hours spent writing checkpoints"},
    {"gpu_hours_restarting", "GPU-h", "GPU-hours spent restoring after preemptions"},
    {"gpu_hours_transferring", "GPU-h", "GPU-hours spent fetching data from another region"},
    {"egress", "USD", "data egress charges (included in cost)"},
    {"utilization", "fraction", "GPU-hours used / (total quota x window)"},
    {"jobs_arrived", "jobs", "jobs that arrived in the window", MetricGroup::jobs},
    {"jobs_started", "jobs", "jobs of the window that started running", MetricGroup::jobs},
    {"jobs_completed", "jobs", "jobs of the window that finished before the horizon",
     MetricGroup::jobs},
    {"jobs_dropped", "jobs", "jobs dropped because the waiting room was full", MetricGroup::jobs},
    {"drop_fraction", "fraction", "jobs dropped / jobs arrived", MetricGroup::jobs,
     "a job arrived in the window"},
    {"jobs_late", "jobs", "jobs of the window that finished after their deadline",
     MetricGroup::jobs},
    {"preemptions", "runs", "runs ended by a preemption in the window"},
    {"launch_failures", "launches", "launches that failed for a stockout in the window"},
    {"wait_probability", "fraction", "share of launched jobs that queued (wait > 0)",
     MetricGroup::jobs, "a job of the window launched"},
    {"wait_mean", "s", "mean time in the queue, from arrival to launch", MetricGroup::jobs,
     "a job of the window launched"},
    {"wait_p50", "s", "median wait (exact up to 64 jobs, else within 0.39%)", MetricGroup::jobs,
     "a job of the window launched"},
    {"wait_p95", "s", "95th percentile of wait", MetricGroup::jobs, "a job of the window launched"},
    {"wait_p99", "s", "99th percentile of wait", MetricGroup::jobs, "a job of the window launched"},
    {"provisioning_mean", "s", "mean delay from launch to running, of started jobs",
     MetricGroup::jobs, "a job of the window started"},
    {"completion_mean", "s", "mean time from arrival to finish", MetricGroup::jobs,
     "a job of the window completed"},
    {"completion_p50", "s", "median completion time", MetricGroup::jobs,
     "a job of the window completed"},
    {"completion_p95", "s", "95th percentile of completion time", MetricGroup::jobs,
     "a job of the window completed"},
    {"completion_p99", "s", "99th percentile of completion time", MetricGroup::jobs,
     "a job of the window completed"},
    {"queue_length_mean", "jobs", "time-average number of jobs waiting", MetricGroup::jobs},
    {"jobs_running_mean", "jobs", "time-average number of jobs holding GPUs", MetricGroup::jobs},
    {"requests_arrived", "requests", "inference requests that arrived in the window",
     MetricGroup::inference},
    {"requests_served", "requests", "requests of the window whose service began",
     MetricGroup::inference},
    {"requests_dropped", "requests", "requests dropped because the waiting room was full",
     MetricGroup::inference},
    {"latency_mean", "s", "mean request latency: network round trip + wait + service",
     MetricGroup::inference, "a request of the window was served"},
    {"latency_p50", "s", "median request latency", MetricGroup::inference,
     "a request of the window was served"},
    {"latency_p95", "s", "95th percentile of request latency", MetricGroup::inference,
     "a request of the window was served"},
    {"latency_p99", "s", "99th percentile of request latency", MetricGroup::inference,
     "a request of the window was served"},
    {"slo_violation_share", "fraction",
     "requests slower than their SLO or dropped / requests arrived (services with an SLO)",
     MetricGroup::inference, "a request to a service with an SLO arrived in the window"},
    {"cold_starts", "starts", "replica starts (autoscaler scale-ups) in the window",
     MetricGroup::inference},
    {"cold_start_share", "fraction", "share of served requests that waited for a starting replica",
     MetricGroup::inference, "a request of the window was served"},
    {"replicas_mean", "replicas", "time-average replicas up (starting or warm)",
     MetricGroup::inference},
    {"cost_per_1000_requests", "USD", "cost of the inference pools per 1000 requests served",
     MetricGroup::inference, "a request of the window was served"},
    {"replica_preemptions", "replicas", "replica lifetimes ended by a preemption in the window",
     MetricGroup::inference},
    {"requests_restarted", "requests",
     "requests of the window whose service restarted after their replica was preempted",
     MetricGroup::inference},
    {"request_wait_mean", "s",
     "mean time a served request queued: arrival to the start of its service (cold starts and "
     "restarts included)",
     MetricGroup::inference, "a request of the window was served"},
    {"request_wait_p50", "s", "median request wait", MetricGroup::inference,
     "a request of the window was served"},
    {"request_wait_p95", "s", "95th percentile of request wait", MetricGroup::inference,
     "a request of the window was served"},
    {"request_wait_p99", "s", "99th percentile of request wait", MetricGroup::inference,
     "a request of the window was served"},
    {"instance_hours_demanded", "instance-h",
     "instance-hours deployments demanded: instances alive (arrived, lifetime not over)",
     MetricGroup::deployments},
    {"instance_hours_served", "instance-h",
     "instance-hours served: instances running past their startup", MetricGroup::deployments},
    {"instance_hours_unserved", "instance-h", "instance-hours demanded but not served",
     MetricGroup::deployments},
    {"instance_hours_waiting", "instance-h",
     "unserved instance-hours before an instance's first launch (waiting for capacity)",
     MetricGroup::deployments},
    {"instance_hours_down", "instance-h",
     "unserved instance-hours after an instance's first launch (provisioning, startup, reclaimed "
     "until it serves again)",
     MetricGroup::deployments},
    {"unserved_fraction", "fraction", "instance-hours unserved / instance-hours demanded",
     MetricGroup::deployments, "an instance was alive in the window"},
    {"interruptions", "runs", "instance runs reclaimed in the window", MetricGroup::deployments},
    {"instances_dropped", "instances",
     "instances dropped because the waiting room was full (their hours are unserved)",
     MetricGroup::deployments},
    {"restore_mean", "s", "mean time from a reclaim until the instance serves again",
     MetricGroup::deployments, "an instance reclaimed in the window served again"},
    {"restore_p50", "s", "median time to restore", MetricGroup::deployments,
     "an instance reclaimed in the window served again"},
    {"restore_p95", "s", "95th percentile of time to restore", MetricGroup::deployments,
     "an instance reclaimed in the window served again"},
    {"restore_p99", "s", "99th percentile of time to restore", MetricGroup::deployments,
     "an instance reclaimed in the window served again"},
    {"instances_served_mean", "instances",
     "time-average instances served (instance-hours served / window hours)",
     MetricGroup::deployments},
    {"instances_peak", "instances", "most deployment instances holding GPUs at once in the window",
     MetricGroup::deployments},
    {"cost_on_demand", "USD", "billed cost of the on-demand pools, egress included",
     MetricGroup::cost_by_option},
    {"cost_spot", "USD", "billed cost of the spot (preemptible) pools, egress included",
     MetricGroup::cost_by_option},
    {"cost_reserved", "USD", "cost of the reserved pools' committed GPUs, egress included",
     MetricGroup::cost_by_option},
    {"cost_owned", "USD", "cost of the owned pools (amortized capex + opex), egress included",
     MetricGroup::cost_by_option},
    {"cost_marketplace", "USD", "billed cost of the marketplace pools, egress included",
     MetricGroup::cost_by_option},
    {"cost_serverless", "USD",
     "billed cost of the serverless pools (replica lifetimes), egress "
     "included",
     MetricGroup::cost_by_option},
    {"cost_commitments", "USD",
     "fees of the billing commitments (commitments:) for the window, used or not; the "
     "on-demand usage they pay for is left out of cost_on_demand",
     MetricGroup::cost_by_option},
    {"queue_length_drift", "jobs",
     "time-average jobs waiting over the second half of the window minus over the first half "
     "(about 0 in a steady state; above it while the queue still grows)",
     MetricGroup::jobs},
    {"ttft_mean", "s",
     "mean time to first token of LLM requests: network round trip + arrival to the first token",
     MetricGroup::llm, "an LLM request of the window ended"},
    {"ttft_p50", "s", "median time to first token", MetricGroup::llm,
     "an LLM request of the window ended"},
    {"ttft_p95", "s", "95th percentile of time to first token", MetricGroup::llm,
     "an LLM request of the window ended"},
    {"ttft_p99", "s", "99th percentile of time to first token", MetricGroup::llm,
     "an LLM request of the window ended"},
    {"tpot_mean", "s",
     "mean time per output token after the first: (end - first token) / (output tokens - 1)",
     MetricGroup::llm, "an LLM request of the window with 2 or more output tokens ended"},
    {"tpot_p50", "s", "median time per output token", MetricGroup::llm,
     "an LLM request of the window with 2 or more output tokens ended"},
    {"tpot_p95", "s", "95th percentile of time per output token", MetricGroup::llm,
     "an LLM request of the window with 2 or more output tokens ended"},
    {"tpot_p99", "s", "99th percentile of time per output token", MetricGroup::llm,
     "an LLM request of the window with 2 or more output tokens ended"},
    {"output_tokens_per_s", "tokens/s",
     "output tokens of the LLM requests of the window that ended, per second of the window",
     MetricGroup::llm, "an LLM service exists"},
    {"goodput_share", "fraction",
     "LLM requests that ended meeting both llm.slo bounds (TTFT and TPOT) / LLM requests arrived",
     MetricGroup::llm, "an LLM request arrived in the window"},
    {"kv_cache_utilization", "fraction",
     "time-average KV-cache blocks held / KV-cache blocks of the warm LLM replicas",
     MetricGroup::llm, "an LLM replica was warm in the window"},
    {"llm_preemptions", "preemptions",
     "LLM requests whose KV cache was dropped (a full cache, or a reclaimed replica) in the "
     "window; each recomputes it",
     MetricGroup::llm, "an LLM service exists"},
    {"recomputed_tokens", "tokens", "tokens whose KV was dropped by those preemptions",
     MetricGroup::llm, "an LLM service exists"},
    {"cost_per_million_tokens", "USD",
     "cost of the LLM services' pools per million output tokens of the window's ended requests",
     MetricGroup::llm, "an LLM request of the window ended"},
    {"events", "events", "events processed in the whole run"},
};

inline constexpr MetricInfo kPoolMetricInfo[kPoolMetricCount] = {
    {"cost", "USD", "billed cost of the pool, egress included"},
    {"gpu_hours_used", "GPU-h", "GPU-hours spent running jobs"},
    {"gpu_hours_billed", "GPU-h", "GPU-hours billed"},
    {"utilization", "fraction",
     "GPU-hours used / (quota x window); for a pool that runs inference replicas, GPU-hours "
     "used / GPU-hours of replicas up"},
    {"jobs_started", "jobs",
     "jobs of the window started in the pool; a deployment's instances: their starts in the "
     "window (restarts after an interruption included; not the state's instances already "
     "running on the pool they name at t = 0)"},
    {"preemptions", "runs", "runs (and replica lifetimes) in the pool ended by a preemption"},
    {"launch_failures", "launches", "launches in the pool that failed for a stockout"},
    {"egress", "USD", "egress of data fetched into the pool (included in its cost)"},
    {"gpu_hours_up", "GPU-h",
     "GPU-hours of inference replicas up (starting or warm) in the pool; 0 in a pool of jobs"},
    {"utilization_of_quota", "fraction", "GPU-hours used / (quota x window), every pool"},
    {"instance_hours_served", "instance-h",
     "instance-hours of deployments served in the pool; 0 in a pool without deployments"},
};

}  // namespace gpucap
