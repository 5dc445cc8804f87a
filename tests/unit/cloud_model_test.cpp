// Spot preemption, checkpoint/restart, fallback, reserved and owned pools, GPU-memory fit:
// small deterministic scenarios whose every figure is worked out by hand in the comments.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <vector>

#include "gpucap/compile.hpp"
#include "gpucap/replication.hpp"
#include "gpucap/run.hpp"
#include "gpucap/summary.hpp"

#include "support/one_replication.hpp"
#include "support/scenario_fixture.hpp"

namespace gpucap {
namespace {

using testing_support::Row;
using testing_support::run_once;

class CloudModel : public testing_support::ScenarioFixture {
 protected:
  /// One job of `work` reference seconds at t = 0 on 1 GPU, from a trace file.
  std::string one_job(double work_s) {
    write("job.csv", "submit_s,gpus,duration_s\n0,1," + std::to_string(work_s) + "\n");
    return "job.csv";
  }
};

// A spot instance is reclaimed every 100 s of running; the job has 250 s of work, checkpoints
// every 40 s of computing (10 s to write) and needs 5 s to restore after a preemption.
//   run 1 [0,100):   2 cycles of 40+10: saved 80, writing 20, lost 0.          work left 170
//   run 2 [100,200): restore 5, cycle 40+10, then 40 computed + 5 of a write:
//                    saved 40, writing 15, lost 40.                              work left 130
//   runs 3, 4:       the same.                                                   left 90, 50
//   run 5 [400,465): restore 5, 40+10, 10: completes (no write after the last piece).
// Totals: 4 preemptions; writing 20 + 3x15 + 10 = 75 s; restoring 4x5 = 20 s; lost 3x40 =
// 120 s; saved 250 s; 75 + 20 + 120 + 250 = 465 s held and billed.
const char* kCheckpointedSpot =
    "name: t\nhorizon: 1h\n"
    "pools:\n"
    "  spot:\n"
    "    gpu: H100\n    purchase: spot\n    price_usd_per_gpu_hour: 3600\n    quota: 1\n"
    "    preemption: {time_to_preemption: 100s}\n"
    "workloads:\n"
    "  - name: j\n"
    "    arrivals: {process: trace, file: job.csv}\n"
    "    checkpoint: {interval: 40s, write: 10s, restart: 5s}\n";

TEST_F(CloudModel, CheckpointedJobOnSpotWorkedByHand) {
  one_job(250);
  const Row r = run_once(parse(kCheckpointedSpot));
  EXPECT_EQ(r[kPreemptions], 4.0);
  EXPECT_EQ(r.pool(0, kPoolPreemptions), 4.0);
  EXPECT_EQ(r[kJobsCompleted], 1.0);
  EXPECT_EQ(r[kJobsStarted], 1.0);  // a job starts once, whatever its restarts
  EXPECT_DOUBLE_EQ(r[kCompletionMeanS], 465.0);
  EXPECT_DOUBLE_EQ(r[kGpuHoursCheckpointing] * 3600, 75.0);
  EXPECT_DOUBLE_EQ(r[kGpuHoursRestarting] * 3600, 20.0);
  EXPECT_DOUBLE_EQ(r[kGpuHoursLost] * 3600, 120.0);
  EXPECT_DOUBLE_EQ(r[kGpuHoursUsed] * 3600, 465.0);
  EXPECT_DOUBLE_EQ(r[kCostUsd], 465.0);  // 1 USD per GPU-second
  EXPECT_EQ(r[kWaitMeanS], 0.0);         // restarts are not queue waits
}

TEST_F(CloudModel, MaxRuntimeReclaimsLikeAFixedPreemptionTime) {
  one_job(250);
  std::string yaml = kCheckpointedSpot;
  yaml.replace(yaml.find("{time_to_preemption: 100s}"), 26, "{max_runtime: 100s}");
  const Row r = run_once(parse(yaml));
  EXPECT_EQ(r[kPreemptions], 4.0);
  EXPECT_DOUBLE_EQ(r[kCompletionMeanS], 465.0);
}

// With a 30 s notice (>= the 10 s write) a job may stop at the notice and write an emergency
// checkpoint; it keeps whichever saves more, that or carrying on to its next periodic checkpoint.
//   run 1 [0,100):   carrying on saves 80 (two full cycles end at 100); the notice would save 60.
//                    saved 80, writing 20, lost 0.                                left 170
//   run 2 [100,200): restore 5; at the notice (65 s in) 40+10 then 15 computed: emergency
//                    checkpoint saves 55 (vs 40): writing 10 + 10, idle after it 20.   left 115
//   run 3 [200,300): the same.                                                    left 60
//   run 4 [300,375): restore 5, 40+10, 20: done (75 s < 100 s).
// 3 preemptions; lost 2 x 20 = 40 s; writing 20 + 20 + 20 + 10 = 70 s; restoring 15 s.
TEST_F(CloudModel, NoticeAllowsAnEmergencyCheckpoint) {
  one_job(250);
  std::string yaml = kCheckpointedSpot;
  yaml.replace(yaml.find("{time_to_preemption: 100s}"), 26,
               "{time_to_preemption: 100s, notice: 30s}");
  const Row r = run_once(parse(yaml));
  EXPECT_EQ(r[kPreemptions], 3.0);
  EXPECT_DOUBLE_EQ(r[kCompletionMeanS], 375.0);
  EXPECT_DOUBLE_EQ(r[kGpuHoursLost] * 3600, 40.0);
  EXPECT_DOUBLE_EQ(r[kGpuHoursCheckpointing] * 3600, 70.0);
  EXPECT_DOUBLE_EQ(r[kGpuHoursRestarting] * 3600, 15.0);
  EXPECT_DOUBLE_EQ(r[kGpuHoursUsed] * 3600, 375.0);
}

// Without checkpoints every preemption loses the whole run: 250 s of work never fits in 100 s.
// After 2 preemptions the job falls back to the on-demand pool: 200 s lost, done at 450.
TEST_F(CloudModel, FallbackToOnDemandAfterPreemptions) {
  one_job(250);
  const Row r =
      run_once(parse("name: t\nhorizon: 1h\n"
                     "pools:\n"
                     "  spot: {gpu: H100, purchase: spot, price_usd_per_gpu_hour: 3600, quota: 1,\n"
                     "         preemption: {time_to_preemption: 100s}}\n"
                     "  od: {gpu: H100, price_usd_per_gpu_hour: 7200, quota: 1}\n"
                     "workloads:\n"
                     "  - name: j\n"
                     "    arrivals: {process: trace, file: job.csv}\n"
                     "    placement: [spot, od]\n"
                     "    fallback: {after_preemptions: 2}\n"));
  EXPECT_EQ(r[kPreemptions], 2.0);
  EXPECT_DOUBLE_EQ(r[kCompletionMeanS], 450.0);
  EXPECT_DOUBLE_EQ(r[kGpuHoursLost] * 3600, 200.0);
  EXPECT_EQ(r.pool(0, kPoolCostUsd), 200.0);
  EXPECT_EQ(r.pool(1, kPoolCostUsd), 500.0);  // 250 s at 2 USD per GPU-second
}

// Deadline 400 s, slack threshold 100 s: at t = 0 the slack is 400 - 250 = 150, so the job
// starts on spot; preempted at 100 with nothing saved, its slack is 400 - 100 - 250 = 50 < 100,
// so it goes to on-demand: done at 350, before the deadline.
TEST_F(CloudModel, FallbackWhenSlackRunsOut) {
  one_job(250);
  const Row r =
      run_once(parse("name: t\nhorizon: 1h\n"
                     "pools:\n"
                     "  spot: {gpu: H100, purchase: spot, price_usd_per_gpu_hour: 3600, quota: 1,\n"
                     "         preemption: {time_to_preemption: 100s}}\n"
                     "  od: {gpu: H100, price_usd_per_gpu_hour: 7200, quota: 1}\n"
                     "workloads:\n"
                     "  - name: j\n"
                     "    arrivals: {process: trace, file: job.csv}\n"
                     "    deadline: 400s\n"
                     "    fallback: {when_slack_below: 100s}\n"));
  EXPECT_EQ(r[kPreemptions], 1.0);
  EXPECT_DOUBLE_EQ(r[kCompletionMeanS], 350.0);
  EXPECT_EQ(r[kJobsLate], 0.0);
}

TEST_F(CloudModel, LateJobsAreCounted) {
  one_job(250);
  const Row r =
      run_once(parse("name: t\nhorizon: 1h\n"
                     "pools:\n  od: {gpu: H100, price_usd_per_gpu_hour: 1, quota: 1}\n"
                     "workloads:\n"
                     "  - {name: j, arrivals: {process: trace, file: job.csv}, deadline: 200s}\n"));
  EXPECT_EQ(r[kJobsLate], 1.0);
}

// Committed pools are charged for every GPU of the count over the whole window, used or not.
// Reserved: 4 GPUs x 10 h x 2 USD = 80 USD. Owned: capex 8760 USD over 1 year = 1 USD/h, plus
// 0.5 USD/h operations: 2 GPUs x 10 h x 1.5 = 30 USD. The one job (250 s) runs on reserved.
TEST_F(CloudModel, ReservedAndOwnedAreChargedWhetherUsedOrNot) {
  one_job(250);
  const Row r = run_once(
      parse("name: t\nhorizon: 10h\n"
            "pools:\n"
            "  reserved: {gpu: A100, purchase: reserved, count: 4, price_usd_per_gpu_hour: 2}\n"
            "  owned: {gpu: A100, purchase: owned, count: 2, capex_usd_per_gpu: 8760,\n"
            "          amortize_years: 1, opex_usd_per_gpu_hour: 0.5}\n"
            "workloads:\n"
            "  - {name: j, arrivals: {process: trace, file: job.csv}}\n"));
  EXPECT_DOUBLE_EQ(r.pool(0, kPoolCostUsd), 80.0);
  EXPECT_DOUBLE_EQ(r.pool(1, kPoolCostUsd), 30.0);
  EXPECT_DOUBLE_EQ(r[kCostUsd], 110.0);
  EXPECT_DOUBLE_EQ(r.pool(0, kPoolGpuHoursBilled), 40.0);
  EXPECT_DOUBLE_EQ(r.pool(0, kPoolGpuHoursUsed) * 3600, 250.0);
  EXPECT_EQ(r.pool(1, kPoolGpuHoursUsed), 0.0);
}

// A job that needs 60 GB per GPU skips the 40 GB pool even though it is listed first.
TEST_F(CloudModel, JobsGoOnlyWhereTheirMemoryFits) {
  one_job(250);
  const std::string pools =
      "pools:\n"
      "  small: {gpu: A100, gpu_memory_gb: 40, price_usd_per_gpu_hour: 1, quota: 8}\n"
      "  large: {gpu: H100, gpu_memory_gb: 80, price_usd_per_gpu_hour: 3, quota: 8}\n";
  const Row r = run_once(parse("name: t\nhorizon: 1h\n" + pools +
                               "workloads:\n  - {name: j, vram_gb: 60, arrivals: {process: "
                               "trace, file: job.csv}}\n"));
  EXPECT_EQ(r.pool(0, kPoolJobsStarted), 0.0);
  EXPECT_EQ(r.pool(1, kPoolJobsStarted), 1.0);
  const std::string message = error_of(
      "name: t\nhorizon: 1h\n" + pools +
      "workloads:\n  - {name: j, vram_gb: 100, arrivals: {process: trace, file: job.csv}}\n");
  EXPECT_NE(message.find("workloads[0].vram_gb: a job needing 100 GB per GPU fits the memory of "
                         "no pool of its placement list (small 40 GB, large 80 GB)"),
            std::string::npos)
      << message;
}

// Capacity from a hand-made availability trace (one instance, 100 s steps: 1 1 0 0 1 1 1 1).
//   [0,200):   the job (250 s of work, checkpoints 40 s + 10 s, restore 5 s) runs; at 200 the
//              instance disappears: 4 cycles done, saved 160, writing 40, lost 0.   left 90
//   [200,400): no capacity; the job waits.
//   [400,515): restore 5, 40+10, 40+10, 10: done at 515.
// Billed 200 + 115 = 315 s at 1 USD per GPU-second; 1 preemption; the queue wait of the first
// launch is 0. Events: the arrival, two availability changes, the completion (the first run's
// stale completion at 310 is dropped).
TEST_F(CloudModel, AvailabilityTraceWorkedByHand) {
  one_job(250);
  write("avail.csv", "available\n1\n1\n0\n0\n1\n1\n1\n1\n");
  const Row r = run_once(
      parse("name: t\nhorizon: 900s\n"
            "pools:\n"
            "  spot:\n"
            "    gpu: H100\n    purchase: spot\n    price_usd_per_gpu_hour: 3600\n    quota: 1\n"
            "    availability: {file: avail.csv, step: 100s}\n"
            "workloads:\n"
            "  - name: j\n"
            "    arrivals: {process: trace, file: job.csv}\n"
            "    checkpoint: {interval: 40s, write: 10s, restart: 5s}\n"));
  EXPECT_DOUBLE_EQ(r[kCompletionMeanS], 515.0);
  EXPECT_EQ(r[kPreemptions], 1.0);
  EXPECT_DOUBLE_EQ(r[kCostUsd], 315.0);
  EXPECT_DOUBLE_EQ(r[kGpuHoursUsed] * 3600, 315.0);
  EXPECT_DOUBLE_EQ(r[kGpuHoursCheckpointing] * 3600, 60.0);
  EXPECT_DOUBLE_EQ(r[kGpuHoursRestarting] * 3600, 5.0);
  EXPECT_EQ(r[kGpuHoursLost], 0.0);
  EXPECT_EQ(r[kWaitMeanS], 0.0);
  EXPECT_EQ(r[kEvents], 4.0);
}

// Two 1-GPU jobs on 2 instances; at 100 s the trace drops to one instance: the job launched
// last (at 10 s) is reclaimed, the other keeps running.
TEST_F(CloudModel, AvailabilityDropReclaimsTheNewestJob) {
  write("jobs.csv", "submit_s,gpus,duration_s\n0,1,150\n10,1,150\n");
  write("avail.csv", "available\n2\n1\n1\n1\n1\n1\n");
  const Row r = run_once(
      parse("name: t\nhorizon: 600s\n"
            "pools:\n"
            "  spot:\n"
            "    gpu: H100\n    purchase: spot\n    price_usd_per_gpu_hour: 3600\n    quota: 2\n"
            "    availability: {file: avail.csv, step: 100s}\n"
            "workloads:\n"
            "  - {name: j, arrivals: {process: trace, file: jobs.csv}}\n"));
  // Job 0: 0-150. Job 1: 10-100 lost (90 s), waits until 150, reruns 150-300: completes 290 s
  // after its arrival. Billed 150 + 90 + 150 = 390 s.
  EXPECT_EQ(r[kPreemptions], 1.0);
  EXPECT_DOUBLE_EQ(r[kCompletionMeanS], (150.0 + 290.0) / 2);
  EXPECT_DOUBLE_EQ(r[kGpuHoursLost] * 3600, 90.0);
  EXPECT_DOUBLE_EQ(r[kCostUsd], 390.0);
}

// The price catalog: a pool's catalog_row supplies the GPU model, its memory and the price
// (on-demand or spot by the purchase option); explicit keys win; mistakes are named.
class Catalog : public testing_support::ScenarioFixture {
 protected:
  void SetUp() override {
    ScenarioFixture::SetUp();
    write("prices.csv",
          "key,provider,instance_type,region,gpu_model,gpu_count,gpu_memory_gb,"
          "on_demand_usd_per_gpu_hour,spot_usd_per_gpu_hour,source,retrieved\n"
          "aws/p5.48xlarge/us-east-1,aws,p5.48xlarge,us-east-1,H100,8,80,12.29,2.624175,s,d\n"
          "lambda/gpu_8x_h100_sxm5/"
          "us-east-1,lambda,gpu_8x_h100_sxm5,us-east-1,H100,8,80,2.99,,s,d\n");
  }
  std::string scenario(const std::string& pool) {
    return "name: t\nhorizon: 1h\ncatalog: prices.csv\npools:\n  p: " + pool +
           "\nworkloads:\n  - {name: j, arrivals: {process: poisson, rate_per_hour: 1}, work: "
           "1h}\n";
  }
};

TEST_F(Catalog, RowsFillModelMemoryAndPrice) {
  const Scenario od = parse(scenario("{catalog_row: aws/p5.48xlarge/us-east-1, quota: 8}"));
  EXPECT_EQ(od.pools[0].gpu, "H100");
  EXPECT_EQ(od.pools[0].gpu_memory_gb, 80.0);
  EXPECT_EQ(od.pools[0].price_usd_per_gpu_hour, 12.29);
  const Scenario spot =
      parse(scenario("{catalog_row: aws/p5.48xlarge/us-east-1, purchase: spot, "
                     "quota: 8, preemption: {max_runtime: 24h}}"));
  EXPECT_EQ(spot.pools[0].price_usd_per_gpu_hour, 2.624175);
  const Scenario own =
      parse(scenario("{catalog_row: aws/p5.48xlarge/us-east-1, quota: 8, "
                     "price_usd_per_gpu_hour: 9.5, gpu_memory_gb: 94}"));
  EXPECT_EQ(own.pools[0].price_usd_per_gpu_hour, 9.5);
  EXPECT_EQ(own.pools[0].gpu_memory_gb, 94.0);
}

TEST_F(Catalog, MistakesAreNamed) {
  EXPECT_NE(error_of(scenario("{catalog_row: aws/p5.48xlarge/us-east-2, quota: 8}"))
                .find("pools.p.catalog_row: no catalog row named \"aws/p5.48xlarge/us-east-2\" "
                      "(did you mean 'aws/p5.48xlarge/us-east-1'?)"),
            std::string::npos);
  EXPECT_NE(error_of(scenario("{catalog_row: lambda/gpu_8x_h100_sxm5/us-east-1, purchase: spot, "
                              "quota: 8, preemption: {max_runtime: 24h}}"))
                .find("this catalog row has no spot price; give price_usd_per_gpu_hour"),
            std::string::npos);
  std::string no_catalog = scenario("{catalog_row: aws/p5.48xlarge/us-east-1, quota: 8}");
  no_catalog.erase(no_catalog.find("catalog: prices.csv\n"), 20);
  EXPECT_NE(error_of(no_catalog).find("needs a price catalog"), std::string::npos);
  std::string missing = scenario("{catalog_row: aws/p5.48xlarge/us-east-1, quota: 8}");
  missing.replace(missing.find("prices.csv"), 10, "nothere.csv");
  EXPECT_NE(error_of(missing).find("catalog: cannot read data file"), std::string::npos);
}

TEST_F(Catalog, ShippedCatalogHasSourcesAndPositivePrices) {
  const std::string yaml =
      "name: t\nhorizon: 1h\ncatalog: " + std::string(GPUCAP_SOURCE_DIR) +
      "/data/gpu_prices.csv\npools:\n  p: {catalog_row: gcp/a3-highgpu-8g/us-east4, quota: 8}\n"
      "workloads:\n  - {name: j, arrivals: {process: poisson, rate_per_hour: 1}, work: 1h}\n";
  const Scenario s = parse(yaml);
  EXPECT_EQ(s.pools[0].gpu, "H100");
  EXPECT_NEAR(s.pools[0].price_usd_per_gpu_hour, 10.979059, 1e-12);
  std::ifstream in(std::string(GPUCAP_SOURCE_DIR) + "/data/gpu_prices.csv");
  std::string line;
  std::getline(in, line);
  EXPECT_NE(line.find("source,retrieved"), std::string::npos);
  int rows = 0;
  while (std::getline(in, line)) {
    ++rows;
    EXPECT_NE(line.find("skypilot-org/skypilot-catalog catalogs/"), std::string::npos) << line;
  }
  EXPECT_GE(rows, 40);
}

class Stockouts : public testing_support::ScenarioFixture {};

// A job reclaimed while provisioning (capacity 1 -> 0 at 30 s, back at 60 s) launches again;
// its queue wait is that of its first launch (0), and it starts and is billed once.
//   launch 0, reclaimed at 30; relaunch at 60, provisioning 60-110, runs 110-210.
TEST_F(Stockouts, JobReclaimedWhileProvisioningKeepsItsFirstWait) {
  write("job.csv", "submit_s,gpus,duration_s\n0,1,100\n");
  write("avail.csv", "available\n1\n0\n1\n1\n1\n1\n1\n1\n1\n1\n1\n1\n");
  const Row r = run_once(parse(
      "name: t\nhorizon: 350s\n"
      "pools:\n  p: {gpu: H100, price_usd_per_gpu_hour: 3600, quota: 1, provisioning_delay: 50s,\n"
      "      availability: {file: avail.csv, step: 30s}}\n"
      "workloads:\n  - {name: j, arrivals: {process: trace, file: job.csv}}\n"));
  EXPECT_EQ(r[kWaitMeanS], 0.0);
  EXPECT_EQ(r[kWaitProbability], 0.0);
  EXPECT_EQ(r[kJobsStarted], 1.0);
  EXPECT_EQ(r[kProvisioningMeanS], 50.0);
  EXPECT_EQ(r[kCompletionMeanS], 210.0);
  EXPECT_EQ(r[kCostUsd], 100.0);
  EXPECT_EQ(r[kPreemptions], 0.0);  // it never ran
}

// Launches in pool a fail half the time; a failed launch fails over to pool b at once. The share
// of jobs started in a is binomial(n, 1/2), and there are 1/2 failures per job on average.
TEST_F(Stockouts, FailedLaunchesFailOverToTheNextPool) {
  RunOptions options;
  options.replications = 40;
  options.threads = 1;
  const RunResults r = run(
      parse(
          "name: t\nhorizon: 1000h\n"
          "pools:\n"
          "  a: {gpu: H100, price_usd_per_gpu_hour: 1, quota: 64, stockout: {probability: 0.5}}\n"
          "  b: {gpu: H100, price_usd_per_gpu_hour: 2, quota: 64}\n"
          "workloads:\n  - {name: j, arrivals: {process: poisson, rate_per_hour: 2}, work: 1h}\n"),
      options);
  double on_a = 0, total = 0, failures = 0;
  for (size_t i = 0; i < r.replications; ++i) {
    on_a += r.pool_value(0, i, 0, kPoolJobsStarted);
    total += r.scalar(0, i, kJobsStarted);
    failures += r.scalar(0, i, kLaunchFailures);
    EXPECT_EQ(r.scalar(0, i, kLaunchFailures), r.pool_value(0, i, 0, kPoolLaunchFailures));
    EXPECT_EQ(r.scalar(0, i, kWaitMeanS), 0.0);  // b always launches: nobody waits
  }
  const double sd = std::sqrt(total * 0.25);
  EXPECT_NEAR(on_a, total / 2, 5 * sd);
  EXPECT_NEAR(failures, total / 2, 5 * sd);
}

// With one pool, a failed launch waits for the retry: failures per job are geometric with
// p = 0.3, so the mean wait is retry x p / (1 - p) = 600 s x 3/7 = 257.14 s. Jobs are rare
// (1 a day), so they almost never share a retry.
TEST_F(Stockouts, RetriesMakeTheWaitGeometric) {
  RunOptions options;
  options.replications = 200;
  const RunResults r = run(
      parse("name: t\nhorizon: 300d\n"
            "pools:\n  a: {gpu: H100, price_usd_per_gpu_hour: 1, quota: 64,\n"
            "      stockout: {probability: 0.3, retry_after: 10min}}\n"
            "workloads:\n  - {name: j, arrivals: {process: poisson, rate_per_day: 1}, work: 1h}\n"
            "policy: {backfill: true}\n"),
      options);
  const MetricSummary& wait = r.summary_of(0, kWaitMeanS);
  const double analytic = 600.0 * 0.3 / 0.7;
  const double half = ci_half_width(wait, 0.99);
  std::printf("  stockout retries: mean wait analytic %.2f s, simulated %.2f +- %.2f s (99%%)\n",
              analytic, wait.mean, half);
  EXPECT_NEAR(wait.mean, analytic, half);
  EXPECT_LT(2 * half, 0.05 * analytic);
  double failures = 0, jobs = 0;
  for (size_t i = 0; i < r.replications; ++i) {
    failures += r.scalar(0, i, kLaunchFailures);
    jobs += r.scalar(0, i, kJobsStarted);
  }
  EXPECT_NEAR(failures / jobs, 0.3 / 0.7, 0.02);
}

TEST_F(Stockouts, ProbabilityMustBeBelowOne) {
  const std::string message = error_of(
      "name: t\nhorizon: 1h\npools:\n  a: {gpu: H100, price_usd_per_gpu_hour: 1, quota: 8,\n"
      "      stockout: {probability: 1}}\n"
      "workloads:\n  - {name: j, arrivals: {process: poisson, rate_per_day: 1}, work: 1h}\n");
  EXPECT_NE(message.find("pools.a.stockout.probability: must be a probability >= 0 and < 1 (1 is "
                         "rejected: a pool that never launches would stall its jobs"),
            std::string::npos)
      << message;
}

TEST_F(Stockouts, JsonTraceErrorsNameTheJsonPosition) {
  write("bad.json", "{\"metadata\": {\"gap_seconds\": 60},\n \"data\": [1, 0, -2]}\n");
  write("shapeless.json", "{\"data\": [1, 0]}\n");
  const std::string head =
      "name: t\nhorizon: 1h\npools:\n  a: {gpu: H100, price_usd_per_gpu_hour: 1, quota: 8,\n"
      "      availability: {file: ";
  const std::string tail =
      "}}\nworkloads:\n  - {name: j, arrivals: {process: poisson, rate_per_day: 1}, work: 1h}\n";
  auto error_for_file = [&](const std::string& file) { return error_of(head + file + tail); };
  const std::string bad = error_for_file("bad.json");
  EXPECT_NE(bad.find("pools.a.availability.file: "), std::string::npos) << bad;
  EXPECT_NE(bad.find("bad.json:2:17: data[2] (instances) must be a count from 0 to 1e12, got -2"),
            std::string::npos)
      << bad;
  EXPECT_NE(error_for_file("shapeless.json")
                .find("expected {\"metadata\": {\"gap_seconds\": N}, \"data\": [counts...]}; "
                      "missing metadata.gap_seconds"),
            std::string::npos);
  // JSON is read as JSON: a string is never a number, and the text must be JSON throughout.
  const std::vector<std::pair<std::string, std::string>> strict{
      {"{\"metadata\": {\"gap_seconds\": \"300\"}, \"data\": [1]}",
       ":1:30: metadata.gap_seconds must be a number of seconds, got the string \"300\""},
      {"{\"metadata\": {\"gap_seconds\": \"5min\"}, \"data\": [1]}",
       "metadata.gap_seconds must be a number of seconds, got the string \"5min\""},
      {"{\"metadata\": {\"gap_seconds\": 60}, \"data\": [\"1\", 0]}",
       ":1:44: data[0] (instances) must be a number, got the string \"1\""},
      {"{\"metadata\": {\"gap_seconds\": 60}, \"data\": [1, NaN]}", ":1:47: expected a value"},
      {"{\"metadata\": {\"gap_seconds\": 60}, \"data\": [1, 01]}", "a number may not start with 0"},
      {"{\"metadata\": {\"gap_seconds\": 60}, \"data\": [1], \"data\": [2]}",
       "the key \"data\" appears twice"},
      {"{\"metadata\": {\"gap_seconds\": 60}, \"data\": [1]} x", "text after the JSON value"},
      {"{\"metadata\": {\"gap_seconds\": 60}, \"data\": [[1]]}",
       "data[0] (instances) must be a number, got a list"},
      {"{\"metadata\": {\"gap_seconds\": 1e-300}, \"data\": [1]}",
       "metadata.gap_seconds must be a number of seconds from 1e-6 to 3.156e11, got 1e-300"},
      {"{\"metadata\": {\"x\": " + std::string(100, '[') + std::string(100, ']') + "}}",
       "nested more than 64 levels deep"},
      {"{\"metadata\": {\"gap_seconds\": 60}, \"data\": [1, 2",
       "expected ',' or ']', found the end"}};
  for (const auto& [json, message] : strict) {
    write("strict.json", json);
    const std::string error = error_for_file("strict.json");
    EXPECT_NE(error.find(message), std::string::npos) << json << "\n" << error;
  }
  // Other metadata is allowed, and a valid file reads exactly.
  write("ok.json",
        "{\"metadata\": {\"gap_seconds\": 195, \"zone\": \"us-east-1a\"},\n"
        " \"data\": [1, 0, 2.5e0, 1]}");
  const Scenario s = parse(head + "ok.json" + tail);
  EXPECT_EQ(s.pools[0].availability_step_s, 195.0);
  EXPECT_EQ(s.pools[0].availability, (std::vector<double>{1, 0, 2.5, 1}));
}

class Marketplace : public testing_support::ScenarioFixture {};

// A marketplace node runs at speed 1 but each run is slowed by a factor drawn per run: a fixed
// 1.25 makes a 100 s job take 125 s; node failures (preemption) work as on spot.
TEST_F(Marketplace, SlowdownStretchesEveryRun) {
  write("job.csv", "submit_s,gpus,duration_s\n0,1,100\n");
  const Row r = run_once(parse(
      "name: t\nhorizon: 1h\n"
      "pools:\n  m: {gpu: RTX4090, purchase: marketplace, price_usd_per_gpu_hour: 3600, quota: 1,\n"
      "      slowdown: 1.25, preemption: {time_to_preemption: 1000h}}\n"
      "workloads:\n  - {name: j, arrivals: {process: trace, file: job.csv}}\n"));
  EXPECT_DOUBLE_EQ(r[kCompletionMeanS], 125.0);
  EXPECT_DOUBLE_EQ(r[kCostUsd], 125.0);
}

// With a uniform slowdown on [1, 2], a job of work W takes W x E[factor] = 1.5 W on average.
TEST_F(Marketplace, MeanSlowdownMatchesItsDistribution) {
  RunOptions options;
  options.replications = 20;
  const RunResults r = run(
      parse(
          "name: t\nhorizon: 2000h\n"
          "pools:\n  m: {gpu: RTX4090, purchase: marketplace, price_usd_per_gpu_hour: 1,\n"
          "      quota: 512, slowdown: {dist: uniform, min: 1, max: 2},\n"
          "      preemption: {time_to_preemption: 100000h}}\n"
          "workloads:\n  - {name: j, arrivals: {process: poisson, rate_per_hour: 10}, work: 1h}\n"),
      options);
  const MetricSummary& c = r.summary_of(0, kCompletionMeanS);
  // 20 x ~20,000 jobs: the standard error of the mean factor is about 0.29 / sqrt(400,000).
  EXPECT_NEAR(c.mean, 1.5 * 3600, 5 * 0.29 * 3600 / std::sqrt(400000.0));
}

// A zone-wide event at 100 s reclaims both jobs of the spot pool at once. The pool takes no
// launches while the event is handled, so both fail over to on-demand at once and finish at
// 100 + 250 = 350 s; 2 x 100 s of work are lost.
TEST_F(Marketplace, ZoneEventsReclaimEveryJobAtOnce) {
  write("jobs.csv", "submit_s,gpus,duration_s\n0,1,250\n0,1,250\n");
  const Row r = run_once(
      parse("name: t\nhorizon: 1h\n"
            "pools:\n"
            "  spot: {gpu: H100, purchase: spot, price_usd_per_gpu_hour: 3600, quota: 2,\n"
            "         preemption: {zone_events: 100s}}\n"
            "  od: {gpu: H100, price_usd_per_gpu_hour: 3600, quota: 2}\n"
            "workloads:\n"
            "  - {name: j, arrivals: {process: trace, file: jobs.csv}, placement: [spot, od],\n"
            "     fallback: {after_preemptions: 2}}\n"));
  EXPECT_EQ(r[kPreemptions], 2.0);
  EXPECT_EQ(r.pool(0, kPoolPreemptions), 2.0);
  EXPECT_EQ(r.pool(1, kPoolJobsStarted), 0.0);  // a job starts once, in its first pool
  EXPECT_DOUBLE_EQ(r[kCompletionMeanS], 350.0);
  EXPECT_DOUBLE_EQ(r[kGpuHoursLost] * 3600, 200.0);
  EXPECT_DOUBLE_EQ(r.pool(1, kPoolGpuHoursUsed) * 3600, 500.0);
}

class Network : public testing_support::ScenarioFixture {};

// A job whose 100 GB of data live in us runs in eu: each run first fetches the data over the
// 8 Gbit/s link with 100 ms latency (0.1 + 100 x 8 / 8 = 100.1 s, billed GPU time) and pays
// us egress of 0.09 USD/GB (9 USD). Completion 1100.1 s; billed ceil(1100.1) = 1101 s at
// 1 USD per GPU-second, plus 9 USD.
TEST_F(Network, DataFromAnotherRegionCostsTimeAndEgress) {
  write("job.csv", "submit_s,gpus,duration_s\n0,1,1000\n");
  const std::string yaml =
      "name: t\nhorizon: 1h\n"
      "regions:\n"
      "  us: {latency_ms: {eu: 100}, bandwidth_gbps: {eu: 8}, egress_usd_per_gb: 0.09}\n"
      "  eu: {}\n"
      "pools:\n  gpus: {gpu: H100, region: eu, price_usd_per_gpu_hour: 3600, quota: 1}\n"
      "workloads:\n  - {name: j, arrivals: {process: trace, file: job.csv},\n"
      "     data: {size_gb: 100, region: us}}\n";
  const Row r = run_once(parse(yaml));
  EXPECT_DOUBLE_EQ(r[kCompletionMeanS], 1100.1);
  EXPECT_DOUBLE_EQ(r[kEgressUsd], 9.0);
  EXPECT_DOUBLE_EQ(r.pool(0, kPoolEgressUsd), 9.0);
  EXPECT_DOUBLE_EQ(r[kCostUsd], 1101.0 + 9.0);
  EXPECT_DOUBLE_EQ(r[kGpuHoursTransferring] * 3600, 100.1);
  // The same job with its data in eu: no transfer, no egress.
  std::string local = yaml;
  local.replace(local.find("region: us}}"), 12, "region: eu}}");
  const Row l = run_once(parse(local));
  EXPECT_DOUBLE_EQ(l[kCompletionMeanS], 1000.0);
  EXPECT_EQ(l[kEgressUsd], 0.0);
}

// A checkpoint follows its job to another region: preempted on spot in us at 100 s (2 cycles of
// 40 + 10 saved 80 s), the job falls back to on-demand in eu, where it first copies its 100 GB
// checkpoint over 8 Gbit/s (100 s, 5 USD of us egress), restores (5 s), then computes the 170 s
// left with 4 checkpoints (40 s): 100 + 5 + 170 + 40 = 315 s, done at 415 s.
// Cost: 100 s on spot at 1 USD/s, 315 s on-demand at 2 USD/s plus 5 USD egress = 735 USD.
TEST_F(Network, CheckpointsMoveWithTheirJobBetweenRegions) {
  write("job.csv", "submit_s,gpus,duration_s\n0,1,250\n");
  const Row r = run_once(parse(
      "name: t\nhorizon: 1h\n"
      "regions:\n  us: {bandwidth_gbps: {eu: 8}, egress_usd_per_gb: 0.05}\n  eu: {}\n"
      "pools:\n"
      "  spot: {gpu: H100, region: us, purchase: spot, price_usd_per_gpu_hour: 3600, quota: 1,\n"
      "         preemption: {time_to_preemption: 100s}}\n"
      "  od: {gpu: H100, region: eu, price_usd_per_gpu_hour: 7200, quota: 1}\n"
      "workloads:\n"
      "  - name: j\n"
      "    arrivals: {process: trace, file: job.csv}\n"
      "    checkpoint: {interval: 40s, write: 10s, restart: 5s, size_gb: 100}\n"
      "    fallback: {after_preemptions: 1}\n"));
  EXPECT_DOUBLE_EQ(r[kCompletionMeanS], 415.0);
  EXPECT_DOUBLE_EQ(r[kEgressUsd], 5.0);
  EXPECT_DOUBLE_EQ(r.pool(1, kPoolEgressUsd), 5.0);
  EXPECT_DOUBLE_EQ(r[kCostUsd], 735.0);
  EXPECT_DOUBLE_EQ(r[kGpuHoursTransferring] * 3600, 100.0);
  EXPECT_DOUBLE_EQ(r[kGpuHoursRestarting] * 3600, 5.0);
  EXPECT_DOUBLE_EQ(r[kGpuHoursCheckpointing] * 3600, 60.0);
}

TEST_F(Network, MissingLinkIsNamed) {
  const std::string message = error_of(
      "name: t\nhorizon: 1h\nregions:\n  us: {}\n  eu: {}\n"
      "pools:\n  gpus: {gpu: H100, region: eu, price_usd_per_gpu_hour: 1, quota: 1}\n"
      "workloads:\n  - {name: j, arrivals: {process: poisson, rate_per_day: 1}, work: 1h,\n"
      "     data: {size_gb: 10, region: us}}\n");
  EXPECT_NE(message.find(
                "no bandwidth between us and eu (pool \"gpus\"); add regions.us.bandwidth_gbps.eu"),
            std::string::npos)
      << message;
}

}  // namespace
}  // namespace gpucap

namespace gpucap {
namespace {

class PriceProcess : public testing_support::ScenarioFixture {};

// Price trace, 100 s steps: 1, 2, 1, ... USD per GPU-second. A job runs from 50 s to 150 s: it
// pays 50 x 1 + 50 x 2 = 150 USD. With 60 s billing increments it is billed 120 s: the 20 s
// beyond the run at the end price (2), 190 USD in all.
TEST_F(PriceProcess, TracePricesAreIntegratedOverTheRun) {
  write("job.csv", "submit_s,gpus,duration_s\n50,1,100\n");
  write("prices.csv", "price_usd_per_gpu_hour\n3600\n7200\n3600\n3600\n");
  const std::string yaml =
      "name: t\nhorizon: 1h\n"
      "pools:\n  spot: {gpu: H100, purchase: spot, quota: 1, preemption: {max_runtime: 10h},\n"
      "         price_process: {model: trace, file: prices.csv, step: 100s}}\n"
      "workloads:\n  - {name: j, arrivals: {process: trace, file: job.csv}}\n";
  EXPECT_DOUBLE_EQ(run_once(parse(yaml))[kCostUsd], 150.0);
  std::string minute = yaml;
  minute.replace(minute.find("quota: 1"), 8, "quota: 1, billing_increment: 60s");
  EXPECT_DOUBLE_EQ(run_once(parse(minute))[kCostUsd], 190.0);
}

// A mean-reverting log-price x (theta = 0.5/h, sigma = 0.3/sqrt(h)) around a level of 2 USD per
// GPU-hour: stationary x ~ N(0, sigma^2 / (2 theta)), so the long-run mean price is
// 2 e^(sigma^2 / (4 theta)) = 2 e^0.045 = 2.0921 USD per GPU-hour. A GPU kept busy for 2000 h
// pays that on average.
TEST_F(PriceProcess, MeanRevertingPriceAveragesToItsStationaryMean) {
  RunOptions options;
  options.replications = 40;
  const RunResults r = run(
      parse("name: t\nhorizon: 2000h\n"
            "pools:\n  od: {gpu: H100, price_usd_per_gpu_hour: 2, quota: 1,\n"
            "       price_process: {model: mean_reverting, volatility_per_sqrt_hour: 0.3,\n"
            "                       reversion_per_hour: 0.5, step: 5min}}\n"
            "workloads:\n  - {name: j, arrivals: {process: poisson, rate_per_hour: 2}, work: 1h}\n"
            "policy: {queue_capacity: 1000000}\n"),
      options);
  std::vector<double> per_hour;
  for (size_t i = 0; i < r.replications; ++i)
    per_hour.push_back(r.scalar(0, i, kCostUsd) / r.scalar(0, i, kGpuHoursBilled));
  const MetricSummary s = summarize(per_hour);
  const double analytic = 2.0 * std::exp(0.3 * 0.3 / (4 * 0.5));
  std::printf("  mean-reverting price: paid %.4f +- %.4f USD/GPU-h (99%%), analytic %.4f\n", s.mean,
              ci_half_width(s, 0.99), analytic);
  EXPECT_NEAR(s.mean, analytic, ci_half_width(s, 0.99));
  EXPECT_LT(ci_half_width(s, 0.99), 0.01 * analytic);
}

}  // namespace
}  // namespace gpucap
