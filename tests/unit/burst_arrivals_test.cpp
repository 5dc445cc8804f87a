// Bursts (`arrivals.burst`): a Cox process whose rate in each interval is the rate given times a
// gamma multiplier of mean 1 and coefficient of variation cv; drift (`arrivals.drift`): its level
// a geometric random walk. Against the mixed-Poisson
// moments of the counts, the profile's mean, bit equality where nothing is drawn, and the
// loader's refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "gpucap/metrics.hpp"

#include "support/one_replication.hpp"
#include "support/sample_moments.hpp"
#include "support/scenario_fixture.hpp"

namespace gpucap {
namespace {

class BurstArrivals : public testing_support::ScenarioFixture {};

using testing_support::metric_over_replications;
using testing_support::mean_of;
using testing_support::variance_of;

/// 4 jobs an hour for 500 h, 1 h of work, never waiting; `arrivals_extra` inside `arrivals`.
std::string queue(const std::string& arrivals_extra, const std::string& process = "poisson",
                  const std::string& horizon = "500h") {
  return "name: b\nhorizon: " + horizon + "\nseed: 1\npools:\n  g: {gpu: A100-80GB, "
         "price_usd_per_gpu_hour: 2, quota: 1000}\nworkloads:\n  - name: jobs\n    gpus: 1\n"
         "    arrivals: {process: " + process + ", rate_per_hour: 4" + arrivals_extra + "}\n"
         "    work: {dist: exponential, mean: 1h}\n";
}

// 500 intervals of 1 h, each of mean μ = 4 and variance μ + cv² μ² (a Poisson count of a gamma
// rate): at cv = 1 the total has variance 500 x 20 = 10,000 (Poisson alone: 2,000) and mean
// 2,000. Over 1,000 replications the sample variance is within 4.5% (one standard error).
TEST_F(BurstArrivals, CountsAreAGammaMixedPoissonPerInterval) {
  const std::vector<double> n = metric_over_replications(
      parse(queue(", burst: {interval: 1h, cv: 1}")), kJobsArrived, 1000);
  EXPECT_NEAR(mean_of(n), 2000, 4 * std::sqrt(10000.0 / 1000));
  EXPECT_NEAR(variance_of(n) / 10000.0, 1.0, 0.2);
  // Intervals of 10 h at cv = 0.5: 50 of mean 40 and variance 40 + 0.25 x 1600 = 440.
  const std::vector<double> longer = metric_over_replications(
      parse(queue(", burst: {interval: 10h, cv: 0.5}")), kJobsArrived, 1000);
  EXPECT_NEAR(variance_of(longer) / (50 * 440.0), 1.0, 0.2);
}

// With a profile the bursts multiply it: the mean stays rate x the profile's mean x horizon
// (hours 0-11 at 2, 12-23 at 0: 4 x 1 x 480 h = 1,920), and the hours of multiplier 0 stay
// empty whatever the bursts draw (no job arrives in them: none is counted in the second half
// of the day, which the profile keeps empty).
TEST_F(BurstArrivals, AProfileIsMultipliedAndItsEmptyHoursStayEmpty) {
  std::string profile = ", hourly_profile: [";
  for (int h = 0; h < 24; ++h) profile += std::string(h ? ", " : "") + (h < 12 ? "2" : "0");
  profile += "], burst: {interval: 30min, cv: 2}";
  const std::vector<double> n = metric_over_replications(parse(queue(profile, "nhpp", "480h")),
                                                         kJobsArrived, 1000);
  // Variance: 480 intervals of mean 4 (960 of 30 min at rate 8 in the day's first half) and
  // variance 4 + 4 x 16 = 68: 32,640; sd of the mean over 1,000 replications 5.7.
  EXPECT_NEAR(mean_of(n), 1920, 4 * std::sqrt(32640.0 / 1000));
  EXPECT_NEAR(variance_of(n) / 32640.0, 1.0, 0.2);
}

// A drift of sd 0.2 a day over 30 days at 96 a day: the level of day k is L_k = e^(S_k - k
// s²/2), S_k a sum of k normals of sd s, so Cov(L_j, L_k) = e^(s² min(j, k)) - 1 and the count
// has mean 30 x 96 and variance 30 x 96 + 96² Σ_j Σ_k (e^(s² min(j, k)) - 1) (about 170,000:
// sd 412 against Poisson's 54). With bursts as well the two multiply (only the mean is checked).
TEST_F(BurstArrivals, ADriftIsAGeometricRandomWalkOfTheLevel) {
  const std::vector<double> n = metric_over_replications(
      parse(queue(", drift: {interval: 1d, sd_log: 0.2}", "poisson", "720h")), kJobsArrived, 1000);
  const double mu = 96, s2 = 0.04;
  double walk = 0;
  for (int j = 0; j < 30; ++j)
    for (int k = 0; k < 30; ++k) walk += std::expm1(s2 * std::min(j, k));
  const double variance = 30 * mu + mu * mu * walk;
  EXPECT_NEAR(mean_of(n), 30 * mu, 4 * std::sqrt(variance / 1000));
  EXPECT_NEAR(variance_of(n) / variance, 1.0, 0.25);  // a skewed sum: 5% a standard error
  const std::vector<double> both = metric_over_replications(
      parse(queue(", drift: {interval: 1d, sd_log: 0.2}, burst: {interval: 1h, cv: 1}",
                  "poisson", "720h")),
      kJobsArrived, 400);
  EXPECT_NEAR(mean_of(both), 30 * mu, 4 * std::sqrt((variance + 720 * 16.0) / 400));
}

// cv 0 draws nothing: the same bits as no burst.
TEST_F(BurstArrivals, CvZeroChangesNoBit) {
  for (ScalarMetric m : {kJobsArrived, kCostUsd, kCompletionMeanS}) {
    EXPECT_EQ(metric_over_replications(parse(queue("")), m, 20),
              metric_over_replications(parse(queue(", burst: {interval: 1h, cv: 0}")), m, 20));
  }
}

// Bursts make waits longer at the same load: an M/M/8 at ρ = 0.5 waits far more when the rate
// comes in hour-long bursts of cv 1 (its busy hours run at up to several times the mean load).
TEST_F(BurstArrivals, BurstsLengthenWaitsAtTheSameLoad) {
  const std::string base = queue("", "poisson", "2000h");
  const std::string four = [&] {
    std::string s = base;
    s.replace(s.find("quota: 1000"), 11, "quota: 8");
    return s;
  }();
  std::string bursty = four;
  bursty.replace(bursty.find("rate_per_hour: 4"), 16, "rate_per_hour: 4, burst: {interval: 1h, cv: 1}");
  const double poisson_wait = mean_of(metric_over_replications(parse(four), kWaitMeanS, 40));
  const double bursty_wait = mean_of(metric_over_replications(parse(bursty), kWaitMeanS, 40));
  // M/M/8 at ρ = 0.5: Erlang C gives P(wait) = 0.0590 and a mean wait of 0.0590 / (8 - 4) h =
  // 53.1 s; bursts multiply it many times.
  EXPECT_NEAR(poisson_wait, 53.1, 8.0);
  EXPECT_GT(bursty_wait, 5 * poisson_wait);
}

TEST_F(BurstArrivals, BadValuesAreRefusedWithTheirKeyPath) {
  auto error_has = [&](const std::string& extra, const std::string& what) {
    const std::string e = error_of(queue(extra));
    EXPECT_NE(e.find(what), std::string::npos) << e;
  };
  error_has(", burst: {cv: 1}", "workloads[0].arrivals.burst");
  error_has(", burst: {interval: 1h}", "cv");
  error_has(", burst: {interval: 0s, cv: 1}", "workloads[0].arrivals.burst.interval");
  error_has(", burst: {interval: 1h, cv: -1}", "workloads[0].arrivals.burst.cv");
  error_has(", burst: {interval: 1h, cv: 1, shape: 2}", "shape");
  error_has(", burst: 1h", "workloads[0].arrivals.burst");
  error_has(", drift: {interval: 1d}", "sd_log");
  error_has(", drift: {interval: 1d, sd_log: -0.1}", "workloads[0].arrivals.drift.sd_log");
  error_has(", drift: {interval: -1d, sd_log: 0.1}", "workloads[0].arrivals.drift.interval");
  error_has(", drift: {interval: 1us, sd_log: 0.1}", "drift");
  // One multiplier per microsecond over 500 h is beyond the event budget.
  error_has(", burst: {interval: 1us, cv: 1}", "burst");
  write("t.csv", "submit_s,gpus,duration_s\n0,1,3600\n");
  const std::string trace =
      "name: t\nhorizon: 10h\nseed: 1\npools:\n  g: {gpu: H100, price_usd_per_gpu_hour: 1, "
      "quota: 4}\nworkloads:\n  - name: jobs\n    gpus: 1\n"
      "    arrivals: {process: trace, file: t.csv, burst: {interval: 1h, cv: 1}}\n";
  EXPECT_NE(error_of(trace).find("burst"), std::string::npos) << error_of(trace);
}

}  // namespace
}  // namespace gpucap
