// fallback.return_to_preemptible: a job that fell back to a pool that is not preemptible tries
// the preemptible pools first again at its next launch. A hand-worked system with exact times
// and costs. Spot costs 3600 USD per GPU-hour (1 USD per GPU-second), on-demand 7200 (2 USD per
// GPU-second), so costs read as seconds.
#include <gtest/gtest.h>
#include <string>

#include "gpucap/metrics.hpp"

#include "support/one_replication.hpp"
#include "support/scenario_fixture.hpp"

namespace gpucap {
namespace {

using testing_support::Row;
using testing_support::run_once;

class FallbackReturn : public testing_support::ScenarioFixture {
 protected:
  /// One job of 1200 s at t = 0, a checkpoint after every 500 s of computing (written
  /// instantly), placement [spot, od]. Spot reclaims every run 900 s after it begins; od's
  /// availability trace (steps of 1500 s) has 1 GPU, then none from 1500 s to 3000 s, then 1.
  Row run(const std::string& fallback) {
    write("jobs.csv", "submit_s,gpus,duration_s\n0,1,1200\n");
    write("avail.csv", "available\n1\n0\n1\n1\n1\n");
    return run_once(parse(
        "name: t\nhorizon: 2h\npools:\n"
        "  spot:\n    gpu: H100\n    purchase: spot\n    price_usd_per_gpu_hour: 3600\n"
        "    quota: 1\n    preemption: {time_to_preemption: 900s}\n"
        "  od:\n    gpu: H100\n    purchase: on_demand\n    price_usd_per_gpu_hour: 7200\n"
        "    quota: 1\n    availability: {file: avail.csv, step: 1500s}\n"
        "workloads:\n  - name: j\n    arrivals: {process: trace, file: jobs.csv}\n"
        "    checkpoint: {interval: 500s, write: 0s, restart: 0s}\n"
        "    placement: [spot, od]\n    fallback: " + fallback + "\n"));
  }
};

// Both runs: spot 0-900 s saves 500 s (reclaimed at 900 s, 400 s lost; 1 preemption, 700 s
// left); the job falls back to od at 900 s, which saves 500 s more at 1400 s and is reclaimed
// by the trace at 1500 s (100 s lost; 2 preemptions, 200 s left).
//  - return_to_preemptible: its next launch, at 1500 s, tries spot first: spot is free, the
//    job runs there and completes at 1700 s. Cost: spot 900 + 200, od 600 x 2 = 2300 USD.
//  - default: spot stays skipped; od has no GPU until 3000 s, so the job waits and completes
//    at 3200 s. Cost: spot 900, od (600 + 200) x 2 = 2500 USD.
TEST_F(FallbackReturn, AJobThatFellBackReturnsToSpotForItsNextRun) {
  const Row r = run("{after_preemptions: 1, return_to_preemptible: true}");
  EXPECT_EQ(r[kJobsCompleted], 1.0);
  EXPECT_EQ(r[kCompletionMeanS], 1700.0);
  EXPECT_EQ(r[kPreemptions], 2.0);
  EXPECT_EQ(r[kCostUsd], 2300.0);
  EXPECT_EQ(r.pool(0, kPoolCostUsd), 1100.0);
  EXPECT_EQ(r.pool(1, kPoolCostUsd), 1200.0);
  EXPECT_EQ(r.pool(0, kPoolPreemptions), 1.0);
  EXPECT_EQ(r.pool(1, kPoolPreemptions), 1.0);
  EXPECT_DOUBLE_EQ(r[kGpuHoursLost], 500.0 / 3600.0);
}

TEST_F(FallbackReturn, ByDefaultAJobThatFellBackStaysOffSpot) {
  for (const char* fallback :
       {"{after_preemptions: 1}", "{after_preemptions: 1, return_to_preemptible: false}"}) {
    const Row r = run(fallback);
    EXPECT_EQ(r[kJobsCompleted], 1.0) << fallback;
    EXPECT_EQ(r[kCompletionMeanS], 3200.0) << fallback;
    EXPECT_EQ(r[kPreemptions], 2.0) << fallback;
    EXPECT_EQ(r[kCostUsd], 2500.0) << fallback;
    EXPECT_EQ(r.pool(0, kPoolCostUsd), 900.0) << fallback;
    EXPECT_EQ(r.pool(1, kPoolCostUsd), 1600.0) << fallback;
  }
}

// Without after_preemptions the option has nothing to lift: a clear error.
TEST_F(FallbackReturn, NeedsAfterPreemptions) {
  write("jobs.csv", "submit_s,gpus,duration_s\n0,1,1200\n");
  const std::string error = error_of(
      "name: t\nhorizon: 2h\npools:\n"
      "  spot: {gpu: H100, purchase: spot, price_usd_per_gpu_hour: 1, quota: 1,\n"
      "         preemption: {time_to_preemption: 1h}}\n"
      "  od: {gpu: H100, purchase: on_demand, price_usd_per_gpu_hour: 2, quota: 1}\n"
      "workloads:\n  - name: j\n    arrivals: {process: trace, file: jobs.csv}\n"
      "    deadline: 1d\n    placement: [spot, od]\n"
      "    fallback: {when_slack_below: 1h, return_to_preemptible: true}\n");
  EXPECT_NE(error.find("workloads[0].fallback.return_to_preemptible: needs "
                       "fallback.after_preemptions"),
            std::string::npos)
      << error;
}

}  // namespace
}  // namespace gpucap
