// A committed pool of count 0 (reserved or owned) commits nothing: it is valid, runs nothing,
// costs nothing, and leaves every other figure as if the pool were not there, so a sweep of the
// committed count can start at 0.
#include <gtest/gtest.h>

#include <string>

#include "gpucap/metrics.hpp"
#include "gpucap/run.hpp"

#include "support/one_replication.hpp"
#include "support/scenario_fixture.hpp"

namespace gpucap {
namespace {

using testing_support::Row;
using testing_support::run_once;

class ZeroCommitment : public testing_support::ScenarioFixture {
 protected:
  RunResults run_it(const Scenario& s) {
    RunOptions o;
    o.replications = 6;
    o.threads = 1;
    return run(s, o);
  }
};

/// Jobs placed on a committed pool first, then on-demand; `committed` is the pool's entry
/// (empty: no committed pool at all).
std::string jobs_scenario(const std::string& committed) {
  return "name: zero\nhorizon: 3d\nseed: 5\n"
         "pools:\n" +
         committed +
         "  od: {gpu: H100, price_usd_per_gpu_hour: 4, quota: 64, billing_increment: 1min}\n"
         "workloads:\n"
         "  - name: jobs\n"
         "    gpus: 2\n"
         "    work: {dist: exponential, mean: 3h}\n"
         "    arrivals: {process: poisson, rate_per_hour: 3}\n"
         "    placement: [" +
         (committed.empty() ? std::string("od") : std::string("c, od")) + "]\n";
}

TEST_F(ZeroCommitment, ACountOfZeroLeavesEveryFigureOfTheOtherPools) {
  const RunResults without = run_it(parse(jobs_scenario("")));
  for (const char* option : {"reserved", "owned"}) {
    SCOPED_TRACE(option);
    const std::string pool =
        std::string(option) == "reserved"
            ? "  c: {gpu: H100, purchase: reserved, count: 0, price_usd_per_gpu_hour: 2}\n"
            : "  c: {gpu: H100, purchase: owned, count: 0, capex_usd_per_gpu: 30000, "
              "amortize_years: 3, opex_usd_per_gpu_hour: 0.5}\n";
    const RunResults with = run_it(parse(jobs_scenario(pool)));
    double jobs = 0;
    for (std::size_t rep = 0; rep < with.replications; ++rep) {
      EXPECT_EQ(with.pool_value(0, rep, 0, kPoolCostUsd), 0.0);
      EXPECT_EQ(with.pool_value(0, rep, 0, kPoolGpuHoursBilled), 0.0);
      EXPECT_EQ(with.pool_value(0, rep, 0, kPoolGpuHoursUsed), 0.0);
      EXPECT_EQ(with.pool_value(0, rep, 0, kPoolJobsStarted), 0.0);
      EXPECT_EQ(with.pool_value(0, rep, 0, kPoolUtilization), 0.0);
      // The on-demand pool sees the same jobs at the same times: the same bits.
      EXPECT_EQ(with.pool_value(0, rep, 1, kPoolCostUsd), without.pool_value(0, rep, 0, kPoolCostUsd));
      for (ScalarMetric m : {kCostUsd, kJobsStarted, kJobsCompleted, kWaitMeanS, kGpuHoursUsed,
                       kGpuHoursBilled, kUtilization})
        EXPECT_EQ(with.scalar(0, rep, m), without.scalar(0, rep, m)) << kScalarMetricInfo[m].name;
      jobs += with.scalar(0, rep, kJobsCompleted);
    }
    EXPECT_GT(jobs, 6 * 150.0);  // about 3 jobs an hour for 72 h: real traffic was compared
  }
}

TEST_F(ZeroCommitment, TheCountTakesZeroFromAnOverrideAndRefusesBelow) {
  const std::string pool = "  c: {gpu: H100, purchase: reserved, count: 8, price_usd_per_gpu_hour: 2}\n";
  const Scenario s = parse(jobs_scenario(pool), {"pools.c.count=0"});
  EXPECT_EQ(s.pools[s.pool_index("c")].quota_gpus, 0u);
  try {
    parse(jobs_scenario(pool), {"pools.c.count=-1"});
    FAIL() << "a count of -1 was accepted";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("pools.c.count: must be a whole number from 0 to 1048575, got \"-1\""),
              std::string::npos)
        << e.what();
  }
}

TEST_F(ZeroCommitment, AWorkloadWithOnlyAnEmptyPoolToRunInIsRefused) {
  const std::string yaml =
      "name: zero\nhorizon: 1d\n"
      "pools:\n"
      "  c: {gpu: H100, purchase: reserved, count: 0, price_usd_per_gpu_hour: 2}\n"
      "workloads:\n"
      "  - {name: jobs, gpus: 2, work: 1h, arrivals: {process: poisson, rate_per_hour: 1},\n"
      "     placement: [c]}\n";
  EXPECT_NE(error_of(yaml).find("workloads[0].gpus: a job of 2 GPUs fits no pool of its placement "
                                "list (quotas: c 0)"),
            std::string::npos)
      << error_of(yaml);
}

const char* kService =
    "name: zero\nhorizon: 100s\n"
    "pools:\n"
    "  c: {gpu: L4, purchase: reserved, count: 0, price_usd_per_gpu_hour: 3600}\n"
    "  spot: {gpu: L4, purchase: spot, price_usd_per_gpu_hour: 1800, quota: 4,\n"
    "         preemption: {max_runtime: 30s}}\n"
    "workloads:\n"
    "  - {name: api, kind: inference, pool: c, replicas: 2,\n"
    "     arrivals: {process: poisson, rate_per_s: 1}, service: 1s}\n";

// A service's replicas run in its pool, or for a spot pool in its fallback pool: one that
// commits nothing can be neither.
TEST_F(ZeroCommitment, AServicePoolMustHoldSome) {
  EXPECT_NE(error_of(kService).find("workloads[0].pool: pool \"c\" commits no GPUs (count 0), so "
                                    "no replica of the service could start; give the pool GPUs "
                                    "or the service another pool"),
            std::string::npos)
      << error_of(kService);
  std::string fallback = kService;
  fallback.replace(fallback.find("pool: c, replicas"), 17, "pool: spot, fallback_pool: c, replicas");
  EXPECT_NE(error_of(fallback).find("workloads[0].fallback_pool: pool \"c\" commits no GPUs "
                                    "(count 0); a fallback pool must hold some"),
            std::string::npos)
      << error_of(fallback);
  // With a count the same service loads.
  std::string counted = kService;
  counted.replace(counted.find("count: 0"), 8, "count: 2");
  EXPECT_EQ(error_of(counted), "no error");
  // A spot pool of quota 0 holds nothing either.
  std::string empty_spot = counted;
  empty_spot.replace(empty_spot.find("quota: 4"), 8, "quota: 0");
  empty_spot.replace(empty_spot.find("pool: c, replicas"), 17, "pool: spot, replicas");
  EXPECT_NE(error_of(empty_spot).find("workloads[0].pool: pool \"spot\" holds no GPUs (quota 0), "
                                      "so no replica of the service could start"),
            std::string::npos)
      << error_of(empty_spot);
}

// An uncommitted pool of quota 0 (on-demand, spot, marketplace) holds nothing, as a committed
// count of 0 does: every figure is as if it were not there, so a sweep of a spot quota may
// include 0 ("no spot"); a serverless pool's quota stays at least 1.
TEST_F(ZeroCommitment, AQuotaOfZeroLeavesEveryFigureOfTheOtherPools) {
  const RunResults without = run_it(parse(jobs_scenario("")));
  for (const char* option : {"spot", "on_demand", "marketplace"}) {
    SCOPED_TRACE(option);
    const std::string reclaims = std::string(option) == "on_demand"
                                     ? ""
                                     : ", preemption: {time_to_preemption: 1h}";
    const RunResults with = run_it(parse(jobs_scenario(
        std::string("  c: {gpu: H100, purchase: ") + option +
        ", quota: 0, price_usd_per_gpu_hour: 1" + reclaims + "}\n")));
    for (std::size_t rep = 0; rep < with.replications; ++rep) {
      EXPECT_EQ(with.pool_value(0, rep, 0, kPoolCostUsd), 0.0);
      EXPECT_EQ(with.pool_value(0, rep, 0, kPoolJobsStarted), 0.0);
      for (ScalarMetric m : {kCostUsd, kJobsStarted, kJobsCompleted, kWaitMeanS, kGpuHoursBilled})
        EXPECT_EQ(with.scalar(0, rep, m), without.scalar(0, rep, m)) << kScalarMetricInfo[m].name;
    }
  }
  const Scenario swept = parse(jobs_scenario("  c: {gpu: H100, purchase: spot, quota: 16, "
                                             "price_usd_per_gpu_hour: 1, preemption: "
                                             "{time_to_preemption: 1h}}\n"),
                               {"pools.c.quota=0"});
  EXPECT_EQ(swept.pools[swept.pool_index("c")].quota_gpus, 0u);
  const std::string serverless =
      "name: zero\nhorizon: 100s\npools:\n"
      "  sl: {gpu: L4, purchase: serverless, price_usd_per_gpu_second: 0.001, quota: 0}\n"
      "workloads:\n"
      "  - {name: api, kind: inference, pool: sl, arrivals: {process: poisson, rate_per_s: 1},\n"
      "     service: 1s}\n";
  EXPECT_NE(error_of(serverless).find("pools.sl.quota: must be at least 1 for a serverless pool"),
            std::string::npos)
      << error_of(serverless);
}

}  // namespace
}  // namespace gpucap
