// gpucap benchmark: the scenarios it measures (see bench_scenarios.hpp).
#include "bench_scenarios.hpp"

#include "gpucap/scenario_loader.hpp"

namespace gpucap::bench {

namespace {

// M/M/8 at utilization 0.9: lambda = 7.2 per hour, mean run time 1 hour.
const char* kMmc = R"(name: bench M/M/8 rho 0.9
horizon: 2000h
pools:
  gpus: {gpu: H100, price_usd_per_gpu_hour: 2.0, quota: 8}
workloads:
  - name: jobs
    arrivals: {process: poisson, rate_per_hour: 7.2}
    work: {dist: exponential, mean: 1h}
policy: {queue_capacity: 2000}  # keeps the arena small (a few KiB per replication) for GPU occupancy
)";

Scenario load_mmc(const std::string&, const std::string& name) {
  return parse_scenario(kMmc, "bench-" + name, ".");
}

Scenario load_shipped(const std::string& dir, const std::string& name) {
  return load_scenario(dir + name + ".yaml");
}

/// mmc's load (7.2 jobs/h of 1 h on 8 GPUs) split evenly over `classes` job classes.
Scenario load_classes(const std::string&, const std::string& name) {
  const int classes = std::stoi(name.substr(name.find('_') + 1));
  std::string text = "name: bench M/M/8 rho 0.9, " + std::to_string(classes) +
                     " job classes\n"
                     "horizon: 2000h\n"
                     "pools:\n  gpus: {gpu: H100, price_usd_per_gpu_hour: 2.0, quota: 8}\n"
                     "policy: {queue_capacity: 2000}\n"
                     "workloads:\n";
  for (int c = 0; c < classes; ++c)
    text += "  - name: jobs" + std::to_string(c) +
            "\n    arrivals: {process: poisson, rate_per_hour: " + std::to_string(7.2 / classes) +
            "}\n    work: {dist: exponential, mean: 1h}\n";
  return parse_scenario(text, "bench-" + name, ".");
}

/// mmc's pool `pools` times, one class placed first-fit over them (no placement: all pools in
/// order), rate x pools and horizon / pools: utilization 0.9 and about 28,800 events per
/// replication at every size.
Scenario load_pools(const std::string&, const std::string& name) {
  const int pools = std::stoi(name.substr(name.find('_') + 1));
  std::string text = "name: bench M/M/" + std::to_string(8 * pools) + " rho 0.9 over " +
                     std::to_string(pools) + " pools\n" +
                     "horizon: " + std::to_string(2000.0 / pools) + "h\n" +
                     "policy: {queue_capacity: 2000}\n" + "pools:\n";
  for (int p = 0; p < pools; ++p)
    text += "  gpus" + std::to_string(p) + ": {gpu: H100, price_usd_per_gpu_hour: 2.0, quota: 8}\n";
  text += "workloads:\n  - name: jobs\n    arrivals: {process: poisson, rate_per_hour: " +
          std::to_string(7.2 * pools) + "}\n    work: {dist: exponential, mean: 1h}\n";
  return parse_scenario(text, "bench-" + name, ".");
}

}  // namespace

const char* mmc_scenario_text() { return kMmc; }

const std::vector<BenchScenario>& bench_scenarios() {
  static const std::vector<BenchScenario> table = {
      {"mmc", "M/M/8, utilization 0.9", &load_mmc, 64, 1 << 20},
      {"default", "3 clouds, 2 classes (the full model)", &load_shipped, 64, 1 << 19},
      {"spot_training", "checkpointed training on spot", &load_shipped, 256, 1 << 20},
      {"spot_availability_failover", "trace-driven spot failover", &load_shipped, 256, 1 << 20},
      {"spot_price_risk", "mean-reverting spot prices", &load_shipped, 256, 1 << 18},
      {"checkpoint_validation", "one checkpointed job", &load_shipped, 4096, 1 << 20},
      {"serverless_vs_dedicated", "inference, serverless, daily", &load_shipped, 2, 1 << 15},
      {"classes_1", "mmc as 1 class", &load_classes, 64, 0},
      {"classes_16", "mmc split over 16 classes", &load_classes, 64, 0},
      {"classes_64", "mmc split over 64 classes", &load_classes, 64, 0},
      {"pools_1", "mmc's pool x1", &load_pools, 64, 0},
      {"pools_32", "mmc's pool x32, first fit", &load_pools, 64, 0},
  };
  return table;
}

}  // namespace gpucap::bench
