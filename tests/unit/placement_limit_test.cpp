// placement_limit: at most `jobs` jobs of a class at once in one pool of its placement list
// ("k on-demand, the rest spot"). Hand-worked systems with exact times, counts and costs.
// Spot costs 3600 USD per GPU-hour (1 USD per GPU-second), on-demand 7200 (2 USD per
// GPU-second), so costs read as seconds. Jobs come from a trace (all at t = 0), 1 GPU each.
#include <gtest/gtest.h>
#include <string>

#include "gpucap/metrics.hpp"

#include "support/one_replication.hpp"
#include "support/scenario_fixture.hpp"

namespace gpucap {
namespace {

using testing_support::Row;
using testing_support::run_once;

class PlacementLimit : public testing_support::ScenarioFixture {
 protected:
  /// Pools od (quota 4) and spot (quota 1, reclaimed after 100 days: never within the horizon);
  /// pool 0 is od, pool 1 spot. jobs_started counts each job in the pool of its first run.
  std::string yaml(const std::string& durations_csv, const std::string& workload_extra) {
    write("jobs.csv", "submit_s,gpus,duration_s\n" + durations_csv);
    return "name: t\nhorizon: 1d\npools:\n"
           "  od: {gpu: H100, purchase: on_demand, price_usd_per_gpu_hour: 7200, quota: 4}\n"
           "  spot: {gpu: H100, purchase: spot, price_usd_per_gpu_hour: 3600, quota: 1,\n"
           "         preemption: {time_to_preemption: 100d}}\n"
           "workloads:\n  - name: j\n    arrivals: {process: trace, file: jobs.csv}\n" +
           workload_extra;
  }
  Row run(const std::string& durations_csv, const std::string& workload_extra) {
    return run_once(parse(yaml(durations_csv, workload_extra)));
  }
};

// Five jobs at t = 0 of 3000, 1000, 1200, 1000 and 500 s; placement [od, spot], at most 2 on od.
//   t = 0:    J1, J2 on od (2, the limit, though od has 4 GPUs), J3 on spot; J4, J5 wait.
//   t = 1000: J2 completes: J4 on od (2 again); J5 finds od at its limit and spot full: waits.
//   t = 1200: J3 completes on spot: J5 on spot until 1700. J4 ends at 2000, J1 at 3000.
// od: 3 jobs, 3000 + 1000 + 1000 s x 2 USD = 10000 USD; spot: 2 jobs, 1200 + 500 = 1700 USD.
// Mean completion (3000 + 1000 + 1200 + 2000 + 1700) / 5 = 1780 s.
TEST_F(PlacementLimit, KeepsAtMostKJobsOnOnDemandAndTheRestOnSpot) {
  const std::string jobs = "0,1,3000\n0,1,1000\n0,1,1200\n0,1,1000\n0,1,500\n";
  const Row r = run(jobs, "    placement: [od, spot]\n    placement_limit: {pool: od, jobs: 2}\n");
  EXPECT_EQ(r[kJobsCompleted], 5.0);
  EXPECT_EQ(r[kCompletionMeanS], 1780.0);
  EXPECT_EQ(r.pool(0, kPoolJobsStarted), 3.0);
  EXPECT_EQ(r.pool(1, kPoolJobsStarted), 2.0);
  EXPECT_EQ(r.pool(0, kPoolCostUsd), 10000.0);
  EXPECT_EQ(r.pool(1, kPoolCostUsd), 1700.0);
  EXPECT_EQ(r[kCostUsd], 11700.0);
  // Without the limit: J1 to J4 on od at t = 0, J5 on spot; mean (3000 + 1000 + 1200 + 1000 +
  // 500) / 5 = 1340 s; od (3000 + 1000 + 1200 + 1000) x 2 = 12400 USD, spot 500 USD.
  const Row free = run(jobs, "    placement: [od, spot]\n");
  EXPECT_EQ(free[kCompletionMeanS], 1340.0);
  EXPECT_EQ(free.pool(0, kPoolJobsStarted), 4.0);
  EXPECT_EQ(free[kCostUsd], 12900.0);
}

// Spot first, at most 1 job overflowing to od: jobs of 1000, 1500 and 500 s; placement
// [spot, od]. t = 0: J1 on spot, J2 on od (its 1 job), J3 waits though od has 3 GPUs free;
// t = 1000: J1 completes, J3 on spot until 1500. Spot 1000 + 500 USD, od 1500 x 2 USD.
TEST_F(PlacementLimit, SpotFirstWithABoundedOnDemandOverflow) {
  const Row r = run("0,1,1000\n0,1,1500\n0,1,500\n",
                    "    placement: [spot, od]\n    placement_limit: {pool: od, jobs: 1}\n");
  EXPECT_EQ(r[kJobsCompleted], 3.0);
  EXPECT_DOUBLE_EQ(r[kCompletionMeanS], 4000.0 / 3.0);
  EXPECT_EQ(r.pool(0, kPoolJobsStarted), 1.0);
  EXPECT_EQ(r.pool(1, kPoolJobsStarted), 2.0);
  EXPECT_EQ(r.pool(0, kPoolCostUsd), 3000.0);
  EXPECT_EQ(r.pool(1, kPoolCostUsd), 1500.0);
}

// A reclaimed job frees its place under the limit: spot reclaims every run after 600 s and
// od is limited to 1 job. J1 (1000 s) runs on od, J2 (1000 s, no checkpoints) on spot, is
// reclaimed at 600 s and, od being at its limit, relaunches on spot at once (600-1200 s), is
// reclaimed again; J1 completed at 1000 s, so at 1200 s J2 goes to od (the place J1 freed) and
// completes at 2200 s. od: 2 runs, 2000 s x 2 USD; spot: 2 runs, 1200 USD.
TEST_F(PlacementLimit, AReclaimedOrCompletedJobFreesItsPlace) {
  write("jobs.csv", "submit_s,gpus,duration_s\n0,1,1000\n0,1,1000\n");
  const Row r = run_once(parse(
      "name: t\nhorizon: 1d\npools:\n"
      "  od: {gpu: H100, purchase: on_demand, price_usd_per_gpu_hour: 7200, quota: 4}\n"
      "  spot:\n    gpu: H100\n    purchase: spot\n    price_usd_per_gpu_hour: 3600\n"
      "    quota: 1\n    preemption: {time_to_preemption: 600s}\n"
      "workloads:\n  - name: j\n    arrivals: {process: trace, file: jobs.csv}\n"
      "    placement: [od, spot]\n    placement_limit: {pool: od, jobs: 1}\n"));
  EXPECT_EQ(r[kJobsCompleted], 2.0);
  EXPECT_EQ(r[kPreemptions], 2.0);
  EXPECT_EQ(r[kCompletionMeanS], (1000.0 + 2200.0) / 2.0);
  EXPECT_EQ(r.pool(0, kPoolJobsStarted), 1.0);  // J1 (J2 first ran on spot)
  EXPECT_EQ(r.pool(1, kPoolJobsStarted), 1.0);
  EXPECT_EQ(r.pool(1, kPoolPreemptions), 2.0);
  EXPECT_EQ(r.pool(0, kPoolCostUsd), 4000.0);
  EXPECT_EQ(r.pool(1, kPoolCostUsd), 1200.0);
}

TEST_F(PlacementLimit, BadLimitsAreClearErrors) {
  const std::string jobs = "0,1,100\n";
  const auto expect = [&](const std::string& extra, const std::string& message) {
    const std::string error = error_of(yaml(jobs, extra));
    EXPECT_NE(error.find(message), std::string::npos) << error;
  };
  expect("    placement: [od]\n    placement_limit: {pool: spot, jobs: 1}\n",
         "workloads[0].placement_limit.pool: no pool of the placement list named \"spot\"");
  expect("    placement: [od, spot]\n    placement_limit: {pool: od, jobs: 5}\n",
         "workloads[0].placement_limit.jobs: 5 jobs of 1 GPUs need 5 GPUs, more than pool "
         "\"od\" has (quota 4); at most 4 jobs");
  expect("    placement: [od, spot]\n    placement_limit: {pool: od, jobs: 0}\n",
         "workloads[0].placement_limit.jobs");
  expect("    placement: [od, spot]\n    placement_limit: {pool: od}\n",
         "workloads[0].placement_limit");
  expect("    placement: [od, spot]\n    placement_limit: {pool: od, jobs: 1, share: 0.5}\n",
         "share");
}

}  // namespace
}  // namespace gpucap
