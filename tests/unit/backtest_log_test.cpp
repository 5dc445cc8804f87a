// gpucap backtest's log cuts (sim/cli/backtest_log) and the look-back recommender
// (sim/cli/lookback): what was known at T, what arrived and what was alive after it, the hourly
// usage, against hand-worked rows; the recommender's quantile and its price ratio.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "backtest.hpp"
#include "backtest_log.hpp"
#include "gpucap/fit/job_trace.hpp"
#include "gpucap/scenario_loader.hpp"
#include "lookback.hpp"

namespace gpucap::cli {
namespace {

// Five instances (times in hours): one before the log still running, one before it ending at
// 5 h, one created at 1 h ending at 3 h, one at 2 h ending at 12 h, one at 8 h still running
// at the log's end (blank end). Window: 12 h (the last end).
const char* kInstances =
    "start_s,end_s,gpus\n"
    ",,2\n"
    "-3600,18000,1\n"
    "3600,10800,1\n"
    "7200,43200,4\n"
    "28800,,1\n";

fit::TraceColumns instance_columns() {
  fit::TraceColumns c;
  c.submit = "start_s";
  c.end = "end_s";
  return c;
}

BacktestLog instances() {
  return BacktestLog::read(kInstances, "log.csv", LogKind::instances, instance_columns());
}

TEST(BacktestLog, WhatWasKnownAtT) {
  const BacktestLog log = instances();
  EXPECT_EQ(log.window_s(), 43200);
  // At 4 h: the 8 h one not begun; ends after 4 h blank.
  EXPECT_EQ(log.known_at(4 * 3600.0),
            "start_s,end_s,gpus\n,,2\n-3600,,1\n3600,10800,1\n7200,,4\n");
}

TEST(BacktestLog, WhatArrivedAndWhatWasAliveAfterT) {
  const BacktestLog log = instances();
  std::size_t arrived = 0, alive = 0;
  // After 4 h for 5 h: the instance of 8 h arrives at 4 h (ends blank: after the log);
  // alive at 4 h: the one before the log (blank end), the one ending at 5 h (1 h left) and the
  // 4-GPU one (8 h left).
  EXPECT_EQ(log.arrived(4 * 3600.0, 5 * 3600.0, arrived), "start_s,end_s,gpus\n14400,,1\n");
  EXPECT_EQ(arrived, 1u);
  EXPECT_EQ(log.alive_at(4 * 3600.0, alive), "gpus,remaining\n2,\n1,3600\n4,28800\n");
  EXPECT_EQ(alive, 3u);
  // Nothing arrives in (9 h, 12 h].
  EXPECT_EQ(log.arrived(9 * 3600.0, 3 * 3600.0, arrived), "start_s,end_s,gpus\n");
  EXPECT_EQ(arrived, 0u);
}

// GPUs in use hour by hour over [0, 6 h): 2 (always) + 1 (until 5 h) + 1 (1-3 h) + 4 (from 2 h).
TEST(BacktestLog, HourlyUsage) {
  const std::vector<double> u = instances().hourly_usage(0, 6 * 3600.0);
  EXPECT_EQ(u, (std::vector<double>{3, 4, 8, 7, 7, 6}));
  // Half hours count half: [0.5 h, 2.5 h) is 2 whole hours from 0.5 h: 3.5 (0.5 at 3 + 0.5 at
  // 4), then 6 (0.5 at 4 + 0.5 at 8).
  EXPECT_EQ(instances().hourly_usage(1800, 9000), (std::vector<double>{3.5, 6}));
  EXPECT_TRUE(instances().hourly_usage(100, 200).empty());
}

// A job trace: submit, duration, gpus; jobs run from their submit time.
TEST(BacktestLog, JobsKnownAtTAreCensoredThere) {
  const BacktestLog log = BacktestLog::read(
      "submit_s,duration_s,gpus\n0,100,1\n50,500,2\n700,10,1\n", "jobs.csv", LogKind::jobs, {});
  EXPECT_EQ(log.known_at(200), "submit_s,duration_s,gpus,censored\n0,100,1,0\n50,150,2,1\n");
  std::size_t arrived = 0;
  EXPECT_EQ(log.arrived(200, 600, arrived), "submit_s,duration_s,gpus\n500,10,1\n");
  EXPECT_EQ(log.hourly_usage(0, 3600), (std::vector<double>{(100 + 2 * 500 + 10) / 3600.0}));
}

TEST(BacktestLog, BadLogsNameTheirLine) {
  try {
    BacktestLog::read("start_s,end_s,gpus\n0,100,1\nx,200,1\n", "bad.csv", LogKind::instances,
                      instance_columns());
    FAIL() << "read a bad cell";
  } catch (const fit::TraceDataError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.csv:3"), std::string::npos) << e.what();
  }
}

// P(usage > C) = ratio: the (1 - ratio) quantile, linear between order statistics, rounded.
TEST(Lookback, TheQuantileWhereOneMoreCommittedGpuStopsPaying) {
  std::vector<double> usage;
  for (int i = 0; i <= 100; ++i) usage.push_back(i);
  EXPECT_EQ(lookback_commitment(usage, 0.543), 46);  // 45.7 rounded
  EXPECT_EQ(lookback_commitment(usage, 0.1), 90);
  EXPECT_EQ(lookback_commitment({7, 7, 7}, 0.5), 7);
  EXPECT_EQ(lookback_commitment({}, 0.5), 0);
  const Scenario s = parse_scenario(
      "name: p\nhorizon: 1h\npools:\n  od: {gpu: H100, price_usd_per_gpu_hour: 3.5, quota: 8}\n"
      "commitments:\n  plan: {covers: [od], gpus: 2, price_usd_per_gpu_hour: 1.9}\n"
      "workloads:\n  - {name: w, gpus: 1, work: 1h, arrivals: {process: poisson, rate_per_hour: 1}}\n",
      "p.yaml", ".");
  EXPECT_NEAR(lookback_ratio_of(s, "commitments.plan.gpus"), 1.9 / 3.5, 1e-15);
  EXPECT_THROW(lookback_ratio_of(s, "pools.od.quota"), std::invalid_argument);
  EXPECT_THROW(lookback_ratio_of(s, "commitments.other.gpus"), std::invalid_argument);
}

TEST(Backtest, OriginsFitInTheLog) {
  BacktestOptions o;
  o.first_s = 7 * 86400.0;
  o.every_s = 2 * 86400.0;
  o.horizon_s = 7 * 86400.0;
  EXPECT_EQ(backtest_origins(o, 20 * 86400.0),
            (std::vector<double>{7 * 86400.0, 9 * 86400.0, 11 * 86400.0, 13 * 86400.0}));
  EXPECT_TRUE(backtest_origins(o, 13 * 86400.0).empty());
  o.max_origins = 2;
  EXPECT_EQ(backtest_origins(o, 20 * 86400.0).size(), 2u);
}

}  // namespace
}  // namespace gpucap::cli
