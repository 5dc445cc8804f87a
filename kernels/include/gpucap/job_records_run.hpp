// gpucap: the per-job records of a run (scenario key `records.jobs`), added to its results.
#pragma once
#include <cstdint>
#include <vector>

#include "gpucap/results.hpp"
#include "gpucap/scenario.hpp"

namespace gpucap {

/// The most job records one run may keep (about 72 bytes each in memory and in the file).
inline constexpr uint64_t kMaxJobRecords = 10000000;

/// Fills r.jobs with every job of the first min(points[0].record_jobs, r.replications)
/// replications of each point, simulated again on the host, and checks that each replication's
/// scalar row is the one the run produced, bit for bit (RunError otherwise: a bug). Nothing when
/// record_jobs is 0. Throws std::invalid_argument, before recording, when the records would
/// exceed kMaxJobRecords (estimated from the run's own jobs_arrived, scaled to the whole horizon
/// when there is a warm-up). Runs on the run's `threads` CPU threads (0: all), checked first
/// (ensure_threads_can_start).
void add_job_records(RunResults& r, const std::vector<Scenario>& points, int threads = 0);

}  // namespace gpucap
