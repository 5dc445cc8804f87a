// End-to-end tests of the replication engine on small deterministic systems: hand-computed
// queues from traces (waits, completions, drops, gangs, disciplines, placement, warm-up,
// provisioning, speed), a randomized comparison against a reference simulator, and determinism
// across thread counts.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iomanip>
#include <random>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "gpucap/compile.hpp"
#include "gpucap/metrics.hpp"
#include "gpucap/replication.hpp"
#include "gpucap/run.hpp"
#include "gpucap/scenario_loader.hpp"

#include "support/same_bits.hpp"
#include "support/scenario_fixture.hpp"

namespace gpucap {
namespace {

namespace fs = std::filesystem;

/// The metrics of one replication.
struct Outcome {
  std::vector<double> scalars;
  std::vector<double> pools;  ///< [pool][kPoolMetricCount]
  double operator[](ScalarMetric m) const { return scalars[m]; }
  double pool(std::size_t p, PoolMetric m) const { return pools[p * kPoolMetricCount + m]; }
};

/// Runs replication `rep` of `s` under `seed` in a fresh arena.
Outcome run_one(const Scenario& s, uint64_t seed, uint64_t rep) {
  const ModelStorage storage = compile(s);
  const CompiledModel& model = storage.model();
  std::vector<uint64_t> arena((replication_arena_bytes(model) + 7) / 8);
  Outcome o{std::vector<double>(kScalarMetricCount),
            std::vector<double>(model.pool_count * kPoolMetricCount)};
  EXPECT_EQ(run_replication(model, seed, rep, arena.data(), o.scalars.data(), o.pools.data()),
            kReplicationOk);
  return o;
}

class Engine : public testing_support::ScenarioFixture {
 protected:
  /// Writes a trace CSV of (submit_s, gpus, duration_s) rows and returns its file name.
  std::string trace(const std::string& name, const std::vector<std::vector<double>>& rows) {
    std::ofstream out(dir_ / name);
    out << "submit_s,gpus,duration_s\n" << std::setprecision(17);
    for (const auto& r : rows) out << r[0] << "," << r[1] << "," << r[2] << "\n";
    return name;
  }

  /// One pool "gpus" of `quota` and one trace-driven workload "jobs"; `extra` adds lines.
  Scenario single_pool(const std::string& file, int quota, const std::string& policy = "",
                       const std::string& pool_extra = "", const std::string& horizon = "1h",
                       const std::string& warmup = "") {
    return parse(
        "name: t\n"
        "horizon: " +
        horizon + "\n" + (warmup.empty() ? "" : "warmup: " + warmup + "\n") +
        "pools:\n"
        "  gpus:\n"
        "    gpu: A100\n"
        "    price_usd_per_gpu_hour: 3600\n"  // 1 USD per GPU-second
        "    quota: " +
        std::to_string(quota) + "\n" + pool_extra +
        "workloads:\n"
        "  - name: jobs\n"
        "    arrivals: {process: trace, file: " +
        file + "}\n" + (policy.empty() ? "" : "policy: " + policy + "\n"));
  }
};

// ---- hand-computed systems ------------------------------------------------------------------

/// Replication 0 of `s` with its time series of GPUs in use, [pool][bin].
std::vector<double> usage_series_of(const Scenario& s) {
  const ModelStorage storage = compile(s);
  const CompiledModel& model = storage.model();
  std::vector<uint64_t> arena((replication_arena_bytes(model) + 7) / 8);
  std::vector<double> scalars(kScalarMetricCount), pools(model.pool_count * kPoolMetricCount);
  std::vector<double> series(model.pool_count * model.timeseries_bins, -1.0);
  EXPECT_EQ(run_replication(model, 1, 0, arena.data(), scalars.data(), pools.data(), series.data()),
            kReplicationOk);
  return series;
}

TEST_F(Engine, TimeSeriesIsTheMeanOfGpusInUsePerBin) {
  // Two GPUs; jobs at 0, 10, 20 s of 15 s each run over [0, 15], [10, 25], [20, 35].
  const std::string file = trace("t.csv", {{0, 1, 15}, {10, 1, 15}, {20, 1, 15}});
  EXPECT_EQ(usage_series_of(single_pool(file, 2, "", "", "60s") /* no time series */).size(), 0u);
  // 10 s bins: 10/10, 15/10, 15/10, 5/10, 0, 0 GPU-seconds per second.
  Scenario s = single_pool(file, 2, "", "", "60s");
  s.timeseries_step_s = 10;
  EXPECT_EQ(usage_series_of(s), (std::vector<double>{1.0, 1.5, 1.5, 0.5, 0.0, 0.0}));
  // 25 s bins: the last is 10 s long (the horizon is 60 s): 35/25, 10/25, 0/10.
  s.timeseries_step_s = 25;
  const std::vector<double> coarse = usage_series_of(s);
  ASSERT_EQ(coarse.size(), 3u);
  EXPECT_DOUBLE_EQ(coarse[0], 35.0 / 25.0);
  EXPECT_DOUBLE_EQ(coarse[1], 10.0 / 25.0);
  EXPECT_EQ(coarse[2], 0.0);
}

TEST_F(Engine, DeterministicSingleServerQueue) {
  // Jobs at 0, 10, 20 s, each 15 s on the one GPU: starts 0, 15, 30; ends 15, 30, 45.
  const Outcome o =
      run_one(single_pool(trace("t.csv", {{0, 1, 15}, {10, 1, 15}, {20, 1, 15}}), 1), 1, 0);
  EXPECT_EQ(o[kJobsArrived], 3.0);
  EXPECT_EQ(o[kJobsStarted], 3.0);
  EXPECT_EQ(o[kJobsCompleted], 3.0);
  EXPECT_EQ(o[kJobsDropped], 0.0);
  EXPECT_EQ(o[kWaitMeanS], 5.0);         // (0 + 5 + 10) / 3
  EXPECT_EQ(o[kCompletionMeanS], 20.0);  // (15 + 20 + 25) / 3
  EXPECT_EQ(o[kWaitProbability], 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(o[kGpuHoursUsed], 45.0 / 3600.0);
  EXPECT_DOUBLE_EQ(o[kGpuHoursBilled], 45.0 / 3600.0);
  EXPECT_EQ(o[kCostUsd], 45.0);
  EXPECT_DOUBLE_EQ(o[kUtilization], 45.0 / 3600.0);
  EXPECT_DOUBLE_EQ(o[kQueueLengthMean], 15.0 / 3600.0);  // waits of 5 s and 10 s
  EXPECT_DOUBLE_EQ(o[kJobsRunningMean], 45.0 / 3600.0);
  EXPECT_EQ(o[kEvents], 6.0);  // 3 arrivals + 3 completions
  EXPECT_EQ(o.pool(0, kPoolJobsStarted), 3.0);
  // Up to 64 observations the percentiles are exact (type 7): waits 0, 5, 10 and completions
  // 15, 20, 25.
  EXPECT_EQ(o[kWaitP50S], 5.0);
  EXPECT_DOUBLE_EQ(o[kWaitP95S], 9.5);
  EXPECT_DOUBLE_EQ(o[kWaitP99S], 9.9);
  EXPECT_EQ(o[kCompletionP50S], 20.0);
  EXPECT_DOUBLE_EQ(o[kCompletionP95S], 24.5);
}

// Nothing completes, nothing launches: the metrics over jobs are not defined (NaN), not 0.
TEST_F(Engine, MetricsWithNoObservationsAreNaN) {
  // One GPU held by a job longer than the horizon; a second job waits until the end.
  const Outcome o = run_one(single_pool(trace("t.csv", {{0, 1, 7200}, {10, 1, 60}}), 1), 1, 0);
  EXPECT_EQ(o[kJobsCompleted], 0.0);
  for (ScalarMetric m : {kCompletionMeanS, kCompletionP50S, kCompletionP95S, kCompletionP99S})
    EXPECT_TRUE(std::isnan(o[m])) << kScalarMetricInfo[m].name;
  EXPECT_EQ(o[kWaitMeanS], 0.0);  // the first job launched at once: waits are defined
  EXPECT_EQ(o[kDropFraction], 0.0);
  // No job at all: waits, drop fraction and provisioning are not defined either.
  const Outcome none = run_one(single_pool(trace("none.csv", {{7200, 1, 60}}), 1), 1, 0);
  for (ScalarMetric m : {kWaitMeanS, kWaitP50S, kWaitP99S, kWaitProbability, kDropFraction,
                         kProvisioningMeanS, kCompletionMeanS})
    EXPECT_TRUE(std::isnan(none[m])) << kScalarMetricInfo[m].name;
  EXPECT_EQ(none[kJobsArrived], 0.0);  // counts are always defined
  EXPECT_EQ(none[kCostUsd], 0.0);
  // Inference metrics of a scenario without services: requests served 0, latency NaN.
  EXPECT_TRUE(std::isnan(none[kLatencyMeanS]));
}

TEST_F(Engine, RunGivesTheSameValuesForEveryReplicationOfATrace) {
  const Scenario s = single_pool(trace("t.csv", {{0, 1, 15}, {10, 1, 15}, {20, 1, 15}}), 1);
  RunOptions options;
  options.replications = 3;
  options.threads = 1;
  const RunResults r = run(s, options);
  for (std::size_t rep = 0; rep < 3; ++rep) {
    EXPECT_EQ(r.scalar(0, rep, kWaitMeanS), 5.0);
    EXPECT_EQ(r.scalar(0, rep, kCompletionMeanS), 20.0);
    EXPECT_EQ(r.scalar(0, rep, kJobsCompleted), 3.0);
  }
  EXPECT_EQ(r.summary_of(0, kWaitMeanS).mean, 5.0);
  EXPECT_EQ(r.summary_of(0, kWaitMeanS).std, 0.0);
}

TEST_F(Engine, GangWaitsForEnoughGpusInOnePool) {
  // Two pools of 5. X (3 GPUs) takes a, Y (3 GPUs) takes b; Z (4 GPUs) arrives at 10 s when
  // 2 + 2 GPUs are free but not 4 in one pool: it waits until X ends at 100 s and runs on a.
  const std::string file = trace("t.csv", {{0, 3, 100}, {0, 3, 200}, {10, 4, 50}});
  const Scenario s = parse(
      "name: gang\nhorizon: 1h\n"
      "pools:\n"
      "  a: {gpu: A100, price_usd_per_gpu_hour: 3600, quota: 5}\n"
      "  b: {gpu: A100, price_usd_per_gpu_hour: 3600, quota: 5}\n"
      "workloads:\n"
      "  - {name: jobs, placement: [a, b], arrivals: {process: trace, file: " +
      file + "}}\n");
  const Outcome o = run_one(s, 1, 0);
  EXPECT_EQ(o[kJobsStarted], 3.0);
  EXPECT_EQ(o[kWaitMeanS], 30.0);  // (0 + 0 + 90) / 3
  EXPECT_EQ(o[kWaitProbability], 1.0 / 3.0);
  EXPECT_EQ(o[kCompletionMeanS], 440.0 / 3.0);  // (100 + 200 + 140) / 3
  EXPECT_EQ(o.pool(0, kPoolJobsStarted), 2.0);  // X and Z
  EXPECT_EQ(o.pool(1, kPoolJobsStarted), 1.0);  // Y
  EXPECT_EQ(o.pool(0, kPoolCostUsd), 3 * 100 + 4 * 50.0);
  EXPECT_EQ(o.pool(1, kPoolCostUsd), 3 * 200.0);
}

TEST_F(Engine, FifoBlocksTheHeadOfLineAndBackfillLetsASmallJobPass) {
  // Quota 4. A (2 GPUs, 100 s) at 0; B (4 GPUs, 50 s) at 10 must wait for A; C (1 GPU, 10 s)
  // at 20 fits in the 2 free GPUs.
  const std::string file = trace("t.csv", {{0, 2, 100}, {10, 4, 50}, {20, 1, 10}});
  // FIFO: C waits behind B: B runs 100-150, C 150-160.
  const Outcome fifo = run_one(single_pool(file, 4, "{queue: fifo}"), 1, 0);
  EXPECT_EQ(fifo[kWaitMeanS], 220.0 / 3.0);        // (0 + 90 + 130) / 3
  EXPECT_EQ(fifo[kCompletionMeanS], 380.0 / 3.0);  // (100 + 140 + 140) / 3
  EXPECT_EQ(fifo[kWaitProbability], 2.0 / 3.0);
  // Backfill: C runs at once (20-30); B still starts at 100.
  const Outcome backfill = run_one(single_pool(file, 4, "{queue: fifo, backfill: true}"), 1, 0);
  EXPECT_EQ(backfill[kWaitMeanS], 30.0);               // (0 + 90 + 0) / 3
  EXPECT_EQ(backfill[kCompletionMeanS], 250.0 / 3.0);  // (100 + 140 + 10) / 3
  EXPECT_EQ(backfill[kWaitProbability], 1.0 / 3.0);
}

TEST_F(Engine, BackfillStartsAWaitingJobWhenItFits) {
  // Quota 4: A (3 GPUs, 100 s) at 0; B (2 GPUs, 10 s) at 1 waits; C (1 GPU, 10 s) at 2 fits
  // with backfill (runs 2-12) and B starts when A ends (100-110).
  const std::string file = trace("t.csv", {{0, 3, 100}, {1, 2, 10}, {2, 1, 10}});
  const Outcome o = run_one(single_pool(file, 4, "{backfill: true}"), 1, 0);
  EXPECT_EQ(o[kWaitMeanS], 99.0 / 3.0);  // (0 + 99 + 0) / 3
  EXPECT_EQ(o[kJobsCompleted], 3.0);
}

TEST_F(Engine, PriorityOrdersTheQueue) {
  // Quota 1. Class low (priority 0): a blocker 0-100 and L (10 s) at 10; class high
  // (priority 10): H (50 s) at 20.
  const std::string low = trace("low.csv", {{0, 1, 100}, {10, 1, 10}});
  const std::string high = trace("high.csv", {{20, 1, 50}});
  const auto scenario = [&](const std::string& queue) {
    return parse(
        "name: prio\nhorizon: 1h\n"
        "pools:\n  gpus: {gpu: A100, price_usd_per_gpu_hour: 1, quota: 1}\n"
        "workloads:\n"
        "  - {name: low, priority: 0, arrivals: {process: trace, file: " +
        low +
        "}}\n"
        "  - {name: high, priority: 10, arrivals: {process: trace, file: " +
        high +
        "}}\n"
        "policy: {queue: " +
        queue + "}\n");
  };
  // FIFO: L 100-110 (waits 90), H 110-160 (waits 90).
  const Outcome fifo = run_one(scenario("fifo"), 1, 0);
  EXPECT_EQ(fifo[kWaitMeanS], 60.0);
  EXPECT_EQ(fifo[kCompletionMeanS], 340.0 / 3.0);  // (100 + 100 + 140) / 3
  // Priority: H 100-150 (waits 80), L 150-160 (waits 140).
  const Outcome prio = run_one(scenario("priority"), 1, 0);
  EXPECT_EQ(prio[kWaitMeanS], 220.0 / 3.0);
  EXPECT_EQ(prio[kCompletionMeanS], 380.0 / 3.0);  // (100 + 130 + 150) / 3
}

TEST_F(Engine, EqualPrioritiesKeepArrivalOrder) {
  // Same trace, both classes at priority 5: the priority queue must behave as FIFO.
  const std::string a = trace("a.csv", {{0, 1, 100}, {10, 1, 10}});
  const std::string b = trace("b.csv", {{20, 1, 50}});
  const Outcome o =
      run_one(parse("name: prio\nhorizon: 1h\n"
                    "pools:\n  gpus: {gpu: A100, price_usd_per_gpu_hour: 1, quota: 1}\n"
                    "workloads:\n"
                    "  - {name: a, priority: 5, arrivals: {process: trace, file: " +
                    a +
                    "}}\n"
                    "  - {name: b, priority: 5, arrivals: {process: trace, file: " +
                    b +
                    "}}\n"
                    "policy: {queue: priority}\n"),
              1, 0);
  EXPECT_EQ(o[kWaitMeanS], 60.0);
}

TEST_F(Engine, ShortestJobFirstOrdersTheQueue) {
  // Quota 1: blocker 0-100, a 50 s job at 10 and a 10 s job at 20.
  const std::string file = trace("t.csv", {{0, 1, 100}, {10, 1, 50}, {20, 1, 10}});
  // FIFO: 50 s job 100-150 (waits 90), 10 s job 150-160 (waits 130).
  const Outcome fifo = run_one(single_pool(file, 1, "{queue: fifo}"), 1, 0);
  EXPECT_EQ(fifo[kWaitMeanS], 220.0 / 3.0);
  // SJF: 10 s job 100-110 (waits 80), 50 s job 110-160 (waits 100).
  const Outcome sjf = run_one(single_pool(file, 1, "{queue: sjf}"), 1, 0);
  EXPECT_EQ(sjf[kWaitMeanS], 60.0);
  EXPECT_EQ(sjf[kCompletionMeanS], 340.0 / 3.0);  // (100 + 90 + 150) / 3
}

TEST_F(Engine, PlacementPrefersTheFirstPoolAndOverflowsToTheNext) {
  // Five 1-GPU jobs of 100 s at t = 0; pools of 2 GPUs. Four start at once (2 + 2), the fifth
  // starts at 100 s in the first preferred pool that frees a GPU.
  const std::string file =
      trace("t.csv", {{0, 1, 100}, {0, 1, 100}, {0, 1, 100}, {0, 1, 100}, {0, 1, 100}});
  const auto scenario = [&](const std::string& placement) {
    return parse(
        "name: place\nhorizon: 1h\n"
        "pools:\n"
        "  first: {gpu: A100, price_usd_per_gpu_hour: 1, quota: 2}\n"
        "  second: {gpu: A100, price_usd_per_gpu_hour: 1, quota: 2}\n"
        "workloads:\n"
        "  - {name: jobs, placement: " +
        placement + ", arrivals: {process: trace, file: " + file + "}}\n");
  };
  const Outcome forward = run_one(scenario("[first, second]"), 1, 0);
  EXPECT_EQ(forward.pool(0, kPoolJobsStarted), 3.0);
  EXPECT_EQ(forward.pool(1, kPoolJobsStarted), 2.0);
  EXPECT_EQ(forward[kWaitMeanS], 20.0);  // one job waited 100 s
  const Outcome reverse = run_one(scenario("[second, first]"), 1, 0);
  EXPECT_EQ(reverse.pool(0, kPoolJobsStarted), 2.0);
  EXPECT_EQ(reverse.pool(1, kPoolJobsStarted), 3.0);
  // A placement list of one pool never uses the other.
  const Outcome only = run_one(scenario("[second]"), 1, 0);
  EXPECT_EQ(only.pool(0, kPoolJobsStarted), 0.0);
  EXPECT_EQ(only.pool(1, kPoolJobsStarted), 5.0);
  EXPECT_EQ(only.pool(0, kPoolGpuHoursUsed), 0.0);
  EXPECT_EQ(only[kWaitMeanS], (0 + 0 + 100 + 100 + 200) / 5.0);
}

TEST_F(Engine, QueueCapacityZeroDropsJobsWhenAllGpusAreBusy) {
  const std::string file = trace("t.csv", {{0, 1, 100}, {10, 1, 10}, {20, 1, 10}, {150, 1, 10}});
  const Outcome o = run_one(single_pool(file, 1, "{queue_capacity: 0}"), 1, 0);
  EXPECT_EQ(o[kJobsArrived], 4.0);
  EXPECT_EQ(o[kJobsDropped], 2.0);
  EXPECT_EQ(o[kJobsStarted], 2.0);
  EXPECT_EQ(o[kJobsCompleted], 2.0);
  EXPECT_EQ(o[kDropFraction], 0.5);
  EXPECT_EQ(o[kWaitMeanS], 0.0);
  EXPECT_EQ(o[kWaitProbability], 0.0);
  // With room for one waiting job, only the third is dropped.
  const Outcome one = run_one(single_pool(file, 1, "{queue_capacity: 1}"), 1, 0);
  EXPECT_EQ(one[kJobsDropped], 1.0);
  EXPECT_EQ(one[kJobsStarted], 3.0);
  EXPECT_EQ(one[kWaitMeanS], 30.0);  // (0 + 90 + 0) / 3
}

TEST_F(Engine, SmallQueueWrapsAroundItsStorageInOrder) {
  // Quota 1, room for 3 waiting jobs, a 10 s job every second: the queue fills, drops, and its
  // storage is compacted many times. Served jobs: 0, 1, 2, 3, 10, 20, 30, ... (every tenth
  // arrival finds a place freed by a start at the same instant).
  std::vector<std::vector<double>> rows;
  for (int i = 0; i < 100; ++i) rows.push_back({static_cast<double>(i), 1, 10});
  const Outcome o =
      run_one(single_pool(trace("t.csv", rows), 1, "{queue_capacity: 3}", "", "10000s"), 1, 0);
  // Job k (k = 0..3) starts at 10k; after that the server runs back to back, so the n-th
  // served job starts at 10n. Served: 0,1,2,3 then 10,20,...,90 (13 jobs), the rest dropped.
  EXPECT_EQ(o[kJobsArrived], 100.0);
  EXPECT_EQ(o[kJobsStarted], 13.0);
  EXPECT_EQ(o[kJobsDropped], 87.0);
  EXPECT_EQ(o[kJobsCompleted], 13.0);
  // Waits: jobs 0-3 wait 0, 9, 18, 27; job 10j (j = 1..9) starts at 10 (j + 3): waits 30.
  EXPECT_EQ(o[kWaitMeanS], (0 + 9 + 18 + 27 + 9 * 30.0) / 13.0);
}

TEST_F(Engine, WarmupExcludesEarlyJobsFromCounts) {
  // Warm-up 100 s, horizon 1000 s, one GPU, 10 s jobs at 0, 50, 95, 150, 200 s. Counted: the
  // jobs arriving at 150 and 200. The job of 95-105 is used 5 s inside the window and billed
  // whole (its hold ends inside the window).
  const std::string file =
      trace("t.csv", {{0, 1, 10}, {50, 1, 10}, {95, 1, 10}, {150, 1, 10}, {200, 1, 10}});
  const Outcome o = run_one(single_pool(file, 1, "", "", "1000s", "100s"), 1, 0);
  EXPECT_EQ(o[kJobsArrived], 2.0);
  EXPECT_EQ(o[kJobsStarted], 2.0);
  EXPECT_EQ(o[kJobsCompleted], 2.0);
  EXPECT_EQ(o[kWaitMeanS], 0.0);
  EXPECT_EQ(o[kCompletionMeanS], 10.0);
  EXPECT_DOUBLE_EQ(o[kGpuHoursUsed], 25.0 / 3600.0);
  EXPECT_DOUBLE_EQ(o[kGpuHoursBilled], 30.0 / 3600.0);
  EXPECT_EQ(o[kCostUsd], 30.0);
  EXPECT_DOUBLE_EQ(o[kUtilization], 25.0 / 900.0);
  EXPECT_DOUBLE_EQ(o[kJobsRunningMean], 25.0 / 900.0);
  EXPECT_EQ(o.pool(0, kPoolJobsStarted), 2.0);
}

TEST_F(Engine, ProvisioningDelayIsReportedApartFromTheWaitAndIsNotBilled) {
  const std::string file = trace("t.csv", {{0, 1, 15}, {10, 1, 15}, {20, 1, 15}});
  // Three GPUs: no job queues; each job spends 30 s provisioning before it runs.
  const Outcome plain = run_one(single_pool(file, 3), 1, 0);
  const Outcome delayed = run_one(single_pool(file, 3, "", "    provisioning_delay: 30s\n"), 1, 0);
  EXPECT_EQ(plain[kWaitMeanS], 0.0);
  EXPECT_EQ(plain[kProvisioningMeanS], 0.0);
  EXPECT_EQ(delayed[kWaitMeanS], 0.0);
  EXPECT_EQ(delayed[kWaitProbability], 0.0);
  EXPECT_EQ(delayed[kProvisioningMeanS], 30.0);
  EXPECT_EQ(delayed[kCompletionMeanS], plain[kCompletionMeanS] + 30.0);
  EXPECT_EQ(delayed[kCompletionMeanS], 45.0);
  EXPECT_EQ(delayed[kGpuHoursUsed], plain[kGpuHoursUsed]);
  EXPECT_EQ(delayed[kGpuHoursBilled], plain[kGpuHoursBilled]);
  EXPECT_EQ(delayed[kCostUsd], plain[kCostUsd]);
  EXPECT_EQ(delayed[kCostUsd], 45.0);
  EXPECT_EQ(delayed[kEvents], 9.0);  // arrivals, run starts, completions
}

TEST_F(Engine, ProvisioningHoldsTheGpus) {
  // One GPU, 30 s provisioning: job 0 is launched at 0 and runs 30-45, job 1 (arrived 10) is
  // launched at 45 and runs 75-90, job 2 (arrived 20) is launched at 90 and runs 120-135.
  // Queue waits 0, 35, 70 s; billed: the 45 s of running only.
  const std::string file = trace("t.csv", {{0, 1, 15}, {10, 1, 15}, {20, 1, 15}});
  const Outcome o = run_one(single_pool(file, 1, "", "    provisioning_delay: 30s\n"), 1, 0);
  EXPECT_EQ(o[kWaitMeanS], (0 + 35 + 70) / 3.0);
  EXPECT_DOUBLE_EQ(o[kWaitProbability], 2.0 / 3.0);
  EXPECT_EQ(o[kProvisioningMeanS], 30.0);
  EXPECT_EQ(o[kCompletionMeanS], (45 + 80 + 115) / 3.0);
  EXPECT_EQ(o[kCostUsd], 45.0);
  EXPECT_DOUBLE_EQ(o[kJobsRunningMean], 135.0 / 3600.0);  // a GPU is held 0-135 s
}

TEST_F(Engine, SpeedScalesTheRunTime) {
  const std::string file = trace("t.csv", {{0, 1, 100}});
  const Outcome fast = run_one(single_pool(file, 1, "", "    speed: 2.0\n"), 1, 0);
  EXPECT_EQ(fast[kCompletionMeanS], 50.0);
  EXPECT_EQ(fast[kCostUsd], 50.0);
  EXPECT_DOUBLE_EQ(fast[kGpuHoursUsed], 50.0 / 3600.0);
  const Outcome slow = run_one(single_pool(file, 1, "", "    speed: 0.5\n"), 1, 0);
  EXPECT_EQ(slow[kCompletionMeanS], 200.0);
  EXPECT_EQ(slow[kCostUsd], 200.0);
}

TEST_F(Engine, JobsStillRunningOrWaitingAtTheHorizon) {
  // Horizon 100 s, one GPU: job A 0-60 completes; B (arrives 50) starts at 60, still running;
  // C (arrives 70) is still waiting. Arrivals after the horizon are ignored.
  const std::string file = trace("t.csv", {{0, 1, 60}, {50, 1, 60}, {70, 1, 60}, {150, 1, 10}});
  const Outcome o = run_one(single_pool(file, 1, "", "", "100s"), 1, 0);
  EXPECT_EQ(o[kJobsArrived], 3.0);
  EXPECT_EQ(o[kJobsStarted], 2.0);
  EXPECT_EQ(o[kJobsCompleted], 1.0);
  EXPECT_EQ(o[kWaitMeanS], 5.0);  // (0 + 10) / 2
  EXPECT_EQ(o[kCostUsd], 100.0);  // A 60 s + B 40 s up to the horizon
  EXPECT_DOUBLE_EQ(o[kQueueLengthMean], (10.0 + 30.0) / 100.0);  // B waits 50-60, C 70-100
}

// ---- a randomized comparison against a reference simulator ---------------------------------

struct Job {
  double submit, work;
  int gpus;
};

struct Reference {
  double wait_sum = 0, used_gpu_s = 0;
  int started = 0, completed = 0, dropped = 0, waited = 0;
};

/// A direct simulation of one pool of `quota` GPUs: gang FIFO (optionally with backfill) and a
/// waiting room of `capacity`. Jobs are sorted by submit time; no two events coincide.
Reference simulate(const std::vector<Job>& jobs, int quota, std::size_t capacity, bool backfill,
                   double horizon) {
  Reference r;
  struct Running {
    double end;
    int gpus;
  };
  std::vector<Running> running;
  std::deque<Job> queue;
  int free_gpus = quota;
  const auto start = [&](const Job& j, double now) {
    free_gpus -= j.gpus;
    running.push_back({now + j.work, j.gpus});
    ++r.started;
    r.wait_sum += now - j.submit;
    if (now > j.submit) ++r.waited;
    r.used_gpu_s += (std::min(now + j.work, horizon) - now) * j.gpus;
  };
  const auto dispatch = [&](double now) {
    for (auto it = queue.begin(); it != queue.end();) {
      if (it->gpus <= free_gpus) {
        const Job j = *it;
        it = queue.erase(it);
        start(j, now);
      } else if (!backfill) {
        return;
      } else {
        ++it;
      }
    }
  };
  const auto complete_until = [&](double t) {
    for (;;) {
      auto next =
          std::min_element(running.begin(), running.end(),
                           [](const Running& a, const Running& b) { return a.end < b.end; });
      if (next == running.end() || next->end > t) return;
      const double now = next->end;
      free_gpus += next->gpus;
      running.erase(next);
      ++r.completed;
      dispatch(now);
    }
  };
  for (const Job& j : jobs) {
    if (j.submit > horizon) break;
    complete_until(j.submit);
    if ((backfill || queue.empty()) && j.gpus <= free_gpus) {
      start(j, j.submit);
    } else if (queue.size() < capacity) {
      queue.push_back(j);
    } else {
      ++r.dropped;
    }
  }
  complete_until(horizon);
  return r;
}

TEST_F(Engine, MatchesAReferenceSimulatorOnRandomTraces) {
  std::mt19937_64 gen(2024);
  for (int trial = 0; trial < 12; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const bool backfill = trial % 2 == 1;
    const int quota = 4 + trial % 3;
    const std::size_t capacity = trial < 4 ? 1000 : 3 + trial % 5;
    std::exponential_distribution<double> gap(1.0 / 20.0), work(1.0 / 60.0);
    std::uniform_int_distribution<int> gpus(1, quota);
    std::vector<Job> jobs;
    std::vector<std::vector<double>> rows;
    double t = 0;
    for (int i = 0; i < 300; ++i) {
      t += gap(gen);
      const double w = std::max(1e-3, work(gen));
      const int g = i % 4 == 0 ? gpus(gen) : 1;
      jobs.push_back({t, w, g});
      rows.push_back({t, static_cast<double>(g), w});
    }
    // Round-trip through the CSV text: the engine sees the values the CSV holds.
    const std::string file = trace("t" + std::to_string(trial) + ".csv", rows);
    const double horizon = 0.9 * t;  // some jobs arrive after it, some run past it
    const std::string policy = std::string("{backfill: ") + (backfill ? "true" : "false") +
                               ", queue_capacity: " + std::to_string(capacity) + "}";
    std::ostringstream h;
    h << std::setprecision(17) << horizon << "s";
    const Outcome o = run_one(single_pool(file, quota, policy, "", h.str()), 1, 0);
    const Reference ref = simulate(jobs, quota, capacity, backfill, horizon);
    EXPECT_EQ(o[kJobsStarted], ref.started);
    EXPECT_EQ(o[kJobsCompleted], ref.completed);
    EXPECT_EQ(o[kJobsDropped], ref.dropped);
    EXPECT_EQ(o[kWaitProbability], ref.started ? static_cast<double>(ref.waited) / ref.started : 0);
    EXPECT_NEAR(o[kWaitMeanS], ref.wait_sum / ref.started, 1e-9 * (1 + ref.wait_sum / ref.started));
    EXPECT_NEAR(o[kGpuHoursUsed], ref.used_gpu_s / 3600.0, 1e-9 * ref.used_gpu_s / 3600.0);
    if (capacity < 1000) {
      EXPECT_GT(ref.dropped, 0);
    }
  }
}

// ---- random arrivals ------------------------------------------------------------------------

TEST_F(Engine, PoissonArrivalCountsMatchTheRate) {
  // 10 jobs/h for 100 h: arrivals ~ Poisson(1000) per replication.
  const Scenario s = parse(
      "name: poisson\nhorizon: 100h\nseed: 3\n"
      "pools:\n  gpus: {gpu: A100, price_usd_per_gpu_hour: 1, quota: 64}\n"
      "workloads:\n"
      "  - {name: jobs, arrivals: {process: poisson, rate_per_hour: 10}, work: 1min}\n");
  RunOptions options;
  options.replications = 64;
  options.threads = 1;
  const RunResults r = run(s, options);
  const double mean = r.summary_of(0, kJobsArrived).mean;
  EXPECT_NEAR(mean, 1000.0, 5 * std::sqrt(1000.0 / 64));
  const double sd = r.summary_of(0, kJobsArrived).std;
  EXPECT_NEAR(sd * sd, 1000.0, 5 * 1000.0 * std::sqrt(2.0 / 63));  // var of Poisson = mean
}

TEST_F(Engine, NhppArrivalCountsFollowTheProfile) {
  // Busy in hours 8-17 only (multiplier 3), idle otherwise; 2/h base rate; 10 days:
  // expected arrivals = 2 x 3 x 10 h x 10 d = 600 per replication.
  std::string profile;
  for (int h = 0; h < 24; ++h)
    profile += std::string(h ? ", " : "") + (h >= 8 && h < 18 ? "3" : "0");
  const Scenario s = parse(
      "name: nhpp\nhorizon: 10d\nseed: 4\n"
      "pools:\n  gpus: {gpu: A100, price_usd_per_gpu_hour: 1, quota: 64}\n"
      "workloads:\n"
      "  - {name: jobs, work: 1min, arrivals: {process: nhpp, rate_per_hour: 2, "
      "hourly_profile: [" +
      profile + "]}}\n");
  RunOptions options;
  options.replications = 64;
  options.threads = 1;
  const RunResults r = run(s, options);
  EXPECT_NEAR(r.summary_of(0, kJobsArrived).mean, 600.0, 5 * std::sqrt(600.0 / 64));
}

// ---- determinism ----------------------------------------------------------------------------

const char* kRandomScenario =
    "name: random\nhorizon: 300h\nwarmup: 10h\nseed: 17\n"
    "pools:\n"
    "  a: {gpu: A100, price_usd_per_gpu_hour: 2.5, billing_increment: 1min, quota: 6,\n"
    "      provisioning_delay: {dist: exponential, mean: 2min}}\n"
    "  b: {gpu: H100, price_usd_per_gpu_hour: 4, speed: 1.7, quota: 4}\n"
    "workloads:\n"
    "  - {name: small, gpus: 1, arrivals: {process: poisson, rate_per_hour: 6},\n"
    "     work: {dist: lognormal, mean: 30min, cv: 1.5}}\n"
    "  - {name: big, gpus: 4, priority: 1, arrivals: {process: poisson, rate_per_hour: 0.5},\n"
    "     work: {dist: gamma, mean: 2h, cv: 0.7}}\n"
    "policy: {queue: priority, backfill: true}\n";

RunResults run_with(const Scenario& s, int threads, uint64_t seed, uint64_t replications) {
  RunOptions options;
  options.replications = replications;
  options.threads = threads;
  options.seed = seed;
  options.has_seed = true;
  return run(s, options);
}

TEST_F(Engine, SameSeedIsBitIdenticalForOneAndTwoThreads) {
  const Scenario s = parse(kRandomScenario);
  const RunResults one = run_with(s, 1, 99, 12);
  const RunResults two = run_with(s, 2, 99, 12);
  ASSERT_EQ(one.scalars.size(), two.scalars.size());
  ASSERT_EQ(one.pool_values.size(), two.pool_values.size());
  for (std::size_t i = 0; i < one.scalars.size(); ++i)  // NaN: a metric not defined
    EXPECT_TRUE(one.scalars[i] == two.scalars[i] ||
                (std::isnan(one.scalars[i]) && std::isnan(two.scalars[i])))
        << "scalar " << i;
  EXPECT_EQ(
      std::memcmp(one.scalars.data(), two.scalars.data(), one.scalars.size() * sizeof(double)), 0);
  EXPECT_EQ(std::memcmp(one.pool_values.data(), two.pool_values.data(),
                        one.pool_values.size() * sizeof(double)),
            0);
  // The traffic was real.
  EXPECT_GT(one.summary_of(0, kJobsCompleted).mean, 1000.0);
  EXPECT_GT(one.summary_of(0, kWaitProbability).mean, 0.0);
}

TEST_F(Engine, ReplicationResultDependsOnSeedAndIndexOnly) {
  // A replication run alone in a fresh arena equals the same row of a run (whose threads reuse
  // their arenas across replications).
  const Scenario s = parse(kRandomScenario);
  const RunResults r = run_with(s, 1, 5, 6);
  for (uint64_t rep = 0; rep < 6; ++rep) {
    const Outcome o = run_one(s, 5, rep);
    for (uint32_t m = 0; m < kScalarMetricCount; ++m)
      EXPECT_TRUE(testing_support::same_bits(o.scalars[m],
                                             r.scalar(0, rep, static_cast<ScalarMetric>(m))))
          << "rep " << rep << " metric " << kScalarMetricInfo[m].name;
    for (std::size_t p = 0; p < 2; ++p)
      for (uint32_t m = 0; m < kPoolMetricCount; ++m)
        EXPECT_EQ(o.pool(p, static_cast<PoolMetric>(m)),
                  r.pool_value(0, rep, p, static_cast<PoolMetric>(m)));
  }
}

TEST_F(Engine, DifferentSeedsAndReplicationsDiffer) {
  const Scenario s = parse(kRandomScenario);
  const RunResults a = run_with(s, 1, 1, 4);
  const RunResults b = run_with(s, 1, 2, 4);
  for (std::size_t rep = 0; rep < 4; ++rep) {
    EXPECT_NE(a.scalar(0, rep, kCostUsd), b.scalar(0, rep, kCostUsd));
    if (rep > 0) {
      EXPECT_NE(a.scalar(0, rep, kCostUsd), a.scalar(0, 0, kCostUsd));
    }
  }
  // The scenario's own seed is used when none is given.
  RunOptions options;
  options.replications = 2;
  options.threads = 1;
  const RunResults own = run(s, options);
  const RunResults seventeen = run_with(s, 1, 17, 2);
  EXPECT_EQ(own.seed, 17u);
  EXPECT_TRUE(testing_support::same_bits(own.scalars, seventeen.scalars));
}

}  // namespace
}  // namespace gpucap
