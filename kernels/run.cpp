// gpucap: compile a scenario, run its replications on a backend, summarize.
#include "gpucap/run.hpp"

#include <chrono>

#include "gpucap/compile.hpp"
#include "gpucap/progress.hpp"
#include "gpucap/version.hpp"

namespace gpucap {

RunResults run(const Scenario& scenario, const RunOptions& options) {
  const DeviceBackend* device = resolve_backend(options.backend);
  const ModelStorage storage = compile(scenario);

  RunResults r;
  r.gpucap_version = kVersion;
  r.scenario_name = scenario.name;
  r.scenario_text = scenario.source_text;
  r.seed = options.has_seed ? options.seed : scenario.seed;
  r.replications = options.replications > 0 ? options.replications : scenario.replications;
  for (const PoolSpec& p : scenario.pools) r.pool_names.push_back(p.name);
  r.scalars.assign(r.replications * kScalarMetricCount, 0.0);
  r.pool_values.assign(r.replications * r.pool_count() * kPoolMetricCount, 0.0);

  ReplicationTask task;
  task.models = &storage;
  task.points = 1;
  task.seed = r.seed;
  task.count = r.replications;
  task.scalars = r.scalars.data();
  task.pool_values = r.pool_values.data();

  const auto start = std::chrono::steady_clock::now();
  {
    ProgressBar bar(r.replications, "replications", options.progress);
    task.progress = &bar;
    if (device) {
      r.block_moments.assign(r.points * ((r.replications + kMomentBlock - 1) / kMomentBlock) *
                                 r.moment_columns(),
                             Moments{});
      task.block_moments = r.block_moments.data();
      const DeviceRunStats stats = device->run(task, options.device_limits);
      r.backend = device->name;
      r.device = stats.device;
      r.threads = static_cast<int>(stats.workers);
    } else {
      r.backend = cpu_backend_name();
      r.threads = resolve_thread_count(options.threads);
      r.device = "host, " + std::to_string(r.threads) + " threads";
      run_replications_cpu(task, r.threads);
    }
    bar.finish();
  }
  r.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.summarize_all();
  return r;
}

}  // namespace gpucap
