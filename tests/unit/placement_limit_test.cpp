// placement_limit: at most `jobs` jobs of a class at once in one pool of its placement list
// ("k on-demand, the rest spot"). Hand-worked systems with exact times, counts and costs.
// Spot costs 3600 USD per GPU-hour (1 USD per GPU-second), on-demand 7200 (2 USD per
// GPU-second), so costs read as seconds. Jobs come from a trace (all at t = 0), 1 GPU each.
#include <gtest/gtest.h>
#include <string>

#include "gpucap/metrics.hpp"

#include "support/one_replication.hpp"
#include "support/same_bits.hpp"
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
  /// Two jobs of 1000 s at t = 0; od (quota 4) and a spot pool (quota 1) that reclaims every
  /// run after 600 s.
  Row run_reclaiming_spot(const std::string& workload_extra) {
    write("jobs.csv", "submit_s,gpus,duration_s\n0,1,1000\n0,1,1000\n");
    return run_once(parse(
        "name: t\nhorizon: 1d\npools:\n"
        "  od: {gpu: H100, purchase: on_demand, price_usd_per_gpu_hour: 7200, quota: 4}\n"
        "  spot:\n    gpu: H100\n    purchase: spot\n    price_usd_per_gpu_hour: 3600\n"
        "    quota: 1\n    preemption: {time_to_preemption: 600s}\n"
        "workloads:\n  - name: j\n    arrivals: {process: trace, file: jobs.csv}\n" +
        workload_extra));
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
  const Row r =
      run_reclaiming_spot("    placement: [od, spot]\n    placement_limit: {pool: od, jobs: 1}\n");
  EXPECT_EQ(r[kJobsCompleted], 2.0);
  EXPECT_EQ(r[kPreemptions], 2.0);
  EXPECT_EQ(r[kCompletionMeanS], (1000.0 + 2200.0) / 2.0);
  EXPECT_EQ(r.pool(0, kPoolJobsStarted), 1.0);  // J1 (J2 first ran on spot)
  EXPECT_EQ(r.pool(1, kPoolJobsStarted), 1.0);
  EXPECT_EQ(r.pool(1, kPoolPreemptions), 2.0);
  EXPECT_EQ(r.pool(0, kPoolCostUsd), 4000.0);
  EXPECT_EQ(r.pool(1, kPoolCostUsd), 1200.0);
}

// A share: od first, at most half of the class's jobs holding GPUs on od, rounded up (spot
// quota 3 here). Six jobs at t = 0 of 1000, 1100, 1200, 1300, 400 and 500 s. Job k goes to od
// only if then (jobs on od) <= ceil(0.5 x jobs holding GPUs), both counting it:
//   J1: 1 <= ceil(0.5): od.   J2: 2 <= 1? no: spot.   J3: 2 <= ceil(1.5): od.   J4: 3 <= 2?
//   no: spot.   J5: 3 <= ceil(2.5): od.   J6: 4 <= 3? no: spot (its last GPU).
// od: (1000 + 1200 + 400) s x 2 USD = 5200 USD; spot: 1100 + 1300 + 500 = 2900 USD.
TEST_F(PlacementLimit, AShareKeepsAtMostThatFractionOfTheClassInThePool) {
  write("jobs.csv", "submit_s,gpus,duration_s\n0,1,1000\n0,1,1100\n0,1,1200\n0,1,1300\n0,1,400\n"
                    "0,1,500\n");
  const std::string pools =
      "name: t\nhorizon: 1d\npools:\n"
      "  od: {gpu: H100, purchase: on_demand, price_usd_per_gpu_hour: 7200, quota: 4}\n"
      "  spot: {gpu: H100, purchase: spot, price_usd_per_gpu_hour: 3600, quota: 3,\n"
      "         preemption: {time_to_preemption: 100d}}\n"
      "workloads:\n  - name: j\n    arrivals: {process: trace, file: jobs.csv}\n"
      "    placement: [od, spot]\n";
  const Row r = run_once(parse(pools + "    placement_limit: {pool: od, share: 0.5}\n"));
  EXPECT_EQ(r[kJobsCompleted], 6.0);
  EXPECT_EQ(r.pool(0, kPoolJobsStarted), 3.0);
  EXPECT_EQ(r.pool(1, kPoolJobsStarted), 3.0);
  EXPECT_EQ(r.pool(0, kPoolCostUsd), 5200.0);
  EXPECT_EQ(r.pool(1, kPoolCostUsd), 2900.0);
  EXPECT_DOUBLE_EQ(r[kCompletionMeanS], 5500.0 / 6.0);
  // share 1 limits nothing: the same row as without placement_limit (J1 to J4 on od, J5, J6
  // on spot).
  const Row all = run_once(parse(pools + "    placement_limit: {pool: od, share: 1}\n"));
  const Row free = run_once(parse(pools));
  EXPECT_EQ(all.pool(0, kPoolJobsStarted), 4.0);
  for (size_t i = 0; i < kScalarMetricCount; ++i)
    EXPECT_TRUE(testing_support::same_bits(all[static_cast<ScalarMetric>(i)],
                                           free[static_cast<ScalarMetric>(i)]))
        << i;
}

// Spot first, the share caps the on-demand overflow as the class grows: spot quota 1, od 4,
// share 0.5, jobs of 1000, 1500, 800, 600 s at t = 0.
//   t = 0:   J1 on spot; J2 on od (1 <= ceil(0.5 x 2)); J3 on od (2 <= ceil(1.5)); J4 waits
//            (3 <= ceil(2)? no) though od has 2 GPUs free.
//   t = 800: J3 completes: J4 on od (2 <= ceil(1.5)), to 1400.
// od: (1500 + 800 + 600) x 2 = 5800 USD; spot 1000 USD; completions 1000, 1500, 800, 1400 s.
TEST_F(PlacementLimit, AShareBoundsTheOverflowAsJobsComeAndGo) {
  const Row r = run("0,1,1000\n0,1,1500\n0,1,800\n0,1,600\n",
                    "    placement: [spot, od]\n    placement_limit: {pool: od, share: 0.5}\n");
  EXPECT_EQ(r[kJobsCompleted], 4.0);
  EXPECT_EQ(r[kCompletionMeanS], 1175.0);
  EXPECT_EQ(r[kWaitMeanS], 200.0);  // J4 waited 800 s
  EXPECT_EQ(r.pool(0, kPoolJobsStarted), 3.0);
  EXPECT_EQ(r.pool(1, kPoolJobsStarted), 1.0);
  EXPECT_EQ(r.pool(0, kPoolCostUsd), 5800.0);
  EXPECT_EQ(r.pool(1, kPoolCostUsd), 1000.0);
}

// A job that may use only the limited pool is never held back for ever: the class can always
// have one job there. Spot reclaims after 600 s; after 1 preemption a job falls back to od
// only. Share 0.25: J1 (1000 s) starts on od (1 <= ceil(0.25)); J2 (1000 s) on spot, reclaimed
// at 600 s, then may use od only: 2 <= ceil(0.25 x 2)? no: it waits until J1 completes at
// 1000 s, then runs on od (1 <= ceil(0.25)) to 2000 s.
TEST_F(PlacementLimit, AShareNeverStarvesAJobThatMayUseOnlyThatPool) {
  const Row r = run_reclaiming_spot(
      "    fallback: {after_preemptions: 1}\n"
      "    placement: [od, spot]\n    placement_limit: {pool: od, share: 0.25}\n");
  EXPECT_EQ(r[kJobsCompleted], 2.0);
  EXPECT_EQ(r[kPreemptions], 1.0);
  EXPECT_EQ(r[kCompletionMeanS], (1000.0 + 2000.0) / 2.0);
  EXPECT_EQ(r.pool(0, kPoolCostUsd), 4000.0);
  EXPECT_EQ(r.pool(1, kPoolCostUsd), 600.0);
}

// The share is met exactly at whole counts in spite of rounding: 0.07 x 100 is
// 7.000000000000001 in binary, yet 7 of 100 jobs, not 8, go to od (od first, room everywhere;
// after k jobs, ceil(0.07 k) are on od).
TEST_F(PlacementLimit, AShareIsExactAtWholeCounts) {
  std::string jobs = "submit_s,gpus,duration_s\n";
  for (int k = 0; k < 100; ++k) jobs += "0,1,1000\n";
  write("jobs.csv", jobs);
  const Row r = run_once(parse(
      "name: t\nhorizon: 1d\npools:\n"
      "  od: {gpu: H100, purchase: on_demand, price_usd_per_gpu_hour: 7200, quota: 100}\n"
      "  spot: {gpu: H100, purchase: spot, price_usd_per_gpu_hour: 3600, quota: 100,\n"
      "         preemption: {time_to_preemption: 100d}}\n"
      "workloads:\n  - name: j\n    arrivals: {process: trace, file: jobs.csv}\n"
      "    placement: [od, spot]\n    placement_limit: {pool: od, share: 0.07}\n"));
  EXPECT_EQ(r.pool(0, kPoolJobsStarted), 7.0);
  EXPECT_EQ(r.pool(1, kPoolJobsStarted), 93.0);
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
         "workloads[0].placement_limit.share: give either jobs (a fixed count) or share (a "
         "fraction of the class's jobs), not both");
  expect("    placement: [od, spot]\n    placement_limit: {pool: od, share: 0}\n",
         "workloads[0].placement_limit.share");
  expect("    placement: [od, spot]\n    placement_limit: {pool: od, share: 1.5}\n",
         "workloads[0].placement_limit.share");
  expect("    placement: [od, spot]\n    placement_limit: {pool: od, share: half}\n",
         "workloads[0].placement_limit.share");
}

}  // namespace
}  // namespace gpucap
