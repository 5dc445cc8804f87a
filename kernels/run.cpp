// gpucap: compile a scenario, run its replications on a backend, summarize.
#include "gpucap/run.hpp"

#include <chrono>

#include "gpucap/compile.hpp"
#include "gpucap/progress.hpp"
#include "gpucap/version.hpp"

namespace gpucap {

RunResults run(const Scenario& scenario, const RunOptions& options) {
  const ModelStorage storage = compile(scenario);
  const CompiledModel& model = storage.model();

  RunResults r;
  r.gpucap_version = kVersion;
  r.scenario_name = scenario.name;
  r.scenario_text = scenario.source_text;
  r.backend = cpu_backend_name();
  r.seed = options.has_seed ? options.seed : scenario.seed;
  r.replications = options.replications > 0 ? options.replications : scenario.replications;
  r.threads = resolve_thread_count(options.threads);
  for (const PoolSpec& p : scenario.pools) r.pool_names.push_back(p.name);
  r.scalars.assign(r.replications * kScalarMetricCount, 0.0);
  r.pool_values.assign(r.replications * r.pool_count() * kPoolMetricCount, 0.0);

  const auto start = std::chrono::steady_clock::now();
  {
    ProgressBar bar(r.replications, "replications", options.progress);
    run_replications_cpu(model, r.seed, 0, r.replications, r.threads, r.scalars.data(),
                         r.pool_values.data(), &bar);
    bar.finish();
  }
  r.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.summarize_all();
  return r;
}

}  // namespace gpucap
