// A deployment's per-pool starts (pool metric jobs_started): every instance start in the window,
// the state's instances already running on the pool they name at t = 0 left out.
#include <gtest/gtest.h>

#include <string>

#include "gpucap/metrics.hpp"

#include "support/one_replication.hpp"
#include "support/scenario_fixture.hpp"

namespace gpucap {
namespace {

class FleetMetrics : public testing_support::ScenarioFixture {};

// Instances that never end and are never interrupted: each started once, so the pool's starts
// are the peak of instances (all still up at the horizon) less the 3 running on pool g at t = 0.
TEST_F(FleetMetrics, APoolCountsADeploymentsInstanceStarts) {
  write("state.csv", "pool,remaining\ng,\ng,\ng,\n");
  const std::string yaml =
      "name: d\nhorizon: 10h\nseed: 1\npools:\n  g: {gpu: H100, price_usd_per_gpu_hour: 1, "
      "quota: 1000}\nworkloads:\n  - name: fleet\n    kind: deployment\n    gpus: 1\n"
      "    arrivals: {process: poisson, rate_per_hour: 10}\n    lifetime: 1000h\n"
      "    initial_state: {file: state.csv, time_unit: 1h}\n";
  const testing_support::Row r = testing_support::run_once(parse(yaml));
  EXPECT_GT(r.pool(0, kPoolJobsStarted), 50);
  EXPECT_EQ(r.pool(0, kPoolJobsStarted), r[kInstancesPeak] - 3);
}

}  // namespace
}  // namespace gpucap
