// Golden examples: every shipped scenario runs with its fixed seed, and what it must show is
// asserted against an independent computation. The validation scenarios (mmc, erlang_b, mg1) are
// checked against theory in queueing_theory_test.cpp; this file covers the others, plus the
// accounting identities that must hold in every replication of every scenario.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <vector>

#include "gpucap/compile.hpp"
#include "gpucap/run.hpp"
#include "gpucap/scenario_loader.hpp"
#include "gpucap/summary.hpp"

#include "support/run_scenario.hpp"

namespace {

const std::string kScenarios = std::string(GPUCAP_SOURCE_DIR) + "/scenarios/";

using gpucap::testing_support::run_scenario;
using gpucap::testing_support::simulate_shipped;

bool near(double a, double b, double relative = 1e-9) {
  return std::fabs(a - b) <= relative * std::max({1.0, std::fabs(a), std::fabs(b)});
}

/// Identities that hold in every replication: totals are sums over pools, billing never
/// undercounts, shares are shares, counts are ordered.
void expect_accounting_identities(const gpucap::RunResults& r) {
  for (size_t i = 0; i < r.replications; ++i) {
    double cost = 0, used = 0, billed = 0;
    for (size_t p = 0; p < r.pool_count(); ++p) {
      const double pool_used = r.pool_value(0, i, p, gpucap::kPoolGpuHoursUsed);
      const double pool_billed = r.pool_value(0, i, p, gpucap::kPoolGpuHoursBilled);
      cost += r.pool_value(0, i, p, gpucap::kPoolCostUsd);
      // A billing commitment pays part of its pools' usage, never more than they billed.
      EXPECT_GE(r.pool_value(0, i, p, gpucap::kPoolCostUsd), -1e-6) << r.pool_names[p];
      used += pool_used;
      billed += pool_billed;
      EXPECT_GE(pool_billed + 1e-9, pool_used - 1e-9) << r.pool_names[p] << " replication " << i;
      const double u = r.pool_value(0, i, p, gpucap::kPoolUtilization);
      EXPECT_GE(u, 0.0);
      EXPECT_LE(u, 1.0 + 1e-12);
    }
    // The pools' costs and the billing commitments' fees (which no pool holds) make the cost;
    // so do the costs by purchase option and the fees.
    const double fees = r.scalar(0, i, gpucap::kCostCommitmentsUsd);
    EXPECT_TRUE(near(r.scalar(0, i, gpucap::kCostUsd), cost + fees)) << "replication " << i;
    double by_option = fees;
    for (uint32_t m = gpucap::kCostOnDemandUsd; m <= gpucap::kCostServerlessUsd; ++m)
      by_option += r.scalar(0, i, static_cast<gpucap::ScalarMetric>(m));
    EXPECT_TRUE(near(r.scalar(0, i, gpucap::kCostUsd), by_option)) << "replication " << i;
    EXPECT_TRUE(near(r.scalar(0, i, gpucap::kGpuHoursUsed), used));
    EXPECT_TRUE(near(r.scalar(0, i, gpucap::kGpuHoursBilled), billed));
    EXPECT_LE(r.scalar(0, i, gpucap::kJobsStarted), r.scalar(0, i, gpucap::kJobsArrived));
    EXPECT_LE(r.scalar(0, i, gpucap::kJobsCompleted), r.scalar(0, i, gpucap::kJobsStarted));
    // Percentiles are ordered where defined; not defined (NaN) exactly when nothing was
    // observed: no job launched, none completed, no request served.
    const auto ordered = [&](gpucap::ScalarMetric a, gpucap::ScalarMetric b) {
      const double x = r.scalar(0, i, a), y = r.scalar(0, i, b);
      EXPECT_EQ(std::isnan(x), std::isnan(y)) << "replication " << i;
      if (!std::isnan(x)) {
        EXPECT_LE(x, y) << "replication " << i;
      }
    };
    ordered(gpucap::kWaitP50S, gpucap::kWaitP95S);
    ordered(gpucap::kWaitP95S, gpucap::kWaitP99S);
    ordered(gpucap::kCompletionP50S, gpucap::kCompletionP95S);
    EXPECT_EQ(std::isnan(r.scalar(0, i, gpucap::kCompletionMeanS)),
              r.scalar(0, i, gpucap::kJobsCompleted) == 0);
    EXPECT_EQ(std::isnan(r.scalar(0, i, gpucap::kLatencyMeanS)),
              r.scalar(0, i, gpucap::kRequestsServed) == 0);
    EXPECT_EQ(std::isnan(r.scalar(0, i, gpucap::kDropFraction)),
              r.scalar(0, i, gpucap::kJobsArrived) == 0);
    // Requests: served and dropped are parts of arrived; shares are shares.
    const double arrived = r.scalar(0, i, gpucap::kRequestsArrived);
    EXPECT_LE(r.scalar(0, i, gpucap::kRequestsServed) + r.scalar(0, i, gpucap::kRequestsDropped),
              arrived);
    EXPECT_LE(r.scalar(0, i, gpucap::kRequestsRestarted), arrived);
    ordered(gpucap::kLatencyP50S, gpucap::kLatencyP95S);
    ordered(gpucap::kLatencyP95S, gpucap::kLatencyP99S);
    // Deployments: demanded = served + waiting + down, each part >= 0; the pools' served hours
    // add up; the unserved fraction is defined exactly when something was demanded.
    const double demanded = r.scalar(0, i, gpucap::kInstanceHoursDemanded);
    const double served = r.scalar(0, i, gpucap::kInstanceHoursServed);
    const double waiting = r.scalar(0, i, gpucap::kInstanceHoursWaiting);
    const double down = r.scalar(0, i, gpucap::kInstanceHoursDown);
    EXPECT_GE(served, 0.0);
    EXPECT_GE(waiting, 0.0);
    EXPECT_GE(down, 0.0);
    EXPECT_TRUE(near(demanded, served + waiting + down)) << "replication " << i;
    EXPECT_TRUE(near(r.scalar(0, i, gpucap::kInstanceHoursUnserved), waiting + down));
    double pools_served = 0;
    for (size_t p = 0; p < r.pool_count(); ++p)
      pools_served += r.pool_value(0, i, p, gpucap::kPoolInstanceHoursServed);
    EXPECT_TRUE(near(pools_served, served)) << "replication " << i;
    EXPECT_EQ(std::isnan(r.scalar(0, i, gpucap::kUnservedFraction)), demanded == 0);
    ordered(gpucap::kRestoreP50S, gpucap::kRestoreP95S);
    for (gpucap::ScalarMetric share : {gpucap::kSloViolationShare, gpucap::kColdStartShare,
                                       gpucap::kUnservedFraction}) {
      if (std::isnan(r.scalar(0, i, share))) continue;  // no request (with an SLO) served
      EXPECT_GE(r.scalar(0, i, share), 0.0);
      EXPECT_LE(r.scalar(0, i, share), 1.0);
    }
  }
}

TEST(ShippedScenarios, EveryScenarioSatisfiesTheAccountingIdentities) {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kScenarios)) {
    if (entry.path().extension() != ".yaml") continue;
    SCOPED_TRACE(entry.path().string());
    expect_accounting_identities(run_scenario(entry.path().string(), {}, 8));
    ++count;
  }
  EXPECT_GE(count, 5);
}

TEST(ShippedScenarios, DefaultArrivalsMatchTheRateProfileAndCheapPoolsFillFirst) {
  const gpucap::Scenario s = gpucap::load_scenario(kScenarios + "default.yaml");
  const gpucap::RunResults r = run_scenario(kScenarios + "default.yaml", {}, 400);
  // Expected arrivals in the 28-day window: Poisson 6/day, plus 4/h times the mean multiplier of
  // the hourly profile (the window is whole days, so every hour of the profile appears 28 times).
  const double window_h = (s.horizon_s - s.warmup_s) / 3600.0;
  double profile_mean = 0;
  for (double m : s.workloads[1].arrivals.profile) profile_mean += m / 24.0;
  const double expected = 6.0 / 24.0 * window_h + 4.0 * profile_mean * window_h;
  const gpucap::MetricSummary& arrived = r.summary_of(0, gpucap::kJobsArrived);
  EXPECT_NEAR(arrived.mean, expected, gpucap::ci_half_width(arrived, 0.99));
  // Placement is cheapest first: the Lambda pool starts most jobs, AWS the fewest, and AWS's
  // share of the cost exceeds its share of the GPU-hours (it costs 4x more per GPU-hour).
  auto pool_mean = [&](size_t p, gpucap::PoolMetric m) {
    return r.pool_summary[p * gpucap::kPoolMetricCount + m].mean;
  };
  EXPECT_GT(pool_mean(0, gpucap::kPoolJobsStarted), pool_mean(2, gpucap::kPoolJobsStarted));
  EXPECT_GT(pool_mean(2, gpucap::kPoolJobsStarted), pool_mean(1, gpucap::kPoolJobsStarted));
  const double aws_cost_share =
      pool_mean(1, gpucap::kPoolCostUsd) / r.summary_of(0, gpucap::kCostUsd).mean;
  const double aws_hours_share =
      pool_mean(1, gpucap::kPoolGpuHoursUsed) / r.summary_of(0, gpucap::kGpuHoursUsed).mean;
  EXPECT_GT(aws_cost_share, 2 * aws_hours_share);
  // Each pool's cost is its billed GPU-hours at its list price.
  const double prices[] = {2.99, 12.29, 2.94582};
  for (size_t p = 0; p < 3; ++p)
    EXPECT_NEAR(pool_mean(p, gpucap::kPoolCostUsd),
                pool_mean(p, gpucap::kPoolGpuHoursBilled) * prices[p],
                1e-9 * pool_mean(p, gpucap::kPoolCostUsd));
}

TEST(ShippedScenarios, TraceReplayUsesEveryTraceRowExactly) {
  // Independent computation from the CSV: job count and GPU-hours of work.
  std::ifstream csv(std::string(GPUCAP_SOURCE_DIR) + "/data/sample_week_trace.csv");
  ASSERT_TRUE(csv.good());
  std::string line;
  std::getline(csv, line);  // header
  double rows = 0, gpu_hours = 0;
  while (std::getline(csv, line)) {
    std::stringstream fields(line);
    std::string submit, gpus, duration;
    std::getline(fields, submit, ',');
    std::getline(fields, gpus, ',');
    std::getline(fields, duration, ',');
    rows += 1;
    gpu_hours += std::stod(gpus) * std::stod(duration) / 3600.0;
  }
  const gpucap::RunResults r = run_scenario(kScenarios + "trace_replay.yaml", {}, 50);
  for (size_t i = 0; i < r.replications; ++i) {
    EXPECT_EQ(r.scalar(0, i, gpucap::kJobsArrived), rows);
    EXPECT_EQ(r.scalar(0, i, gpucap::kJobsCompleted), rows);  // the horizon leaves room to finish
    EXPECT_TRUE(near(r.scalar(0, i, gpucap::kGpuHoursUsed), gpu_hours)) << i;
  }
  // Provisioning delays are the only randomness: waits vary across replications.
  EXPECT_GT(r.summary_of(0, gpucap::kWaitMeanS).std, 0.0);
}

TEST(ShippedScenarios, SpotWithCheckpointsCostsFarLessThanOnDemandAndBarelySlowsJobs) {
  const gpucap::RunResults spot = simulate_shipped("spot_training.yaml", {}, 300);
  const gpucap::RunResults od =
      simulate_shipped("spot_training.yaml", {"workloads.finetune.placement=[aws-h100-od]"}, 300);
  const double spot_cost = spot.summary_of(0, gpucap::kCostUsd).mean;
  const double od_cost = od.summary_of(0, gpucap::kCostUsd).mean;
  const double spot_t = spot.summary_of(0, gpucap::kCompletionMeanS).mean;
  const double od_t = od.summary_of(0, gpucap::kCompletionMeanS).mean;
  std::printf("  spot %.0f USD, %.0f s per job; on-demand %.0f USD, %.0f s per job\n", spot_cost,
              spot_t, od_cost, od_t);
  // Spot is 4.7x cheaper per GPU-hour; checkpoints, restores and lost work eat part of that.
  EXPECT_LT(spot_cost, od_cost / 2.5);
  EXPECT_GT(spot.summary_of(0, gpucap::kPreemptions).mean, 10.0);
  EXPECT_EQ(od.summary_of(0, gpucap::kPreemptions).mean, 0.0);
  EXPECT_LT(spot_t, 1.10 * od_t);  // emergency checkpoints keep the slowdown small
  EXPECT_GT(spot_t, od_t);
}

TEST(ShippedScenarios, TraceDrivenSpotFailsOverToOnDemand) {
  const gpucap::RunResults r = simulate_shipped("spot_availability_failover.yaml", {}, 200);
  auto pool_mean = [&](size_t p, gpucap::PoolMetric m) {
    return r.pool_summary[p * gpucap::kPoolMetricCount + m].mean;
  };
  // Spot can be busy at most while the trace shows capacity (81.5% of the sample trace).
  EXPECT_LT(pool_mean(0, gpucap::kPoolUtilization), 0.815);
  EXPECT_GT(pool_mean(0, gpucap::kPoolUtilization), 0.2);
  // Stockouts push work to on-demand, and spot capacity drops reclaim running jobs.
  EXPECT_GT(pool_mean(1, gpucap::kPoolJobsStarted), 10.0);
  EXPECT_GT(pool_mean(0, gpucap::kPoolPreemptions), 5.0);
  // Each pool is billed at its catalog price (GCP a3-highgpu-8g us-east4).
  EXPECT_NEAR(pool_mean(0, gpucap::kPoolCostUsd),
              1.97614 * pool_mean(0, gpucap::kPoolGpuHoursBilled),
              1e-6 * pool_mean(0, gpucap::kPoolCostUsd));
  EXPECT_NEAR(pool_mean(1, gpucap::kPoolCostUsd),
              10.979059 * pool_mean(1, gpucap::kPoolGpuHoursBilled),
              1e-6 * pool_mean(1, gpucap::kPoolCostUsd));
}

TEST(ShippedScenarios, SpreadingLaunchesOverCloudsRemovesStockoutWaits) {
  const gpucap::RunResults multi = simulate_shipped("multicloud_stockouts.yaml", {}, 200);
  const gpucap::RunResults single = simulate_shipped(
      "multicloud_stockouts.yaml", {"workloads.training.placement=[nebius-h100]"}, 200);
  const double multi_wait = multi.summary_of(0, gpucap::kWaitMeanS).mean;
  const double single_wait = single.summary_of(0, gpucap::kWaitMeanS).mean;
  std::printf("  mean wait: three clouds %.1f s, one cloud %.1f s\n", multi_wait, single_wait);
  EXPECT_LT(multi_wait, 0.01 * single_wait);
  EXPECT_GT(multi.summary_of(0, gpucap::kCostUsd).mean,
            single.summary_of(0, gpucap::kCostUsd).mean);
  // Every launch attempt at the first cloud is a Bernoulli(0.4) failure: the observed share
  // failures / attempts (attempts = failures + jobs started there) must be 0.4.
  double failures = 0, started = 0;
  for (size_t i = 0; i < multi.replications; ++i) {
    failures += multi.pool_value(0, i, 0, gpucap::kPoolLaunchFailures);
    started += multi.pool_value(0, i, 0, gpucap::kPoolJobsStarted);
  }
  const double attempts = failures + started;
  EXPECT_NEAR(failures / attempts, 0.4, 5 * std::sqrt(0.24 / attempts));
}

TEST(ShippedScenarios, RightSizingPutsFineTuningOnTheCheapestWorkNotTheCheapestHour) {
  const gpucap::RunResults as_written = simulate_shipped("right_sizing.yaml", {}, 200);
  const gpucap::RunResults h100_first =
      simulate_shipped("right_sizing.yaml", {"workloads.finetune.placement=[h100, a100]"}, 200);
  auto mean = [](const gpucap::RunResults& r, gpucap::ScalarMetric m) {
    return r.summary_of(0, m).mean;
  };
  // An A100-80GB costs 2.94582 / 0.45 = 6.55 USD per H100-hour of work, an H100 2.99.
  EXPECT_LT(mean(h100_first, gpucap::kCostUsd), 0.7 * mean(as_written, gpucap::kCostUsd));
  EXPECT_LT(mean(h100_first, gpucap::kCompletionMeanS), mean(as_written, gpucap::kCompletionMeanS));
  // The L4 is never offered to fine-tuning (60 GB does not fit 24 GB): compilation drops it.
  const gpucap::ModelStorage storage =
      gpucap::compile(gpucap::load_scenario(kScenarios + "right_sizing.yaml"));
  const gpucap::CompiledModel& model = storage.model();
  const gpucap::CompiledJobClass& finetune = model.classes[1];
  ASSERT_EQ(finetune.placement_count, 2u);
  EXPECT_EQ(model.placement[finetune.placement_offset], 1u);      // a100
  EXPECT_EQ(model.placement[finetune.placement_offset + 1], 2u);  // h100
  EXPECT_EQ(model.classes[0].placement_count, 3u);
}

TEST(ShippedScenarios, MarketplaceIsFarCheaperButSlowerForCheckpointedBatch) {
  const gpucap::RunResults market = simulate_shipped("marketplace_batch.yaml", {}, 200);
  const gpucap::RunResults od =
      simulate_shipped("marketplace_batch.yaml", {"workloads.render.placement=[aws-l40s]"}, 200);
  auto mean = [](const gpucap::RunResults& r, gpucap::ScalarMetric m) {
    return r.summary_of(0, m).mean;
  };
  std::printf("  marketplace %.0f USD, %.0f s per job; on-demand %.0f USD, %.0f s per job\n",
              mean(market, gpucap::kCostUsd), mean(market, gpucap::kCompletionMeanS),
              mean(od, gpucap::kCostUsd), mean(od, gpucap::kCompletionMeanS));
  EXPECT_LT(mean(market, gpucap::kCostUsd), 0.3 * mean(od, gpucap::kCostUsd));
  const double slower = mean(market, gpucap::kCompletionMeanS) / mean(od, gpucap::kCompletionMeanS);
  EXPECT_GT(slower, 1.2);  // slower nodes (speed 0.55 x slowdown 1.4 on average), failures
  EXPECT_LT(slower, 2.5);
  // Node failures push some jobs to on-demand after their third loss.
  EXPECT_GT(market.pool_summary[1 * gpucap::kPoolMetricCount + gpucap::kPoolGpuHoursUsed].mean,
            10.0);
  EXPECT_GT(mean(market, gpucap::kPreemptions), 100.0);
}

TEST(ShippedScenarios, RemoteCheapGpusBeatLocalOnesDespiteEgress) {
  const gpucap::RunResults remote = simulate_shipped("data_locality.yaml", {}, 200);
  const gpucap::RunResults local =
      simulate_shipped("data_locality.yaml", {"workloads.training.placement=[aws-us-east]"}, 200);
  auto mean = [](const gpucap::RunResults& r, gpucap::ScalarMetric m) {
    return r.summary_of(0, m).mean;
  };
  EXPECT_LT(mean(remote, gpucap::kCostUsd), 0.7 * mean(local, gpucap::kCostUsd));
  EXPECT_GT(mean(remote, gpucap::kEgressUsd), 0.3 * mean(remote, gpucap::kCostUsd));
  EXPECT_EQ(mean(local, gpucap::kEgressUsd), 0.0);
  // Egress is 180 USD (2000 GB x 0.09) for every run that fetched the data; each such run spent
  // 2000 GB x 8 / 10 Gbit/s + 62 ms = 1600.062 s on 8 GPUs fetching, except runs cut off by the
  // horizon mid-transfer (at most 32 / 8 = 4 of them).
  for (size_t i = 0; i < remote.replications; ++i) {
    const double runs = remote.scalar(0, i, gpucap::kEgressUsd) / 180.0;
    EXPECT_NEAR(runs, std::round(runs), 1e-9 * runs);
    const double fetched_runs =
        remote.scalar(0, i, gpucap::kGpuHoursTransferring) * 3600 / (8 * 1600.062);
    EXPECT_LE(fetched_runs, runs + 1e-9);
    EXPECT_GE(fetched_runs, runs - 4);
  }
  const double later =
      mean(remote, gpucap::kCompletionMeanS) - mean(local, gpucap::kCompletionMeanS);
  EXPECT_GT(later,
            1000.0);  // about one 1600 s transfer, less the faster launches of the cheap cloud
  EXPECT_LT(later, 2500.0);
}

TEST(ShippedScenarios, MovingSpotPriceKeepsTheMeanBillAndWidensItsSpread) {
  const gpucap::RunResults moving = simulate_shipped("spot_price_risk.yaml", {}, 400);
  const gpucap::RunResults fixed =
      simulate_shipped("spot_price_risk.yaml",
                       {"pools.aws-h100-spot.price_process.volatility_per_sqrt_hour=0"}, 400);
  // Prices do not change what runs: the same GPU-hours are billed in every replication. The
  // Ornstein-Uhlenbeck price's mean is its level, so given what runs, the bill's expectation is
  // the fixed-price bill: the ratio of the two has mean 1.
  std::vector<double> ratio;
  for (size_t i = 0; i < moving.replications; ++i) {
    EXPECT_EQ(moving.scalar(0, i, gpucap::kGpuHoursBilled),
              fixed.scalar(0, i, gpucap::kGpuHoursBilled));
    ratio.push_back(moving.scalar(0, i, gpucap::kCostUsd) / fixed.scalar(0, i, gpucap::kCostUsd));
  }
  const gpucap::MetricSummary r = gpucap::summarize(ratio);
  const double half = gpucap::ci_half_width(r, 0.99);
  std::printf("  spot price factor: simulated %.4f +- %.4f (99%%), analytic 1\n", r.mean, half);
  EXPECT_NEAR(r.mean, 1.0, half);
  EXPECT_LT(2 * half, 0.03);
  // A month of holds averages the price over many swings of a day: the factor's spread is a
  // few percent (its sd over replications), far below the price's own 22%.
  EXPECT_GT(r.std, 0.01);
  EXPECT_LT(r.std, 0.22);
  EXPECT_GT(moving.summary_of(0, gpucap::kCostUsd).std, fixed.summary_of(0, gpucap::kCostUsd).std);
}

TEST(ShippedScenarios, OwnedBaselineHasAnInteriorCheapestSize) {
  // Same seed for every size (common random numbers): the differences are paired.
  std::vector<double> cost;
  for (int count : {8, 48, 64})
    cost.push_back(simulate_shipped("owned_baseline_burst.yaml",
                                    {"pools.onprem-h100.count=" + std::to_string(count)}, 100)
                       .summary_of(0, gpucap::kCostUsd)
                       .mean);
  std::printf("  monthly cost with 8 / 48 / 64 owned GPUs: %.0f / %.0f / %.0f USD\n", cost[0],
              cost[1], cost[2]);
  EXPECT_LT(cost[1], 0.9 * cost[0]);   // too few: paying cloud prices for the base load
  EXPECT_LT(cost[1], 0.95 * cost[2]);  // too many: owned GPUs idle most of the time
}

TEST(ShippedScenarios, AScaleDownDelayKeepsBurstsWarmAtACost) {
  const gpucap::RunResults none = simulate_shipped("knative_autoscaling.yaml", {}, 8);
  const gpucap::RunResults delayed = simulate_shipped(
      "knative_autoscaling.yaml", {"workloads.api.autoscaling.scale_down_delay=30min"}, 8);
  auto mean = [](const gpucap::RunResults& r, gpucap::ScalarMetric m) {
    return r.summary_of(0, m).mean;
  };
  std::printf("  p99 latency: no delay %.2f s, 30 min %.2f s; cost %.2f / %.2f USD\n",
              mean(none, gpucap::kLatencyP99S), mean(delayed, gpucap::kLatencyP99S),
              mean(none, gpucap::kCostUsd), mean(delayed, gpucap::kCostUsd));
  // Without a delay every burst waits for a 21 s cold start; with it the p99 meets the 10 s SLO.
  EXPECT_GT(mean(none, gpucap::kLatencyP99S), 15.0);
  EXPECT_LT(mean(delayed, gpucap::kLatencyP99S), 10.0);
  EXPECT_GT(mean(delayed, gpucap::kCostUsd), 2 * mean(none, gpucap::kCostUsd));
  EXPECT_LT(mean(delayed, gpucap::kColdStarts), 0.5 * mean(none, gpucap::kColdStarts));
}

TEST(ShippedScenarios, SpotReplicasWithFallbackCostLessAtAboutTheSameP99) {
  const gpucap::RunResults spot = simulate_shipped("spot_inference_fallback.yaml", {}, 8);
  const gpucap::RunResults od = simulate_shipped(
      "spot_inference_fallback.yaml",
      {"workloads.chat.pool=on-demand-l4", "workloads.chat.fallback_pool=null"}, 8);
  auto mean = [](const gpucap::RunResults& r, gpucap::ScalarMetric m) {
    return r.summary_of(0, m).mean;
  };
  std::printf("  per 1000 requests: spot+fallback %.4f USD, on-demand %.4f USD; p99 %.3f / %.3f s\n",
              mean(spot, gpucap::kCostPer1000RequestsUsd),
              mean(od, gpucap::kCostPer1000RequestsUsd), mean(spot, gpucap::kLatencyP99S),
              mean(od, gpucap::kLatencyP99S));
  // Spot at 0.282 against 0.707 USD per GPU-hour, a quarter of the hours spilling on demand.
  EXPECT_LT(mean(spot, gpucap::kCostUsd), 0.65 * mean(od, gpucap::kCostUsd));
  EXPECT_GT(mean(spot, gpucap::kCostUsd), 0.4 * mean(od, gpucap::kCostUsd));
  EXPECT_GT(mean(spot, gpucap::kReplicaPreemptions), 10.0);
  EXPECT_GT(mean(spot, gpucap::kRequestsRestarted), 0.0);
  EXPECT_GT(spot.summary_of(0, gpucap::kCostUsd).mean, 0.0);
  // Both pools bill: the fallback pool takes replicas when the spot quota is full.
  double fallback_cost = 0;
  for (size_t i = 0; i < spot.replications; ++i)
    fallback_cost += spot.pool_value(0, i, 1, gpucap::kPoolCostUsd);
  EXPECT_GT(fallback_cost, 0.0);
  // Restarts are a few dozen of ~446,000 requests: the p99 moves by milliseconds.
  EXPECT_NEAR(mean(spot, gpucap::kLatencyP99S), mean(od, gpucap::kLatencyP99S), 0.05);
  EXPECT_EQ(mean(od, gpucap::kReplicaPreemptions), 0.0);
  EXPECT_EQ(mean(od, gpucap::kRequestsRestarted), 0.0);
}

TEST(ShippedScenarios, ServerlessCostsLessThanDedicatedReplicasAtTheSameLatency) {
  const gpucap::RunResults serverless = simulate_shipped("serverless_vs_dedicated.yaml", {}, 8);
  const gpucap::RunResults dedicated =
      simulate_shipped("serverless_vs_dedicated.yaml",
                       {"workloads.chat.pool=dedicated",
                        "workloads.chat.autoscaling={min_replicas: 4, max_replicas: 4}"},
                       8);
  auto mean = [](const gpucap::RunResults& r, gpucap::ScalarMetric m) {
    return r.summary_of(0, m).mean;
  };
  std::printf("  per 1000 requests: serverless %.4f USD, dedicated %.4f USD; replicas %.2f / 4\n",
              mean(serverless, gpucap::kCostPer1000RequestsUsd),
              mean(dedicated, gpucap::kCostPer1000RequestsUsd),
              mean(serverless, gpucap::kReplicasMean));
  EXPECT_LT(mean(serverless, gpucap::kCostPer1000RequestsUsd),
            0.9 * mean(dedicated, gpucap::kCostPer1000RequestsUsd));
  EXPECT_LT(mean(serverless, gpucap::kReplicasMean), 3.5);
  EXPECT_GT(mean(serverless, gpucap::kColdStarts), 0.0);
  // Dedicated: 4 replicas up all the time, never a cold start, every GPU-hour of the window paid.
  EXPECT_EQ(mean(dedicated, gpucap::kColdStarts), 0.0);
  EXPECT_EQ(mean(dedicated, gpucap::kReplicasMean), 4.0);
  EXPECT_NEAR(mean(dedicated, gpucap::kGpuHoursBilled), 4 * 7 * 24.0, 1e-9);
  // The same requests (common random numbers) see nearly the same latency on both.
  EXPECT_NEAR(mean(serverless, gpucap::kLatencyP99S), mean(dedicated, gpucap::kLatencyP99S), 0.01);
  EXPECT_LT(mean(serverless, gpucap::kSloViolationShare), 0.001);
}

TEST(ShippedScenarios, EdgeReplicasSaveExactlyTheRoundTripDifference) {
  const gpucap::RunResults edge = simulate_shipped("edge_vs_cloud_inference.yaml", {}, 8);
  const gpucap::RunResults cloud =
      simulate_shipped("edge_vs_cloud_inference.yaml", {"workloads.ranker.pool=cloud-us-east"}, 8);
  // Same requests, same service times, same replicas: only the round trip differs (90 - 10 ms).
  for (size_t i = 0; i < edge.replications; ++i)
    EXPECT_NEAR(
        cloud.scalar(0, i, gpucap::kLatencyMeanS) - edge.scalar(0, i, gpucap::kLatencyMeanS), 0.080,
        1e-9);
  auto mean = [](const gpucap::RunResults& r, gpucap::ScalarMetric m) {
    return r.summary_of(0, m).mean;
  };
  std::printf("  p95 latency edge %.3f s, cloud %.3f s; SLO misses %.3f / %.3f\n",
              mean(edge, gpucap::kLatencyP95S), mean(cloud, gpucap::kLatencyP95S),
              mean(edge, gpucap::kSloViolationShare), mean(cloud, gpucap::kSloViolationShare));
  // Quantiles come from log-spaced bins (12.5% wide): the shift is 80 ms give or take a bin.
  EXPECT_NEAR(mean(cloud, gpucap::kLatencyP95S) - mean(edge, gpucap::kLatencyP95S), 0.080, 0.02);
  EXPECT_LT(mean(edge, gpucap::kSloViolationShare), 0.05);
  EXPECT_GT(mean(cloud, gpucap::kSloViolationShare), 0.3);
  // Egress: 20 KB per served request at the region's price.
  EXPECT_NEAR(mean(cloud, gpucap::kEgressUsd), mean(cloud, gpucap::kRequestsServed) * 20e-6 * 0.09,
              1e-6);
  EXPECT_GT(mean(edge, gpucap::kCostPer1000RequestsUsd),
            1.2 * mean(cloud, gpucap::kCostPer1000RequestsUsd));
}

TEST(ShippedScenarios, InternetLinkedNodesMakeMultiNodeTrainingDearer) {
  const gpucap::RunResults cluster = simulate_shipped("multinode_interconnect.yaml", {}, 50);
  const gpucap::RunResults market = simulate_shipped("multinode_interconnect.yaml",
                                                     {"workloads.finetune.placement=[market]"}, 50);
  // Run time ratio = efficiency ratio (2 / 2.035) / (2 / 13.24) = 6.51; cost ratio = 6.51 x
  // 1.60 / 2.99 = 3.48 for the same work. Jobs cut off at the horizon blur the ratio a little.
  const double cost_ratio =
      market.summary_of(0, gpucap::kCostUsd).mean / cluster.summary_of(0, gpucap::kCostUsd).mean;
  const double billed_ratio = market.summary_of(0, gpucap::kGpuHoursBilled).mean /
                              cluster.summary_of(0, gpucap::kGpuHoursBilled).mean;
  std::printf("  market / cluster: cost %.2f, GPU-hours %.2f\n", cost_ratio, billed_ratio);
  EXPECT_GT(cost_ratio, 3.0);
  EXPECT_LT(cost_ratio, 4.0);
  EXPECT_NEAR(cost_ratio / billed_ratio, 1.60 / 2.99, 1e-9);  // cost = billed x fixed price
  EXPECT_GT(market.summary_of(0, gpucap::kCompletionMeanS).mean,
            6.0 * cluster.summary_of(0, gpucap::kCompletionMeanS).mean);
}

}  // namespace
