// gpucap: the per-job records of a run: its first replications simulated again on the host
// with a JobRecorder, in parallel, each checked against the row the backend produced.
#include "gpucap/job_records_run.hpp"

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "gpucap/backend.hpp"
#include "gpucap/compile.hpp"
#include "gpucap/job_records.hpp"
#include "gpucap/metrics.hpp"

namespace gpucap {
namespace {

/// The file rows of the trace rows and of the state at t = 0 of `scenario`, in the order
/// compile() lays them out (workloads in order; a deployment's trace rows that began before the
/// window, then its `initial_state` rows).
engine::SourceRows source_rows(const Scenario& scenario) {
  engine::SourceRows rows;
  for (const JobClassSpec& w : scenario.workloads) {
    for (const TraceRow& t : w.arrivals.trace) rows.trace.push_back(t.row);
    for (const auto* state : {&w.arrivals.alive_at_start, &w.initial_state})
      for (const AliveAtStart& a : *state) rows.initial.push_back(a.row);
  }
  return rows;
}

}  // namespace

void add_job_records(RunResults& r, const std::vector<Scenario>& points, int threads) {
  r.jobs.clear();
  r.job_classes.clear();
  r.job_replications = 0;
  if (points.empty() || points.front().record_jobs == 0) return;
  for (std::size_t p = 1; p < points.size(); ++p)
    if (points[p].record_jobs != points.front().record_jobs)
      throw std::invalid_argument("sweep point " + std::to_string(p) +
                                  " has another records.jobs than point 0; a sweep may not "
                                  "change it");
  const std::size_t n =
      static_cast<std::size_t>(std::min<uint64_t>(points.front().record_jobs, r.rows_per_point()));
  // The memory guard: the run's own job counts (of the statistics window, scaled to the
  // horizon) say how many records there will be.
  double expected = 0;
  for (std::size_t p = 0; p < r.points; ++p) {
    const Scenario& s = points[p];
    const double window_s = s.horizon_s - s.warmup_s;
    const double scale = window_s > 0 ? s.horizon_s / window_s : 1.0;
    for (std::size_t k = 0; k < n; ++k) expected += r.scalar(p, k, kJobsArrived) * scale;
  }
  if (expected > static_cast<double>(kMaxJobRecords))
    throw std::invalid_argument(
        "records.jobs: " + std::to_string(n) + " replication(s) of " + std::to_string(r.points) +
        " point(s) hold about " + std::to_string(static_cast<uint64_t>(std::ceil(expected))) +
        " jobs, more than the " + std::to_string(kMaxJobRecords) +
        " job records a run may keep; record fewer replications (records.jobs)");

  std::vector<ModelStorage> models;
  std::vector<engine::SourceRows> rows;
  models.reserve(points.size());
  for (const Scenario& point : points) {
    models.push_back(compile(point));
    rows.push_back(source_rows(point));
  }
  const int64_t items = static_cast<int64_t>(r.points * n);
  std::vector<std::vector<JobRecord>> parts(static_cast<std::size_t>(items));
  std::vector<int> mismatch(static_cast<std::size_t>(items), 0);
  const int team = resolve_thread_count(threads);
  ensure_threads_can_start(team);
#if defined(_OPENMP)
#pragma omp parallel for num_threads(team) schedule(dynamic, 1)
#endif
  for (int64_t item = 0; item < items; ++item) {
    const std::size_t p = static_cast<std::size_t>(item) / n;
    const std::size_t k = static_cast<std::size_t>(item) % n;
    double row[kScalarMetricCount];
    int status = 0;
    parts[item] = record_replication_jobs(models[p].model(), r.seed, r.first_replication + k, p,
                                          row, &status, &rows[p]);
    const double* ran = &r.scalars[(p * r.rows_per_point() + k) * kScalarMetricCount];
    // Bit for bit (NaN included): the records describe the very replication that ran.
    mismatch[item] = status != 0 || std::memcmp(row, ran, sizeof(row)) != 0;
  }
  for (int64_t item = 0; item < items; ++item)
    if (mismatch[item])
      throw RunError("the job records of replication " +
                     std::to_string(r.first_replication + item % n) + " of point " +
                     std::to_string(item / n) +
                     " came from a simulation whose metrics differ from the run's; this is a "
                     "gpucap bug, please report it");
  std::size_t total = 0;
  for (const auto& part : parts) total += part.size();
  r.jobs.reserve(total);
  for (const auto& part : parts) r.jobs.insert(r.jobs.end(), part.begin(), part.end());
  r.job_replications = n;
  for (const JobClassSpec& w : points.front().workloads) r.job_classes.push_back(w.name);
}

}  // namespace gpucap
