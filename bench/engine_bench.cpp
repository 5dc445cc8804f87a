// gpucap benchmark: events per second of the CPU backend on M/M/c, the default multi-pool
// scenario and the spot scenarios, with 1 thread and with all threads.
//
//   build/cpu-release/bench/engine_bench [--min-seconds S]
//
// Each measurement repeats batches of replications until at least S seconds (default 2) have run
// and reports the best batch (least disturbed by other load). Events are calendar events
// (arrivals, run starts after provisioning, completions).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "gpucap/compile.hpp"
#include "gpucap/run.hpp"
#include "gpucap/scenario_loader.hpp"

namespace {

// M/M/8 at utilization 0.9: lambda = 7.2 per hour, mean run time 1 hour.
const char* kMmc = R"(
name: bench M/M/8 rho 0.9
horizon: 2000h
pools:
  gpus: {gpu: H100, price_usd_per_gpu_hour: 2.0, quota: 8}
workloads:
  - name: jobs
    arrivals: {process: poisson, rate_per_hour: 7.2}
    work: {dist: exponential, mean: 1h}
policy: {queue_capacity: 100000}
)";

struct Measurement {
  double events_per_s;
  double replications_per_s;
};

Measurement measure(const gpucap::CompiledModel& model, int threads, uint64_t batch,
                    double min_seconds) {
  std::vector<double> scalars(batch * gpucap::kScalarMetricCount);
  std::vector<double> pools(batch * model.pool_count * gpucap::kPoolMetricCount);
  Measurement best{0, 0};
  double spent = 0;
  uint64_t first = 0;
  while (spent < min_seconds) {
    const auto t0 = std::chrono::steady_clock::now();
    gpucap::run_replications_cpu(model, 1, first, batch, threads, scalars.data(), pools.data(),
                                 nullptr);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    double events = 0;
    for (uint64_t i = 0; i < batch; ++i)
      events += scalars[i * gpucap::kScalarMetricCount + gpucap::kEvents];
    best.events_per_s = std::max(best.events_per_s, events / s);
    best.replications_per_s = std::max(best.replications_per_s, batch / s);
    spent += s;
    first += batch;
  }
  return best;
}

void report(const std::string& name, const gpucap::Scenario& scenario, uint64_t batch,
            double min_seconds) {
  const gpucap::ModelStorage storage = gpucap::compile(scenario);
  const int all = gpucap::resolve_thread_count(0);
  const Measurement one = measure(storage.model(), 1, batch, min_seconds);
  const Measurement many = measure(storage.model(), all, batch, min_seconds);
  std::printf("%-28s 1 thread : %8.2f M events/s  %10.1f replications/s\n", name.c_str(),
              one.events_per_s / 1e6, one.replications_per_s);
  std::printf(
      "%-28s %d threads: %8.2f M events/s  %10.1f replications/s  (%.2f M events/s per "
      "core, scaling %.2fx)\n",
      name.c_str(), all, many.events_per_s / 1e6, many.replications_per_s,
      many.events_per_s / 1e6 / all, many.events_per_s / one.events_per_s);
}

}  // namespace

int main(int argc, char** argv) {
  double min_seconds = 2.0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--min-seconds" && i + 1 < argc) {
      min_seconds = std::atof(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: engine_bench [--min-seconds S]\n");
      return 2;
    }
  }
  try {
    std::printf("gpucap engine benchmark (%s backend, best batch of at least %.1f s)\n",
                gpucap::cpu_backend_name().c_str(), min_seconds);
    report("M/M/8 rho=0.9", gpucap::parse_scenario(kMmc, "bench-mmc", "."), 64, min_seconds);
    const std::string scenarios = std::string(GPUCAP_SOURCE_DIR) + "/scenarios/";
    report("default (3 pools, 2 classes)", gpucap::load_scenario(scenarios + "default.yaml"), 64,
           min_seconds);
    report("spot training (checkpoints)", gpucap::load_scenario(scenarios + "spot_training.yaml"),
           256, min_seconds);
    report("trace-driven spot failover",
           gpucap::load_scenario(scenarios + "spot_availability_failover.yaml"), 256, min_seconds);
    report("inference: serverless, daily cycle",
           gpucap::load_scenario(scenarios + "serverless_vs_dedicated.yaml"), 2, min_seconds);
    report("inference: 4 dedicated replicas",
           gpucap::load_scenario(scenarios + "edge_vs_cloud_inference.yaml"), 2, min_seconds);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "engine_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
