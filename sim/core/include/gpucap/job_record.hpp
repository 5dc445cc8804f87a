// gpucap: one job of a replication, as the per-job records (scenario key `records.jobs`) keep
// it. Times are s from the replication's start; a job's id is its arrival order there.
#pragma once
#include <cstdint>

namespace gpucap {

/// One job of a replication, as JobRecorder saw it. Times are s from the replication's start.
struct JobRecord {
  uint64_t point = 0;
  uint64_t replication = 0;
  uint64_t job = 0;             ///< arrival order in the replication, from 0
  uint32_t job_class = 0;       ///< workload index (the scenario's `workloads` order)
  int32_t pool = -1;            ///< pool of its last launch; -1 when it never launched
  uint32_t runs = 0;            ///< runs begun (a launch reclaimed while provisioning is none)
  uint32_t preemptions = 0;     ///< runs reclaimed (preemption, zone event, capacity drop)
  double arrival_s = 0;
  double start_s = 0;           ///< first launch (its GPUs taken); NaN when it never launched
  double end_s = 0;             ///< completion; NaN when not completed by the horizon
  double cost_usd = 0;          ///< what its holds were billed: compute (not committed pools) + egress
  /// The data row of the file it came from (1 = the first data row): its trace row, or its row
  /// of the `initial_state` file or of a deployment's trace when it ran at t = 0; 0 when an
  /// arrival process drew it.
  uint64_t trace_row = 0;  ///< 64 bits: the record has no padding (it is compared bytewise)
};

}  // namespace gpucap
