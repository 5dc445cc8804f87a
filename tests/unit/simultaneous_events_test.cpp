// The rule for simultaneous events (event_kinds.hpp): at equal times, work that finishes, then
// runs ending on their own, then capacity changes, then starts, then arrivals. One hand-worked
// system for each pair of event kinds that can coincide; every figure is derived in the
// comments. Prices are 3600 USD per GPU-hour: 1 USD per GPU-second, so costs read as seconds.
#include <cmath>
#include <gtest/gtest.h>
#include <string>

#include "gpucap/metrics.hpp"

#include "support/one_replication.hpp"
#include "support/scenario_fixture.hpp"

namespace gpucap {
namespace {

using testing_support::Row;
using testing_support::run_once;

class SimultaneousEvents : public testing_support::ScenarioFixture {
 protected:
  /// A scenario with one pool `spot` (quota, extra pool keys) and trace-driven jobs.
  Row run(const std::string& jobs_csv, int quota, const std::string& pool_extra,
          const std::string& horizon = "1d", const std::string& workload_extra = "") {
    write("jobs.csv", "submit_s,gpus,duration_s\n" + jobs_csv);
    return run_once(
        parse("name: t\nhorizon: " + horizon +
              "\npools:\n  spot:\n    gpu: H100\n    purchase: spot\n"
              "    price_usd_per_gpu_hour: 3600\n    quota: " +
              std::to_string(quota) + "\n" + pool_extra +
              "workloads:\n  - name: j\n    arrivals: {process: trace, file: jobs.csv}\n" +
              workload_extra));
  }
};

// completion x capacity drop. The case of the issue: a trace up 1 h, down 1 h, and a 1-hour job
// without checkpoints at t = 0. Its completion and the drop are both at 3600 s: the work is done
// first. (Handled in the order scheduled, the drop, scheduled at t = 0 before the job's
// completion, reclaimed it at every up period: 12 preemptions and 12 h billed in a day, and
// the job never completed.)
TEST_F(SimultaneousEvents, AJobFinishingWhenCapacityDropsCompletes) {
  write("avail.csv", "available\n1\n0\n");
  const Row r = run("0,1,3600\n", 1, "    availability: {file: avail.csv, step: 1h}\n");
  EXPECT_EQ(r[kJobsCompleted], 1.0);
  EXPECT_EQ(r[kCompletionMeanS], 3600.0);
  EXPECT_EQ(r[kCompletionP50S], 3600.0);
  EXPECT_EQ(r[kPreemptions], 0.0);
  EXPECT_EQ(r[kCostUsd], 3600.0);
  EXPECT_EQ(r[kGpuHoursLost], 0.0);
}

// completion x zone event. Zone-wide events every 100 s; a job of 100 s at t = 0 finishes at
// the first one, so nothing is reclaimed. (In scheduled order the zone event, scheduled at
// t = 0 first, reclaimed it every 100 s, forever.)
TEST_F(SimultaneousEvents, AJobFinishingAtAZoneEventCompletes) {
  const Row r = run("0,1,100\n", 1, "    preemption: {zone_events: 100s}\n", "1000s");
  EXPECT_EQ(r[kJobsCompleted], 1.0);
  EXPECT_EQ(r[kCompletionMeanS], 100.0);
  EXPECT_EQ(r[kPreemptions], 0.0);
  EXPECT_EQ(r[kCostUsd], 100.0);
}

// completion x the run's own end. A reclaim drawn exactly at the run's length, or a max_runtime
// equal to it: the work is done first (the run is scheduled to complete, not to be reclaimed).
TEST_F(SimultaneousEvents, AReclaimOrMaxRuntimeAtTheRunsLengthLetsItComplete) {
  for (const char* preemption :
       {"    preemption: {time_to_preemption: 100s}\n", "    preemption: {max_runtime: 100s}\n"}) {
    const Row r = run("0,1,100\n", 1, preemption, "1000s");
    EXPECT_EQ(r[kJobsCompleted], 1.0) << preemption;
    EXPECT_EQ(r[kCompletionMeanS], 100.0) << preemption;
    EXPECT_EQ(r[kPreemptions], 0.0) << preemption;
  }
  // One second more of work and no checkpoints: every run is cut at 100 s and loses it all,
  // 10 times in 1000 s; no job completes, so the completion time is not defined (NaN).
  const Row r = run("0,1,101\n", 1, "    preemption: {max_runtime: 100s}\n", "1000s");
  EXPECT_EQ(r[kPreemptions], 10.0);
  EXPECT_EQ(r[kJobsCompleted], 0.0);
  EXPECT_TRUE(std::isnan(r[kCompletionMeanS]));
  EXPECT_TRUE(std::isnan(r[kCompletionP50S]));
}

// completion x arrival. Quota 1; job A (100 s) at 0, job B (50 s) arriving at 100, when A
// finishes: B finds the GPU free and starts at once (no wait, no queue).
TEST_F(SimultaneousEvents, AnArrivalSeesTheGpusFreedAtItsInstant) {
  const Row r = run("0,1,100\n100,1,50\n", 1, "    preemption: {zone_events: 1000d}\n", "1000s");
  EXPECT_EQ(r[kJobsCompleted], 2.0);
  EXPECT_EQ(r[kWaitMeanS], 0.0);
  EXPECT_EQ(r[kWaitProbability], 0.0);
  EXPECT_EQ(r[kQueueLengthMean], 0.0);
  EXPECT_EQ(r[kCompletionMeanS], 75.0);  // (100 + 50) / 2
}

// capacity drop x arrival (and x completion). Capacity 1 over [0, 100), 0 over [100, 200), 1
// after. Job A (100 s) at 0 finishes at 100; job B (30 s) arrives at 100: capacity drops first,
// so B waits (it does not start and get reclaimed) and runs over [200, 230].
TEST_F(SimultaneousEvents, AnArrivalAtACapacityDropWaitsInsteadOfBeingReclaimed) {
  write("avail.csv", "available\n1\n0\n1\n1\n1\n1\n1\n1\n1\n1\n");
  const Row r =
      run("0,1,100\n100,1,30\n", 1, "    availability: {file: avail.csv, step: 100s}\n", "1000s");
  EXPECT_EQ(r[kJobsCompleted], 2.0);
  EXPECT_EQ(r[kPreemptions], 0.0);
  EXPECT_EQ(r[kCompletionMeanS], (100.0 + 130.0) / 2);
  EXPECT_EQ(r[kWaitMeanS], 50.0);  // (0 + 100) / 2
  EXPECT_EQ(r[kCostUsd], 130.0);
}

// capacity rise x arrival. The same trace; job A (50 s) arrives at 200, when capacity comes
// back: it starts at once.
TEST_F(SimultaneousEvents, AnArrivalAtACapacityRiseStartsAtOnce) {
  write("avail.csv", "available\n1\n0\n1\n1\n1\n1\n1\n1\n1\n1\n");
  const Row r = run("200,1,50\n", 1, "    availability: {file: avail.csv, step: 100s}\n", "1000s");
  EXPECT_EQ(r[kWaitMeanS], 0.0);
  EXPECT_EQ(r[kCompletionMeanS], 50.0);
}

// run start x capacity drop. Quota 2, capacity 1 over [0, 50), 2 over [50, 100), 0 over
// [100, 200), then 1. A job (30 s) arrives at 10 and provisions for 90 s: its run would begin
// at 100, the instant the pool empties. The drop comes first: the job is reclaimed while still
// provisioning (nothing billed, no preemption counted), waits, launches again at 200 and runs
// over [290, 320]. (In scheduled order the change at 100, scheduled at 50, came after the run
// start scheduled at 10: the job began, was reclaimed at once and counted as preempted.)
TEST_F(SimultaneousEvents, ARunStartingWhenCapacityDropsIsReclaimedBeforeItRuns) {
  write("avail.csv", "available\n1\n2\n0\n0\n1\n1\n1\n1\n1\n1\n");
  const Row r = run("10,1,30\n", 2,
                    "    provisioning_delay: 90s\n"
                    "    availability: {file: avail.csv, step: 50s}\n",
                    "1000s");
  EXPECT_EQ(r[kPreemptions], 0.0);
  EXPECT_EQ(r[kJobsCompleted], 1.0);
  EXPECT_EQ(r[kCompletionMeanS], 310.0);
  EXPECT_EQ(r[kProvisioningMeanS], 90.0);
  EXPECT_EQ(r[kCostUsd], 30.0);
  EXPECT_EQ(r[kGpuHoursLost], 0.0);
}

// run end x capacity drop. Quota 2, capacity 2 over [0, 100), 1 after. Jobs A (at 0) and B (at
// 10), 500 s each, reclaimed after 100 s of running. At 100 A's own reclaim comes first; A
// relaunches at once in the GPU it freed (capacity is still 2), and the drop then reclaims the
// newest job, A again. B keeps running until its own reclaim at 110.
TEST_F(SimultaneousEvents, ARunsOwnEndComesBeforeACapacityDrop) {
  write("avail.csv", "available\n2\n1\n");
  const Row r = run("0,1,500\n10,1,500\n", 2,
                    "    preemption: {time_to_preemption: 100s}\n"
                    "    availability: {file: avail.csv, step: 100s}\n",
                    "110s");
  // Preemptions by 110 s: A at 100 (own), A at 100 (the drop), B at 110 (own).
  EXPECT_EQ(r[kPreemptions], 3.0);
  // Held: A [0, 100] and [100, 100], B [10, 110]: 200 GPU-seconds.
  EXPECT_EQ(r[kGpuHoursUsed] * 3600, 200.0);
}

// checkpoint write x capacity drop, entered at a fraction of a second into the trace (as
// `start: random` always is). Capacity 0 over trace time [0, 60), 1 over [60, 2160), 0 after;
// the run's t = 0 is trace time `start`. A job at 0 waits for the rise, provisions for 120 s
// and runs 3 cycles of 600 s computing + 60 s writing: the third write ends at trace time
// 60 + 120 + 3 x 660 = 2160, the drop. The checkpoint is saved (ends-at-the-cut rule), so no
// work is lost, at any offset. (In the run's clock a start of 12.345 made the window
// 2099.9999999999995 s long: the write ended after the drop and 660 s were lost.)
TEST_F(SimultaneousEvents, ATieInTraceTimeStaysATieAtAFractionalStart) {
  std::string trace = "available\n0\n";
  for (int i = 0; i < 35; ++i) trace += "1\n";
  for (int i = 0; i < 40; ++i) trace += "0\n";
  write("avail.csv", trace);
  for (const char* start : {"0", "12.345", "0.1", "59.999999", "47.123456789", "33.3"}) {
    const Row r = run("0,1,21600\n", 1,
                      "    provisioning_delay: 120s\n"
                      "    availability: {file: avail.csv, step: 60s, start: " +
                          std::string(start) + "}\n",
                      "2400s", "    checkpoint: {interval: 10min, write: 60s, restart: 5min}\n");
    EXPECT_EQ(r[kPreemptions], 1.0) << start;
    EXPECT_EQ(r[kGpuHoursLost], 0.0) << start;
    EXPECT_EQ(r[kGpuHoursCheckpointing] * 3600, 180.0) << start;
  }
}

// completion x capacity drop at a fractional start: the first test's case (a 1-hour job on a
// trace up 1 h, down 1 h) entered 0.3 s (and other fractions) into the trace, where the job
// starts at the rise: it completes at the drop instead of being reclaimed.
TEST_F(SimultaneousEvents, ACompletionAtADropStaysATieAtAFractionalStart) {
  write("avail.csv", "available\n0\n1\n0\n0\n");
  for (const char* start : {"0.3", "1234.5678", "3599.9999"}) {
    const Row r = run(
        "0,1,3600\n", 1,
        "    availability: {file: avail.csv, step: 1h, start: " + std::string(start) + "}\n", "3h");
    EXPECT_EQ(r[kJobsCompleted], 1.0) << start;
    EXPECT_EQ(r[kPreemptions], 0.0) << start;
    EXPECT_EQ(r[kGpuHoursLost], 0.0) << start;
  }
}

}  // namespace
}  // namespace gpucap
