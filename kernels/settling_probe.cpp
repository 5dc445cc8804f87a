// gpucap: the settling probe (settling_probe.hpp): a run's first replications simulated again
// on the host with a coarse time series, in parallel.
#include "gpucap/settling_probe.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>
#include <string>

#include "gpucap/compile.hpp"
#include "gpucap/backend.hpp"
#include "gpucap/replication.hpp"
#include "gpucap/metrics.hpp"

namespace gpucap {

void add_settling_probe(RunResults& r, const std::vector<Scenario>& points,
                        const std::atomic<bool>* cancel, int threads) {
  r.settling = SettlingSeries{};
  if (points.empty() || r.timeseries_bins > 0 || r.replications == 0) return;
  // A trace replayed, or a run from today's state, asks about a given period, not a steady
  // state: its "transient" is the data.
  for (const Scenario& point : points)
    for (const JobClassSpec& w : point.workloads)
      if (w.arrivals.kind == ArrivalKind::trace || !w.initial_state.empty() ||
          !w.arrivals.alive_at_start.empty())
        return;
  const double horizon = points.front().horizon_s;
  if (!(horizon > 0)) return;
  // One series layout for every point: a sweep of the horizon is not probed.
  for (const Scenario& point : points)
    if (point.horizon_s != horizon) return;
  const std::size_t n = settling_probe_replications(r.replications);
  if (n == 0) return;
  std::vector<ModelStorage> models;
  models.reserve(points.size());
  for (const Scenario& point : points) {
    Scenario probe = point;
    probe.timeseries_step_s = horizon / static_cast<double>(kSettlingBins);
    probe.timeseries_queue_row = true;
    models.push_back(compile(probe));
  }
  const std::size_t pools = r.pool_count();
  const std::size_t series_bins = models.front().model().timeseries_bins;
  for (const ModelStorage& m : models)
    if (m.model().timeseries_bins != series_bins) return;
  const int64_t items = static_cast<int64_t>(r.points * n);
  std::vector<std::vector<double>> series(static_cast<std::size_t>(items));
  std::vector<int> mismatch(static_cast<std::size_t>(items), 0);
  const int team = resolve_thread_count(threads);
  ensure_threads_can_start(team);
#if defined(_OPENMP)
#pragma omp parallel for num_threads(team) schedule(dynamic, 1)
#endif
  for (int64_t item = 0; item < items; ++item) {
    const std::size_t p = static_cast<std::size_t>(item) / n;
    const std::size_t k = static_cast<std::size_t>(item) % n;
    const CompiledModel& model = models[p].model();
    const std::size_t arena_bytes = replication_arena_bytes(model);
    const std::unique_ptr<uint64_t[]> arena(new (std::nothrow) uint64_t[(arena_bytes + 7) / 8]);
    if (!arena) {  // an exception may not leave the parallel region: the run goes unprobed
      mismatch[static_cast<std::size_t>(item)] = 1;
      continue;
    }
    double row[kScalarMetricCount];
    std::vector<double> pool_values(pools * kPoolMetricCount);
    std::vector<double>& s = series[static_cast<std::size_t>(item)];
    s.assign((pools + 1) * series_bins, 0.0);  // the pools' rows, then jobs waiting
    // Read the cancel flag as the run's own replications do (every 65,536 events); one
    // cancelled replication ends the probe.
    if (cancel && cancel->load(std::memory_order_relaxed)) {
      mismatch[static_cast<std::size_t>(item)] = 1;
      continue;
    }
    const int status =
        cancel ? run_replication_cancellable(model, r.seed, r.first_replication + k, arena.get(),
                                             row, pool_values.data(), s.data(), cancel)
               : run_replication(model, r.seed, r.first_replication + k, arena.get(), row,
                                 pool_values.data(), s.data());
    // Bit for bit (NaN included) when the run kept the row: the probe is of the run's futures.
    mismatch[static_cast<std::size_t>(item)] =
        status != 0 ||
        (k < r.rows_per_point() &&
         std::memcmp(row, &r.scalars[(p * r.rows_per_point() + k) * kScalarMetricCount],
                     sizeof(row)) != 0);
  }
  if (cancel && cancel->load(std::memory_order_relaxed)) throw RunCancelled();
  // A replication the host does not simulate to the run's bits (a device backend that differs
  // from the CPU's on this scenario, docs/backends.md) leaves the run unprobed: a warning must
  // be about the futures the run reports.
  for (int64_t item = 0; item < items; ++item)
    if (mismatch[static_cast<std::size_t>(item)]) return;
  r.settling.replications = n;
  r.settling.step_s = horizon / static_cast<double>(kSettlingBins);
  r.settling.bins = series_bins;
  r.settling.mean_in_use.assign(r.points * series_bins, 0.0);
  r.settling.mean_waiting.assign(r.points * series_bins, 0.0);
  for (std::size_t p = 0; p < r.points; ++p)
    for (std::size_t k = 0; k < n; ++k) {
      for (std::size_t q = 0; q < pools; ++q)
        for (std::size_t b = 0; b < series_bins; ++b)
          r.settling.mean_in_use[p * series_bins + b] +=
              series[p * n + k][q * series_bins + b] / static_cast<double>(n);
      for (std::size_t b = 0; b < series_bins; ++b)
        r.settling.mean_waiting[p * series_bins + b] +=
            series[p * n + k][pools * series_bins + b] / static_cast<double>(n);
    }
}

}  // namespace gpucap
