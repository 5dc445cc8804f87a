// gpucap benchmark: the scenarios it measures, by name.
//
//   mmc                         M/M/8 at utilization 0.9 (lambda 7.2/h, mean run 1 h, 2000 h): the
//                               model of the reference loop (reference_mmc.hpp)
//   default, spot_training, spot_availability_failover, spot_price_risk, checkpoint_validation,
//   serverless_vs_dedicated     the shipped scenarios of those names (scenarios/*.yaml)
//   classes_1, classes_16, classes_64
//                               mmc's load split over 1, 16, 64 job classes (same pool)
//   pools_1, pools_32           mmc's pool repeated 1 or 32 times (8 GPUs each), one class placed
//                               first-fit over them, the arrival rate x pools and the horizon /
//                               pools (the same load per GPU and events per replication)
//
// classes_1 and pools_1 are mmc written by the generators of their series, so that each series
// is measured from its own first point.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "gpucap/scenario.hpp"

namespace gpucap::bench {

struct BenchScenario {
  std::string name;
  std::string what;  ///< a short description for the table
  /// Loads it; `scenarios_dir` is the checkout's scenarios/ folder (with the trailing slash).
  Scenario (*load)(const std::string& scenarios_dir, const std::string& name);
  uint64_t all_threads_batch;  ///< --device mode: replications per CPU batch on all threads
  uint64_t device_batch;       ///< --device mode: largest device batch; 0: not run on the device
};

/// Every benchmarked scenario, in the order measured.
const std::vector<BenchScenario>& bench_scenarios();

/// The text of the M/M/8 scenario (`mmc`).
const char* mmc_scenario_text();

}  // namespace gpucap::bench
