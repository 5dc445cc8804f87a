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
  kEvents,           ///< events processed by the calendar in the whole run
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
  kPoolMetricCount
};

struct MetricInfo {
  const char* name;
  const char* unit;
  const char* description;
};

inline constexpr MetricInfo kScalarMetricInfo[kScalarMetricCount] = {
    {"cost", "USD", "billed cost of GPU holds that ended in the window"},
    {"gpu_hours_used", "GPU-h", "GPU-hours spent running jobs in the window"},
    {"gpu_hours_billed", "GPU-h", "GPU-hours billed, increments and minimums applied"},
    {"gpu_hours_lost", "GPU-h", "run time lost to preemptions (work not saved, idle notice)"},
    {"gpu_hours_checkpointing", "GPU-h", "GPU-hours spent writing checkpoints"},
    {"gpu_hours_restarting", "GPU-h", "GPU-hours spent restoring after preemptions"},
    {"gpu_hours_transferring", "GPU-h", "GPU-hours spent fetching data from another region"},
    {"egress", "USD", "data egress charges (included in cost)"},
    {"utilization", "fraction", "GPU-hours used / (total quota x window)"},
    {"jobs_arrived", "jobs", "jobs that arrived in the window"},
    {"jobs_started", "jobs", "jobs of the window that started running"},
    {"jobs_completed", "jobs", "jobs of the window that finished before the horizon"},
    {"jobs_dropped", "jobs", "jobs dropped because the waiting room was full"},
    {"drop_fraction", "fraction", "jobs dropped / jobs arrived"},
    {"jobs_late", "jobs", "jobs of the window that finished after their deadline"},
    {"preemptions", "runs", "runs ended by a preemption in the window"},
    {"launch_failures", "launches", "launches that failed for a stockout in the window"},
    {"wait_probability", "fraction", "share of launched jobs that queued (wait > 0)"},
    {"wait_mean", "s", "mean time in the queue, from arrival to launch"},
    {"wait_p50", "s", "median wait (log-spaced histogram)"},
    {"wait_p95", "s", "95th percentile of wait"},
    {"wait_p99", "s", "99th percentile of wait"},
    {"provisioning_mean", "s", "mean delay from launch to running, of started jobs"},
    {"completion_mean", "s", "mean time from arrival to finish"},
    {"completion_p50", "s", "median completion time"},
    {"completion_p95", "s", "95th percentile of completion time"},
    {"completion_p99", "s", "99th percentile of completion time"},
    {"queue_length_mean", "jobs", "time-average number of jobs waiting"},
    {"jobs_running_mean", "jobs", "time-average number of jobs holding GPUs"},
    {"events", "events", "events processed in the whole run"},
};

inline constexpr MetricInfo kPoolMetricInfo[kPoolMetricCount] = {
    {"cost", "USD", "billed cost of the pool, egress included"},
    {"gpu_hours_used", "GPU-h", "GPU-hours spent running jobs"},
    {"gpu_hours_billed", "GPU-h", "GPU-hours billed"},
    {"utilization", "fraction", "GPU-hours used / (quota x window)"},
    {"jobs_started", "jobs", "jobs of the window started in the pool"},
    {"preemptions", "runs", "runs in the pool ended by a preemption"},
    {"launch_failures", "launches", "launches in the pool that failed for a stockout"},
    {"egress", "USD", "egress of data fetched into the pool (included in its cost)"},
};

}  // namespace gpucap
