// gpucap: the per-job records of one replication (scenario key `records.jobs`), on the host.
//
//   std::vector<double> row(kScalarMetricCount);
//   std::vector<JobRecord> jobs = record_replication_jobs(model, seed, r, point, row.data());
//
// The replication is simulated again with a JobRecorder watching the engine: its results
// depend on (model, seed, r) alone, so `scalars` receives exactly the row any backend wrote for
// it (callers check that, bit for bit), and the run itself never pays for the records.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "gpucap/compiled_model.hpp"
#include "gpucap/engine/job_recorder.hpp"
#include "gpucap/engine/replication_engine.hpp"
#include "gpucap/job_record.hpp"
#include "gpucap/metrics.hpp"
#include "gpucap/replication.hpp"

namespace gpucap {

/// Every job of replication `replication` of `model` (point `point` of the run), by arrival
/// order; `scalars` receives its kScalarMetricCount metrics. Returns the engine's status in
/// `*status` (kReplicationOk unless the calendar overflowed, a bug). `rows` (the file rows of the
/// model's trace and state at t = 0, or nullptr) gives each job from a file its row there.
inline std::vector<JobRecord> record_replication_jobs(const CompiledModel& model, uint64_t seed,
                                                      uint64_t replication, uint64_t point,
                                                      double* scalars, int* status,
                                                      const engine::SourceRows* rows = nullptr) {
  const engine::ArenaLayout layout = engine::ArenaLayout::of(model);
  const std::unique_ptr<uint64_t[]> arena(new uint64_t[(layout.total_bytes + 7) / 8]);
  std::vector<double> pool_values(static_cast<std::size_t>(model.pool_count) * kPoolMetricCount);
  std::vector<double> series(static_cast<std::size_t>(model.pool_count) * model.timeseries_bins);
  engine::JobRecorder recorder(point, replication, layout.slot_capacity, rows);
  engine::BasicReplicationEngine<engine::JobRecorder> engine(
      model, seed, replication, arena.get(), scalars, pool_values.data(),
      series.empty() ? nullptr : series.data(), &recorder);
  *status = engine.run();
  return std::move(recorder.jobs());
}

}  // namespace gpucap
