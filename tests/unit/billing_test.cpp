// Tests of billing: billed_seconds (increments, the 1 ns tolerance, minimums)
// and billed hours and cost end to end through gpucap::run.
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <unistd.h>

#include "gpucap/replication.hpp"
#include "gpucap/metrics.hpp"
#include "gpucap/run.hpp"
#include "gpucap/scenario_loader.hpp"

#include "support/scenario_fixture.hpp"

namespace gpucap {
namespace {

namespace fs = std::filesystem;

double billed(double held_s, double increment_s, double minimum_s = 0) {
  return gpucap::billed_seconds(held_s, increment_s, minimum_s);
}

// ---- billed_seconds -------------------------------------------------------------------------

TEST(BilledSeconds, PerSecondIncrements) {
  EXPECT_EQ(billed(0.5, 1), 1.0);
  EXPECT_EQ(billed(1.0, 1), 1.0);
  EXPECT_EQ(billed(1.5, 1), 2.0);
  EXPECT_EQ(billed(59.2, 1), 60.0);
  EXPECT_EQ(billed(5400.0, 1), 5400.0);
  EXPECT_EQ(billed(86400.0 * 30, 1), 86400.0 * 30);
  EXPECT_EQ(billed(86400.0 * 30 + 0.25, 1), 86400.0 * 30 + 1);
}

TEST(BilledSeconds, MinuteIncrements) {
  EXPECT_EQ(billed(1.0, 60), 60.0);
  EXPECT_EQ(billed(59.0, 60), 60.0);
  EXPECT_EQ(billed(60.0, 60), 60.0);
  EXPECT_EQ(billed(61.0, 60), 120.0);
  EXPECT_EQ(billed(119.999, 60), 120.0);
  EXPECT_EQ(billed(120.0, 60), 120.0);
  EXPECT_EQ(billed(120.001, 60), 180.0);
}

TEST(BilledSeconds, HourIncrements) {
  EXPECT_EQ(billed(1.0, 3600), 3600.0);
  EXPECT_EQ(billed(3599.0, 3600), 3600.0);
  EXPECT_EQ(billed(3600.0, 3600), 3600.0);  // exactly one hour: one increment, not two
  EXPECT_EQ(billed(3601.0, 3600), 7200.0);
  EXPECT_EQ(billed(5400.0, 3600), 7200.0);
  EXPECT_EQ(billed(7200.0, 3600), 7200.0);
  EXPECT_EQ(billed(100 * 3600.0, 3600), 100 * 3600.0);
  EXPECT_EQ(billed(1000 * 3600.0, 3600), 1000 * 3600.0);
}

TEST(BilledSeconds, HoldWithinOneNanosecondOfABoundaryIsNotRoundedPastIt) {
  // The documented tolerance: a hold within 1 ns of an increment boundary bills that boundary
  // (floating-point sums of times land a hair above whole hours).
  EXPECT_EQ(billed(3600.0000000001, 3600), 3600.0);
  EXPECT_EQ(billed(std::nextafter(3600.0, 4000.0), 3600), 3600.0);
  EXPECT_EQ(billed(std::nextafter(3.6e6, 4e6), 3600), 3.6e6);
  EXPECT_EQ(billed(60.0000000005, 60), 60.0);
  EXPECT_EQ(billed(std::nextafter(1.0, 2.0), 1), 1.0);
  // Beyond the tolerance the next increment is billed.
  EXPECT_EQ(billed(3600.000001, 3600), 7200.0);
  EXPECT_EQ(billed(3600.00001, 3600), 7200.0);
  EXPECT_EQ(billed(60.00001, 60), 120.0);
  // Just below a boundary is that boundary.
  EXPECT_EQ(billed(std::nextafter(3600.0, 0.0), 3600), 3600.0);
}

TEST(BilledSeconds, Minimums) {
  EXPECT_EQ(billed(10.0, 60, 60), 60.0);
  EXPECT_EQ(billed(10.0, 1, 60), 60.0);
  EXPECT_EQ(billed(59.5, 1, 60), 60.0);
  EXPECT_EQ(billed(61.0, 1, 60), 61.0);  // above the minimum: increments only
  EXPECT_EQ(billed(61.0, 60, 60), 120.0);
  EXPECT_EQ(billed(10.0, 60, 300), 300.0);
  EXPECT_EQ(billed(1000.0, 60, 300), 1020.0);
  EXPECT_EQ(billed(10.0, 3600, 60), 3600.0);  // the increment already exceeds the minimum
}

TEST(BilledSeconds, ZeroHold) {
  EXPECT_EQ(billed(0.0, 1), 0.0);
  EXPECT_EQ(billed(0.0, 3600), 0.0);
  EXPECT_FALSE(std::signbit(billed(0.0, 3600)));
  EXPECT_EQ(billed(0.0, 1, 60), 60.0);  // the minimum applies per launch
  EXPECT_EQ(billed(0.0, 3600, 60), 60.0);
}

TEST(BilledSeconds, ContinuousBillingWithoutIncrement) {
  EXPECT_EQ(billed(12.345, 0), 12.345);
  EXPECT_EQ(billed(12.345, 0, 60), 60.0);
  EXPECT_EQ(billed(0.0, 0), 0.0);
}

// ---- end to end -----------------------------------------------------------------------------

class BillingRun : public testing_support::ScenarioFixture {
 protected:
  static RunResults run_it(const Scenario& s, uint64_t replications) {
    RunOptions o;
    o.replications = replications;
    o.threads = 1;
    return run(s, o);
  }
};

/// Arrivals only in hours 0-19 of a 24 h horizon and a quota far above the load: every job of
/// 1.5 h starts at once and ends before the horizon, so each is billed exactly 2 h per GPU.
std::string profile_scenario(const std::string& price) {
  std::string profile;
  for (int h = 0; h < 24; ++h) profile += std::string(h ? ", " : "") + (h < 20 ? "1" : "0");
  return "name: billing\n"
         "horizon: 24h\n"
         "seed: 11\n"
         "pools:\n"
         "  gpus:\n"
         "    gpu: H100\n"
         "    price_usd_per_gpu_hour: " +
         price +
         "\n"
         "    billing_increment: 1h\n"
         "    quota: 64\n"
         "workloads:\n"
         "  - name: jobs\n"
         "    gpus: 2\n"
         "    work: 1.5h\n"
         "    arrivals: {process: nhpp, rate_per_hour: 2, hourly_profile: [" +
         profile + "]}\n";
}

TEST_F(BillingRun, EveryJobOfOneAndAHalfHoursIsBilledTwoHours) {
  const RunResults r = run_it(parse(profile_scenario("3.6")), 8);
  double total_jobs = 0;
  for (std::size_t rep = 0; rep < r.replications; ++rep) {
    SCOPED_TRACE(rep);
    const double arrived = r.scalar(0, rep, kJobsArrived);
    const double started = r.scalar(0, rep, kJobsStarted);
    const double completed = r.scalar(0, rep, kJobsCompleted);
    ASSERT_EQ(started, arrived);
    ASSERT_EQ(completed, started);  // nothing was cut off by the horizon
    EXPECT_EQ(r.scalar(0, rep, kWaitMeanS), 0.0);
    const double billed_h = r.scalar(0, rep, kGpuHoursBilled);
    const double used_h = r.scalar(0, rep, kGpuHoursUsed);
    EXPECT_EQ(billed_h, 2.0 * 2.0 * completed);  // 2 h x 2 GPUs per job
    // Used time is end - start of times that are not whole seconds: exact to rounding only.
    EXPECT_NEAR(used_h, 1.5 * 2.0 * completed, 1e-9 * used_h);
    EXPECT_GE(billed_h, used_h);
    EXPECT_NEAR(r.scalar(0, rep, kCostUsd), 3.6 * billed_h, 1e-9 * 3.6 * billed_h);
    EXPECT_EQ(r.pool_value(0, rep, 0, kPoolGpuHoursBilled), billed_h);
    EXPECT_EQ(r.pool_value(0, rep, 0, kPoolCostUsd), r.scalar(0, rep, kCostUsd));
    EXPECT_EQ(r.pool_value(0, rep, 0, kPoolJobsStarted), started);
    total_jobs += completed;
  }
  EXPECT_GT(total_jobs, 8 * 20);  // ~40 jobs per replication: the check saw real traffic
}

TEST_F(BillingRun, CostIsExactlyBilledHoursTimesPriceWhenThePriceIsExact) {
  // 3600 USD per GPU-hour is exactly 1 USD per GPU-second: every sum is of whole numbers.
  const RunResults r = run_it(parse(profile_scenario("3600")), 4);
  for (std::size_t rep = 0; rep < r.replications; ++rep) {
    const double billed_h = r.scalar(0, rep, kGpuHoursBilled);
    EXPECT_GT(billed_h, 0.0);
    EXPECT_EQ(r.scalar(0, rep, kCostUsd), billed_h * 3600.0);
  }
}

TEST_F(BillingRun, JobsRunningAtTheHorizonAreBilledUpToIt) {
  // Jobs of 1.5 h on 2 GPUs at 0, 1 h, 2 h and 2.5 h; horizon 3 h, billed per started hour.
  //   job 0: 0 -> 1.5 h      completed, billed 2 h     used 1.5 h
  //   job 1: 1 h -> 2.5 h    completed, billed 2 h     used 1.5 h
  //   job 2: 2 h -> (3.5 h)  running,   held 1 h: 1 h  used 1 h
  //   job 3: 2.5 h -> (4 h)  running,   held 0.5 h: 1 h used 0.5 h
  write("trace.csv", "submit_s,gpus,duration_s\n0,2,5400\n3600,2,5400\n7200,2,5400\n9000,2,5400\n");
  const Scenario s = parse(
      "name: horizon billing\n"
      "horizon: 3h\n"
      "pools:\n"
      "  gpus: {gpu: H100, price_usd_per_gpu_hour: 3.6, billing_increment: 1h, quota: 8}\n"
      "workloads:\n"
      "  - name: jobs\n"
      "    arrivals: {process: trace, file: trace.csv}\n");
  const RunResults r = run_it(s, 2);
  for (std::size_t rep = 0; rep < r.replications; ++rep) {
    EXPECT_EQ(r.scalar(0, rep, kJobsArrived), 4.0);
    EXPECT_EQ(r.scalar(0, rep, kJobsStarted), 4.0);
    EXPECT_EQ(r.scalar(0, rep, kJobsCompleted), 2.0);
    EXPECT_EQ(r.scalar(0, rep, kGpuHoursBilled), 2.0 * (2 + 2 + 1 + 1));
    EXPECT_EQ(r.scalar(0, rep, kGpuHoursUsed), 2.0 * (1.5 + 1.5 + 1.0 + 0.5));
    EXPECT_NEAR(r.scalar(0, rep, kCostUsd), 12 * 3.6, 1e-9);
    EXPECT_EQ(r.scalar(0, rep, kUtilization), 9.0 / (8 * 3.0));
  }
}

TEST_F(BillingRun, IncrementsAndMinimumsPerJob) {
  // One job of 61 s and one of 10 s, billed per minute with a 2-minute minimum: 120 s + 120 s.
  // A second pool billed per second with no minimum for comparison.
  write("a.csv", "submit_s,gpus,duration_s\n0,1,61\n100,1,10\n");
  write("b.csv", "submit_s,gpus,duration_s\n0,1,61\n100,1,10\n");
  const Scenario s = parse(
      "name: increments\n"
      "horizon: 1h\n"
      "pools:\n"
      "  minute: {gpu: A100, price_usd_per_gpu_hour: 3600, billing_increment: 1min,\n"
      "           billing_minimum: 2min, quota: 1}\n"
      "  second: {gpu: A100, price_usd_per_gpu_hour: 3600, quota: 1}\n"
      "workloads:\n"
      "  - name: a\n"
      "    placement: [minute]\n"
      "    arrivals: {process: trace, file: a.csv}\n"
      "  - name: b\n"
      "    placement: [second]\n"
      "    arrivals: {process: trace, file: b.csv}\n");
  const RunResults r = run_it(s, 1);
  EXPECT_EQ(r.pool_value(0, 0, 0, kPoolCostUsd), 240.0);
  // Hours are sums of seconds / 3600 (not exact in binary): equal to within a few ulp.
  EXPECT_DOUBLE_EQ(r.pool_value(0, 0, 0, kPoolGpuHoursBilled), 240.0 / 3600.0);
  EXPECT_DOUBLE_EQ(r.pool_value(0, 0, 0, kPoolGpuHoursUsed), 71.0 / 3600.0);
  EXPECT_EQ(r.pool_value(0, 0, 1, kPoolCostUsd), 71.0);
  EXPECT_DOUBLE_EQ(r.pool_value(0, 0, 1, kPoolGpuHoursBilled), 71.0 / 3600.0);
  EXPECT_EQ(r.scalar(0, 0, kCostUsd), 311.0);
}

TEST_F(BillingRun, BilledNeverBelowUsedWithRandomTrafficAndWarmup) {
  const Scenario s = parse(
      "name: random\n"
      "horizon: 200h\n"
      "warmup: 20h\n"
      "seed: 5\n"
      "pools:\n"
      "  a: {gpu: A100, price_usd_per_gpu_hour: 2.5, billing_increment: 1h, quota: 4}\n"
      "  b: {gpu: H100, price_usd_per_gpu_hour: 4.0, billing_increment: 1min,\n"
      "      billing_minimum: 10min, quota: 4}\n"
      "workloads:\n"
      "  - name: jobs\n"
      "    arrivals: {process: poisson, rate_per_hour: 5}\n"
      "    work: {dist: exponential, mean: 1h}\n");
  const RunResults r = run_it(s, 16);
  for (std::size_t rep = 0; rep < r.replications; ++rep) {
    for (std::size_t p = 0; p < 2; ++p) {
      EXPECT_GE(r.pool_value(0, rep, p, kPoolGpuHoursBilled),
                r.pool_value(0, rep, p, kPoolGpuHoursUsed));
      EXPECT_GT(r.pool_value(0, rep, p, kPoolGpuHoursUsed), 0.0);
    }
    EXPECT_NEAR(r.scalar(0, rep, kCostUsd),
                2.5 * r.pool_value(0, rep, 0, kPoolGpuHoursBilled) +
                    4.0 * r.pool_value(0, rep, 1, kPoolGpuHoursBilled),
                1e-9 * r.scalar(0, rep, kCostUsd));
    // Pool 'a' bills whole hours: its billed GPU-hours are a whole number.
    const double a_billed = r.pool_value(0, rep, 0, kPoolGpuHoursBilled);
    EXPECT_EQ(a_billed, std::round(a_billed));
  }
}

}  // namespace
}  // namespace gpucap
