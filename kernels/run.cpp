// gpucap: compile a scenario, run its replications on a backend, summarize.
#include "gpucap/run.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "gpucap/compile.hpp"
#include "gpucap/input_file.hpp"
#include "gpucap/job_records_run.hpp"
#include "gpucap/memory_estimate.hpp"
#include "gpucap/progress.hpp"
#include "gpucap/replication.hpp"
#include "gpucap/stopping_rule.hpp"
#include "gpucap/version.hpp"

namespace gpucap {

RunResults run(const Scenario& scenario, const RunOptions& options) {
  return run_points({scenario}, {}, scenario, options);
}

RunResults describe_run(const std::vector<Scenario>& points,
                        const std::vector<SweepParameter>& sweep, const Scenario& base,
                        const RunOptions& options) {
  if (points.empty()) throw std::invalid_argument("run_points: no points");
  if (options.replications > kMaxReplications)
    throw std::invalid_argument("replications must be from 1 to " +
                                std::to_string(kMaxReplications) + ", got " +
                                std::to_string(options.replications));
  const Scenario& first = points.front();
  for (std::size_t p = 1; p < points.size(); ++p) {
    bool same = points[p].pools.size() == first.pools.size();
    for (std::size_t k = 0; same && k < first.pools.size(); ++k)
      same = points[p].pools[k].name == first.pools[k].name;
    if (!same)
      throw std::invalid_argument("sweep point " + std::to_string(p) +
                                  " has other pools than point 0; a sweep may change pools' "
                                  "settings but not which pools there are");
  }
  for (const SweepParameter& parameter : sweep)
    if (parameter.path == "seed" || parameter.path == "replications")
      throw std::invalid_argument(
          "a sweep cannot vary '" + parameter.path +
          "': every point runs the same replications with the same random numbers; give "
          "them with the run's replications and seed options instead");
  for (std::size_t p = 1; p < points.size(); ++p)
    if ((!options.has_seed && points[p].seed != first.seed) ||
        (options.replications == 0 && points[p].replications != first.replications))
      throw std::invalid_argument("sweep point " + std::to_string(p) +
                                  " has another seed or replication count than point 0; a "
                                  "sweep's points share both");
  for (const SweepParameter& parameter : sweep)
    if (parameter.values.size() != points.size())
      throw std::invalid_argument("sweep parameter " + parameter.path + " has " +
                                  std::to_string(parameter.values.size()) + " values for " +
                                  std::to_string(points.size()) + " points");
  // The time series' bins must line up across points.
  for (std::size_t p = 1; p < points.size(); ++p)
    if (points[p].timeseries_bins() != first.timeseries_bins() ||
        points[p].timeseries_step_s != first.timeseries_step_s)
      throw std::invalid_argument("sweep point " + std::to_string(p) +
                                  " records another time series than point 0 (timeseries.step "
                                  "or horizon differ); a sweep must keep them");
  for (std::size_t p = 1; p < points.size(); ++p)
    if (!same_goals(points[p].goals, first.goals))
      throw std::invalid_argument("sweep point " + std::to_string(p) +
                                  " has other goals than point 0; a sweep may not change goals "
                                  "(their names, conditions or targets)");
  RunResults r;
  r.gpucap_version = kVersion;
  r.goals = first.goals;
  r.timeseries_step_s = first.timeseries_step_s;
  r.timeseries_bins = static_cast<std::size_t>(first.timeseries_bins());
  r.scenario_name = first.name;
  r.scenario_text = base.source_text;
  r.scenario_original_text = base.original_text;
  r.scenario_overrides = base.overrides;
  r.input_files = base.input_files;
  for (const Scenario& point : points)
    r.input_files.insert(r.input_files.end(), point.input_files.begin(), point.input_files.end());
  r.data_files = base.data_files;
  for (const Scenario& point : points) merge_data_file_records(r.data_files, point.data_files);
  r.seed = options.has_seed ? options.seed : first.seed;
  r.points = points.size();
  r.replications = options.replications > 0 ? options.replications : first.replications;
  r.first_replication = options.first_replication;
  r.sweep = sweep;
  for (const PoolSpec& p : first.pools) r.pool_names.push_back(p.name);
  return r;
}

RunResults run_points(const std::vector<Scenario>& points, const std::vector<SweepParameter>& sweep,
                      const Scenario& base, const RunOptions& options) {
  RunResults r;
  if (options.precision != 0) {
    r = run_to_precision(points, sweep, base, options);
  } else {
    if (!options.precision_metrics.empty() || options.max_replications != 0)
      throw std::invalid_argument("precision metrics and max replications apply only with a "
                                  "precision (the stopping rule)");
    r = run_points_fixed(points, sweep, base, options);
  }
  add_job_records(r, points);  // after the run: it neither slows nor changes it
  return r;
}

RunResults run_points_fixed(const std::vector<Scenario>& points,
                            const std::vector<SweepParameter>& sweep, const Scenario& base,
                            const RunOptions& options) {
  RunResults r = describe_run(points, sweep, base, options);
  if (options.threads < 0 || options.threads > kMaxThreads)
    throw std::invalid_argument("threads must be from 0 (all cores) to " +
                                std::to_string(kMaxThreads) + ", got " +
                                std::to_string(options.threads));
  const Backend& backend = resolve_backend(options.backend);
  const bool on_device = backend.kind == BackendKind::device;
  std::vector<ModelStorage> models;
  models.reserve(points.size());
  for (const Scenario& point : points) models.push_back(compile(point));
  {
    // Refuse before allocating what does not fit (a device backend holds the same host rows).
    uint64_t arena_bytes = 0;
    for (const ModelStorage& m : models)
      arena_bytes = std::max<uint64_t>(arena_bytes, replication_arena_bytes(m.model()));
    const int threads = on_device ? 0 : resolve_thread_count(options.threads);
    const MemoryEstimate estimate =
        estimate_run_memory(r.points, r.replications, r.pool_count(), r.timeseries_bins,
                            arena_bytes, static_cast<uint64_t>(threads), options.writes_file);
    const uint64_t available = available_host_memory_bytes();
    if (estimate.total_bytes() > available)
      throw std::invalid_argument(
          std::to_string(r.points * r.replications) + " replications need about " +
          estimate.describe() + ", more than the " + format_bytes(available) +
          " of memory available; run fewer replications (-r; or fewer sweep points, threads or "
          "time-series bins), or split the run (first_replication)");
  }
  r.scalars.assign(r.points * r.replications * kScalarMetricCount, 0.0);
  r.pool_values.assign(r.points * r.replications * r.pool_count() * kPoolMetricCount, 0.0);
  r.timeseries.assign(r.points * r.replications * r.pool_count() * r.timeseries_bins, 0.0);

  ReplicationTask task;
  task.models = models.data();
  task.points = models.size();
  task.seed = r.seed;
  task.first = r.first_replication;
  task.count = r.replications;
  task.scalars = r.scalars.data();
  task.pool_values = r.pool_values.data();
  task.timeseries = r.timeseries_bins > 0 ? r.timeseries.data() : nullptr;
  task.monitor = options.monitor;

  const auto start = std::chrono::steady_clock::now();
  {
    ProgressBar bar(r.points * r.replications, "replications", options.progress);
    task.progress = &bar;
    // The device reduces the summary's moments when its blocks line up with the host's.
    if (on_device && task.first % kMomentBlock == 0) {
      r.block_moments.assign(
          r.points * ((r.replications + kMomentBlock - 1) / kMomentBlock) * r.moment_columns(),
          Moments{});
      task.block_moments = r.block_moments.data();
    }
    DeviceLimits limits = options.device_limits;
    if (!on_device) limits.workers = static_cast<uint64_t>(options.threads);
    const DeviceRunStats stats = backend.run(task, limits);
    r.backend = backend.label;
    r.device = stats.device;
    r.threads = static_cast<int>(stats.workers);
    bar.finish();
  }
  r.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // The summaries on the run's CPU threads (a device run: every core).
  r.summarize_all(on_device ? 0u : static_cast<unsigned>(resolve_thread_count(options.threads)));
  return r;
}

}  // namespace gpucap
