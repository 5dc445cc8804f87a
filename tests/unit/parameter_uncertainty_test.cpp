// Parameter uncertainty (`workloads[].uncertainty`): each replication draws its own arrival
// rate and work scale, mean-preserving lognormal multipliers, so that the spread over
// replications holds the doubt about the model as well as its Poisson noise. Against the
// mixed-Poisson variance, the lognormal's moments, and bit equality where nothing is drawn.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "gpucap/metrics.hpp"

#include "support/one_replication.hpp"
#include "support/sample_moments.hpp"
#include "support/scenario_fixture.hpp"

namespace gpucap {
namespace {

class ParameterUncertainty : public testing_support::ScenarioFixture {};

using testing_support::mean_of;
using testing_support::variance_of;

std::vector<double> per_replication(const Scenario& s, ScalarMetric m, uint64_t n) {
  return testing_support::metric_over_replications(s, m, n);
}

/// Jobs at 4 per hour for 500 h (2000 expected), 1 h of exponential work, never waiting.
std::string queue(const std::string& uncertainty, const std::string& quota = "1000") {
  return "name: u\nhorizon: 500h\nseed: 1\npools:\n  g: {gpu: A100-80GB, "
         "price_usd_per_gpu_hour: 2, quota: " + quota + "}\nworkloads:\n  - name: jobs\n"
         "    gpus: 1\n    arrivals: {process: poisson, rate_per_hour: 4}\n"
         "    work: {dist: exponential, mean: 1h}\n" + uncertainty;
}

// N given the rate factor F is Poisson(2000 F), E[F] = 1, Var F = e^(s^2) - 1: E[N] = 2000,
// Var N = 2000 + 2000^2 (e^(s^2) - 1), 165,243 at s = 0.2 (sd 406, against 45 without). Over
// 1000 replications the sample variance is within 4.5% (one standard error) of it.
TEST_F(ParameterUncertainty, ArrivalsAreAMixedPoissonOfTheRatesDrawn) {
  const std::vector<double> n =
      per_replication(parse(queue("    uncertainty: {rate_sd_log: 0.2}\n")), kJobsArrived, 1000);
  const double s2 = 0.04, mu = 2000;
  const double expected_variance = mu + mu * mu * std::expm1(s2);
  EXPECT_NEAR(mean_of(n), mu, 4 * std::sqrt(expected_variance / 1000));
  EXPECT_NEAR(variance_of(n) / expected_variance, 1.0, 0.2);
  const std::vector<double> poisson = per_replication(parse(queue("")), kJobsArrived, 1000);
  EXPECT_NEAR(variance_of(poisson) / mu, 1.0, 0.2);  // Poisson noise alone
}

// The work's scale: each replication's mean completion (no waits) is f x 1 h, f mean-preserving
// lognormal of s = 0.3, so log(completion_mean) has sd sqrt(0.3^2 + 1/2000) (the mean of ~2000
// exponentials adds 2.2%) and the completions' mean over replications stays 3600 s.
TEST_F(ParameterUncertainty, WorkIsScaledByTheReplicationsFactor) {
  const std::vector<double> c = per_replication(
      parse(queue("    uncertainty: {scale_sd_log: 0.3}\n")), kCompletionMeanS, 1000);
  std::vector<double> logs;
  for (double x : c) logs.push_back(std::log(x));
  EXPECT_NEAR(std::sqrt(variance_of(logs)), std::sqrt(0.09 + 1.0 / 2000), 0.03);
  EXPECT_NEAR(mean_of(c) / 3600.0, 1.0, 0.04);  // sd of the mean: 0.31 / sqrt(1000) = 1%
  EXPECT_NEAR(mean_of(logs), std::log(3600.0) - 0.045, 0.04);  // E[log f] = -s^2 / 2
}

// Nothing drawn, the same bits: sd 0 and no uncertainty give the same replications.
TEST_F(ParameterUncertainty, ZeroUncertaintyChangesNoBit) {
  for (ScalarMetric m : {kJobsArrived, kCostUsd, kCompletionMeanS, kWaitMeanS}) {
    const std::vector<double> a = per_replication(parse(queue("", "3")), m, 20);
    const std::vector<double> b = per_replication(
        parse(queue("    uncertainty: {rate_sd_log: 0, scale_sd_log: 0}\n", "3")), m, 20);
    EXPECT_EQ(a, b);
  }
}

// Common random numbers: a replication draws the same parameters whatever the pool's size, so
// its arrivals are the same at every sweep point of a quota.
TEST_F(ParameterUncertainty, AReplicationsParametersAreTheSameAtEverySweepPoint) {
  const std::string u = "    uncertainty: {rate_sd_log: 0.5, scale_sd_log: 0.5}\n";
  EXPECT_EQ(per_replication(parse(queue(u, "3")), kJobsArrived, 30),
            per_replication(parse(queue(u, "50")), kJobsArrived, 30));
}

// The rest of an instance alive at t = 0 whose age a deterministic lifetime scaled down cannot
// reach is the unscaled rest (10 h - 8 h), never a negative or an out-of-range draw; one it
// can reach is f x 10 h - 8 h.
TEST_F(ParameterUncertainty, AnAgeBeyondAScaledDownLifetimeKeepsTheUnscaledRest) {
  write("state.csv", "remaining,age\nunknown,8\n");
  const std::string yaml =
      "name: d\nhorizon: 100h\nseed: 1\npools:\n  g: {gpu: H100, price_usd_per_gpu_hour: 1, "
      "quota: 4}\nworkloads:\n  - name: fleet\n    kind: deployment\n    gpus: 1\n"
      "    arrivals: {process: poisson, rate_per_day: 0.000001}\n    lifetime: 10h\n"
      "    initial_state: {file: state.csv, time_unit: 1h}\n"
      "    uncertainty: {scale_sd_log: 1.0}\n";
  const std::vector<double> hours = per_replication(parse(yaml), kGpuHoursUsed, 200);
  int below = 0, above = 0;
  for (double h : hours) {
    ASSERT_GT(h, 0.0);
    ASSERT_LT(h, 100.0);
    if (h == 2.0) ++below;  // f x 10 h <= 8 h: the unscaled 2 h
    else ++above;
  }
  // P(f <= 0.8) = P(Z <= (ln 0.8 + 0.5) / 1) = Phi(0.277) = 0.609.
  EXPECT_NEAR(below / 200.0, 0.609, 0.12);
  EXPECT_GT(above, 0);
}

TEST_F(ParameterUncertainty, BadValuesAreRefusedWithTheirKeyPath) {
  EXPECT_NE(error_of(queue("    uncertainty: {rate_sd_log: -0.1}\n")).find(
                "workloads[0].uncertainty.rate_sd_log"),
            std::string::npos);
  EXPECT_NE(error_of(queue("    uncertainty: {scale_sd_log: 4}\n")).find(
                "workloads[0].uncertainty.scale_sd_log"),
            std::string::npos);
  EXPECT_NE(error_of(queue("    uncertainty: {rate_sd: 0.1}\n")).find("rate_sd_log"),
            std::string::npos);  // unknown key: says the valid ones
  EXPECT_NE(error_of(queue("    uncertainty: 0.1\n")).find("workloads[0].uncertainty"),
            std::string::npos);
  write("t.csv", "submit_s,gpus,duration_s\n0,1,3600\n10,1,3600\n");
  const std::string trace =
      "name: t\nhorizon: 10h\nseed: 1\npools:\n  g: {gpu: H100, price_usd_per_gpu_hour: 1, "
      "quota: 4}\nworkloads:\n  - name: jobs\n    gpus: 1\n"
      "    arrivals: {process: trace, file: t.csv}\n"
      "    uncertainty: {rate_sd_log: 0.1}\n";
  EXPECT_NE(error_of(trace).find("no rate or distribution to doubt"), std::string::npos)
      << error_of(trace);
}

/// An inference service: requests at 200 an hour for 24 h (4800 expected), 30 s of exponential
/// service, 20 replicas (about 1.7 busy on average: the waits are a few ms).
std::string service(const std::string& uncertainty) {
  return "name: s\nhorizon: 24h\nseed: 3\npools:\n  h: {gpu: H100, price_usd_per_gpu_hour: 3, "
         "quota: 20}\nworkloads:\n  - name: api\n    kind: inference\n    pool: h\n"
         "    replicas: 20\n    arrivals: {process: poisson, rate_per_hour: 200}\n"
         "    service: {dist: exponential, mean: 30s}\n" + uncertainty;
}

// A service's requests: the same mixed Poisson as a job class's arrivals (E[N] = 4800, Var N =
// 4800 + 4800^2 (e^(s^2) - 1) = 944,960 at s = 0.2), and its service times scaled by the
// replication's factor: with the waits negligible, log(latency_mean) has sd sqrt(0.3^2 + 1/4800)
// and latency_mean's mean over replications stays 30 s (E[f] = 1).
TEST_F(ParameterUncertainty, AServicesRateAndServiceTimesAreDrawnToo) {
  const std::vector<double> n = per_replication(
      parse(service("    uncertainty: {rate_sd_log: 0.2}\n")), kRequestsArrived, 1000);
  const double mu = 4800, expected_variance = mu + mu * mu * std::expm1(0.04);
  EXPECT_NEAR(mean_of(n), mu, 4 * std::sqrt(expected_variance / 1000));
  EXPECT_NEAR(variance_of(n) / expected_variance, 1.0, 0.2);
  const std::vector<double> latency = per_replication(
      parse(service("    uncertainty: {scale_sd_log: 0.3}\n")), kLatencyMeanS, 1000);
  std::vector<double> logs;
  for (double x : latency) logs.push_back(std::log(x));
  EXPECT_NEAR(std::sqrt(variance_of(logs)), std::sqrt(0.09 + 1.0 / 4800), 0.03);
  EXPECT_NEAR(mean_of(latency) / 30.0, 1.0, 0.04);
  // Nothing drawn, the same bits.
  EXPECT_EQ(per_replication(parse(service("")), kLatencyMeanS, 20),
            per_replication(parse(service("    uncertainty: {rate_sd_log: 0, scale_sd_log: 0}\n")),
                            kLatencyMeanS, 20));
}

// An LLM service's requests take the time their tokens take: its rate may be doubted, its
// service-time scale may not (refused with the key path).
TEST_F(ParameterUncertainty, AnLlmServiceTakesARateDoubtOnly) {
  const std::string llm =
      "name: l\nhorizon: 1h\nseed: 1\npools:\n  h: {gpu: H100, price_usd_per_gpu_hour: 4, "
      "quota: 1}\nworkloads:\n  - name: chat\n    kind: inference\n    pool: h\n"
      "    arrivals: {process: poisson, rate_per_s: 5}\n    llm:\n      model: llama-2-7b\n"
      "      tokens: {context: 256, output: 16}\n    replicas: 1\n";
  EXPECT_NO_THROW(parse(llm + "    uncertainty: {rate_sd_log: 0.1}\n"));
  const std::string e = error_of(llm + "    uncertainty: {rate_sd_log: 0.1, scale_sd_log: 0.1}\n");
  EXPECT_NE(e.find("workloads[0].uncertainty.scale_sd_log"), std::string::npos) << e;
  EXPECT_NE(e.find("no service-time scale to doubt"), std::string::npos) << e;
}

}  // namespace
}  // namespace gpucap
