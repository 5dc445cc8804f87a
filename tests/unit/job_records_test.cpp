// Per-job records (scenario key `records.jobs`): a hand-checked queue, their sums against the
// replication's metrics, the same records on the thrust-omp backend, the HDF5 round trip, the
// memory guard and the key's checks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpucap/backend.hpp"
#include "gpucap/hdf5_results.hpp"
#include "gpucap/job_records_run.hpp"
#include "gpucap/metrics.hpp"
#include "gpucap/run.hpp"
#include "gpucap/scenario_loader.hpp"
#include "support/scenario_fixture.hpp"

namespace gpucap {
namespace {

class JobRecordsTest : public testing_support::ScenarioFixture {
 protected:
  RunOptions options(BackendChoice backend = BackendChoice::cpu) {
    RunOptions o;
    o.backend = backend;
    o.threads = 2;
    o.progress = false;
    return o;
  }
  /// spot_training with every job in the statistics window (no warm-up), over 6 days.
  Scenario spot_training(uint64_t records) {
    return load_scenario(std::string(GPUCAP_SOURCE_DIR) + "/scenarios/spot_training.yaml",
                         {"warmup=0s", "horizon=6d", "replications=6",
                          "records={jobs: " + std::to_string(records) + "}"});
  }
};

// One GPU at 3.6 USD per GPU-hour (0.001 USD/s, billed per second), four jobs from a trace:
// FIFO makes the queue by hand. Job 3 runs from 6000 s and is cut off at the 7200 s horizon.
TEST_F(JobRecordsTest, HandCheckedQueueHasExactTimesAndCosts) {
  write("trace.csv", "submit_s,gpus,duration_s\n0,1,1800\n600,1,1800\n1200,1,1800\n6000,1,3600\n");
  const Scenario s = parse(
      "name: hand\nhorizon: 2h\nreplications: 3\nrecords: {jobs: 2}\n"
      "pools:\n  p: {gpu: H100, price_usd_per_gpu_hour: 3.6, quota: 1, billing_increment: 1s}\n"
      "workloads:\n  - name: w\n    arrivals: {process: trace, file: trace.csv}\n"
      "    placement: [p]\n");
  const RunResults r = run(s, options());
  ASSERT_EQ(r.job_replications, 2u);
  ASSERT_EQ(r.job_classes, std::vector<std::string>{"w"});
  ASSERT_EQ(r.jobs.size(), 8u);  // 4 jobs in each of replications 0 and 1
  const double arrival[4] = {0, 600, 1200, 6000}, start[4] = {0, 1800, 3600, 6000};
  const double cost[4] = {1.8, 1.8, 1.8, 1.2};
  for (std::size_t i = 0; i < r.jobs.size(); ++i) {
    const JobRecord& j = r.jobs[i];
    const std::size_t k = i % 4;
    EXPECT_EQ(j.point, 0u);
    EXPECT_EQ(j.replication, i / 4);
    EXPECT_EQ(j.job, k);
    EXPECT_EQ(j.job_class, 0u);
    EXPECT_EQ(j.arrival_s, arrival[k]);
    EXPECT_EQ(j.start_s, start[k]);
    if (k < 3) EXPECT_EQ(j.end_s, start[k] + 1800); else EXPECT_TRUE(std::isnan(j.end_s));
    EXPECT_EQ(j.pool, 0);
    EXPECT_EQ(j.runs, 1u);
    EXPECT_EQ(j.preemptions, 0u);
    EXPECT_NEAR(j.cost_usd, cost[k], 1e-12);
  }
  EXPECT_DOUBLE_EQ(r.scalar(0, 0, kCostUsd), 6.6);
}

// The records add up to the replication's metrics (every hold billed to a job: no committed
// pools, no services), and each re-simulated row equals the run's bit for bit (add_job_records
// checks it; a mismatch throws).
TEST_F(JobRecordsTest, RecordsAddUpToEachReplicationsMetrics) {
  const RunResults r = run(spot_training(4), options());
  ASSERT_EQ(r.job_replications, 4u);
  double preempted_total = 0;
  for (uint64_t rep = 0; rep < 4; ++rep) {
    double cost = 0, preemptions = 0, completed = 0, started = 0, arrived = 0;
    for (const JobRecord& j : r.jobs) {
      if (j.replication != rep) continue;
      EXPECT_EQ(j.job, static_cast<uint64_t>(arrived));  // by arrival order
      arrived += 1;
      cost += j.cost_usd;
      preemptions += j.preemptions;
      completed += std::isnan(j.end_s) ? 0 : 1;
      started += j.runs > 0 ? 1 : 0;
      if (!std::isnan(j.end_s)) {
        EXPECT_GE(j.end_s, j.start_s);
      }
      EXPECT_GE(j.runs, j.preemptions);
    }
    EXPECT_EQ(arrived, r.scalar(0, rep, kJobsArrived));
    EXPECT_EQ(completed, r.scalar(0, rep, kJobsCompleted));
    EXPECT_EQ(started, r.scalar(0, rep, kJobsStarted));
    EXPECT_EQ(preemptions, r.scalar(0, rep, kPreemptions));
    EXPECT_NEAR(cost, r.scalar(0, rep, kCostUsd), 1e-9 * r.scalar(0, rep, kCostUsd));
    preempted_total += preemptions;
  }
  EXPECT_GT(preempted_total, 0);  // the scenario exercises preemptions
}

TEST_F(JobRecordsTest, SameRecordsOnThrustOmp) {
  const RunResults cpu = run(spot_training(3), options());
  RunResults dev;
  try {
    dev = run(spot_training(3), options(BackendChoice::thrust_omp));
  } catch (const BackendUnavailable& e) {
    GTEST_SKIP() << e.what();
  }
  ASSERT_EQ(dev.jobs.size(), cpu.jobs.size());
  for (std::size_t i = 0; i < cpu.jobs.size(); ++i) {
    EXPECT_EQ(dev.jobs[i].job, cpu.jobs[i].job);
    EXPECT_EQ(std::memcmp(&dev.jobs[i], &cpu.jobs[i], sizeof(JobRecord)), 0) << "job " << i;
  }
}

TEST_F(JobRecordsTest, RoundTripThroughHdf5AndOldFilesReadWithout) {
  const RunResults r = run(spot_training(2), options());
  const std::string path = dir() + "/jobs.h5";
  write_results_hdf5(r, path);
  const RunResults back = read_results_hdf5(path);
  EXPECT_EQ(back.job_replications, 2u);
  EXPECT_EQ(back.job_classes, r.job_classes);
  ASSERT_EQ(back.jobs.size(), r.jobs.size());
  for (std::size_t i = 0; i < r.jobs.size(); ++i)
    EXPECT_EQ(std::memcmp(&back.jobs[i], &r.jobs[i], sizeof(JobRecord)), 0) << "job " << i;
  // Without records: no /jobs, and the file reads as before.
  const RunResults none = run(spot_training(0), options());
  EXPECT_EQ(none.job_replications, 0u);
  EXPECT_TRUE(none.jobs.empty());
  write_results_hdf5(none, dir() + "/none.h5");
  EXPECT_TRUE(read_results_hdf5(dir() + "/none.h5").jobs.empty());
  // The records do not change the run: the same rows with and without.
  ASSERT_EQ(none.scalars.size(), r.scalars.size());
  EXPECT_EQ(std::memcmp(none.scalars.data(), r.scalars.data(), r.scalars.size() * sizeof(double)),
            0);  // bit for bit, NaN included
}

TEST_F(JobRecordsTest, MemoryGuardRefusesAbsurdRecords) {
  // About 1,000 jobs an hour for 1,000 days: 2.4e7 jobs in one replication.
  const Scenario s = parse(
      "name: many\nhorizon: 1000d\nreplications: 1\nrecords: {jobs: 1}\n"
      "pools:\n  p: {gpu: H100, price_usd_per_gpu_hour: 1, quota: 4}\n"
      "workloads:\n  - name: w\n    arrivals: {process: poisson, rate_per_hour: 1000}\n"
      "    work: {dist: exponential, mean: 1s}\n    placement: [p]\n"
      "policy: {queue_capacity: 0}\n");
  RunResults r = describe_run({s}, {}, s, options());
  r.scalars.assign(kScalarMetricCount, 0.0);
  r.scalars[kJobsArrived] = 2.4e7;
  try {
    add_job_records(r, {s});
    FAIL() << "expected the memory guard";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("more than the 10000000 job records"), std::string::npos)
        << e.what();
  }
}

TEST_F(JobRecordsTest, KeyIsCheckedByTheLoader) {
  const std::string base =
      "name: k\nhorizon: 1h\npools:\n  p: {gpu: H100, price_usd_per_gpu_hour: 1, quota: 1}\n"
      "workloads:\n  - name: w\n    arrivals: {process: poisson, rate_per_hour: 1}\n"
      "    work: {dist: exponential, mean: 1s}\n    placement: [p]\n";
  EXPECT_EQ(parse(base + "records: {jobs: 5}\n").record_jobs, 5u);
  EXPECT_EQ(parse(base).record_jobs, 0u);
  for (const char* bad : {"records: {jobs: -1}\n", "records: {jobs: 2000000}\n",
                          "records: {job: 1}\n", "records: 3\n"}) {
    try {
      parse(base + bad);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find("records"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace gpucap
