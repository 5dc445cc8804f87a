// Validation of the Ornstein-Uhlenbeck price (price_process.model: ornstein_uhlenbeck) against
// its closed forms (docs/validation.md). The price dP = theta (level - P) dt + s dW starts
// from its stationary law N(level, s^2 / (2 theta)), so over [0, T]
//   E[integral of P]   = level T,
//   Var[integral of P] = (s^2 / theta^3) (theta T - 1 + e^(-theta T)),
// and the integral is Gaussian. gpucap draws the price and its integral jointly and exactly at
// the times a run starts or ends, so the law of what a pool pays does not depend on how many
// runs its time is split into: one hold over [0, T] and 200 holds back to back must both follow
// it, and so must the price at one moment (a 1 s hold).
#include <boost/math/distributions/chi_squared.hpp>
#include <cmath>
#include <cstdio>
#include <gtest/gtest.h>
#include <string>
#include <vector>

#include "gpucap/engine/price_process.hpp"
#include "gpucap/run.hpp"
#include "gpucap/scenario_loader.hpp"
#include "gpucap/summary.hpp"

#include "support/scenario_fixture.hpp"

namespace gpucap {
namespace {

// 3.6 USD per GPU-hour (0.001 USD per GPU-second), volatility 0.1 of the level per sqrt(hour),
// reversion 0.2 per hour: a stationary standard deviation of 0.1 / sqrt(0.4) = 15.8% of the level.
constexpr double kLevelPerS = 0.001;
constexpr double kThetaPerS = 0.2 / 3600;
constexpr double kSigmaPerSqrtS = 0.1 * kLevelPerS / 60;  // s, USD per GPU-second per sqrt(s)
constexpr double kHorizonS = 200 * 3600.0;

double integral_variance(double t_s) {
  const double u = kThetaPerS * t_s;
  return kSigmaPerSqrtS * kSigmaPerSqrtS / (kThetaPerS * kThetaPerS * kThetaPerS) *
         (u - 1 + std::exp(-u));
}

class OrnsteinUhlenbeckPrice : public testing_support::ScenarioFixture {
 protected:
  /// The cost of pool `od` (1 GPU) in each of n replications when it runs the jobs of `rows`
  /// (submit_s, gpus, duration_s), all queued from their submit times.
  std::vector<double> costs(const std::vector<std::vector<double>>& rows, uint64_t n) {
    std::string csv = "submit_s,gpus,duration_s\n";
    for (const auto& r : rows)
      csv += std::to_string(r[0]) + "," + std::to_string(static_cast<int>(r[1])) + "," +
             std::to_string(r[2]) + "\n";
    write("jobs.csv", csv);
    const Scenario s = parse(
        "name: t\nhorizon: 200h\npools:\n  od: {gpu: H100, price_usd_per_gpu_hour: 3.6, quota: 1,\n"
        "       price_process: {model: ornstein_uhlenbeck, volatility_per_sqrt_hour: 0.1,\n"
        "                       reversion_per_hour: 0.2}}\n"
        "workloads:\n  - {name: j, arrivals: {process: trace, file: jobs.csv}}\n"
        "policy: {queue_capacity: 1000}\n");
    RunOptions options;
    options.replications = n;
    options.seed = 5;
    const RunResults r = run(s, options);
    std::vector<double> out;
    for (size_t i = 0; i < r.replications; ++i) out.push_back(r.scalar(0, i, kCostUsd));
    return out;
  }
};

/// Expects the sample to be drawn from N(mean, variance): its mean within the 99.9% interval
/// and (n - 1) S^2 / variance within the chi-square distribution's central 99.9%.
void expect_gaussian_law(const std::vector<double>& x, double mean, double variance,
                         const char* what) {
  const MetricSummary s = summarize(x);
  const double n = static_cast<double>(x.size());
  const double half = 3.29 * std::sqrt(variance / n);
  const boost::math::chi_squared chi(n - 1);
  const double statistic = (n - 1) * s.std * s.std / variance;
  std::printf("  %s: mean %.6g (theory %.6g +- %.3g), variance %.6g (theory %.6g, ratio %.4f)\n",
              what, s.mean, mean, half, s.std * s.std, variance, s.std * s.std / variance);
  EXPECT_NEAR(s.mean, mean, half) << what;
  EXPECT_GT(statistic, boost::math::quantile(chi, 0.0005)) << what;
  EXPECT_LT(statistic, boost::math::quantile(chi, 0.9995)) << what;
}

TEST_F(OrnsteinUhlenbeckPrice, OneHoldPaysTheIntegralsLaw) {
  // One job holds the GPU from 0 to past the horizon: billed to the horizon, one draw.
  const std::vector<double> c = costs({{0, 1, 1e7}}, 4000);
  expect_gaussian_law(c, kLevelPerS * kHorizonS, integral_variance(kHorizonS), "one hold");
}

TEST_F(OrnsteinUhlenbeckPrice, HoldsBackToBackPayTheSameLawAsOne) {
  // 200 jobs of 1 h queued at 0 hold the GPU back to back over [0, 200 h]: 200 draws, one per
  // boundary, whose increments must add up to the same law.
  const std::vector<std::vector<double>> rows(200, std::vector<double>{0, 1, 3600});
  const std::vector<double> c = costs(rows, 4000);
  expect_gaussian_law(c, kLevelPerS * kHorizonS, integral_variance(kHorizonS), "200 holds");
}

TEST_F(OrnsteinUhlenbeckPrice, PriceAtOneMomentHasTheStationaryLaw) {
  // A 1 s hold at 50 h pays the integral over [50 h, 50 h + 1 s]: P(50 h) x 1 s to within
  // 1e-4 of its sd, whose variance is the stationary one, s^2 / (2 theta), to 1e-4.
  const std::vector<double> c = costs({{50 * 3600.0, 1, 1}}, 4000);
  const double stationary_variance = kSigmaPerSqrtS * kSigmaPerSqrtS / (2 * kThetaPerS);
  EXPECT_NEAR(integral_variance(1), stationary_variance, 1e-4 * stationary_variance);
  expect_gaussian_law(c, kLevelPerS, integral_variance(1), "price at 50 h");
}

// The transition's coefficients b = 1 - e^-u and g = u - b - b^2/2 against long-double values
// (series below u = 0.01, where the direct form cancels even in long double), at every scale
// of u = theta x interval, across the switch from series to e^-u at u = 1/16.
TEST(OrnsteinUhlenbeckStep, CoefficientsAreAccurateAtEveryInterval) {
  const auto reference = [](long double u, long double& b, long double& g) {
    if (u < 0.01L) {
      long double term = u, sb = 0, sg = 0;  // term = u^n / n!
      for (int n = 1; n < 30; ++n) {
        const long double sign = n % 2 ? 1.0L : -1.0L;
        sb += sign * term;
        if (n >= 3) sg += sign * (std::ldexp(1.0L, n - 1) - 2) * term;
        term *= u / (n + 1);
      }
      b = sb;
      g = sg;
    } else {
      b = -std::expm1(-u);
      g = u - b - 0.5L * b * b;
    }
  };
  double worst_b = 0, worst_g = 0;
  for (double log_u = -10; log_u <= 1.7; log_u += 0.01) {
    for (const double u : {std::pow(10.0, log_u), 0.0625, std::nextafter(0.0625, 0.0)}) {
      long double b, g;
      reference(u, b, g);
      const engine::OrnsteinUhlenbeckStep k = engine::OrnsteinUhlenbeckStep::of(u);
      worst_b = std::max(worst_b, static_cast<double>(std::fabs((k.b - b) / b)));
      worst_g = std::max(worst_g, static_cast<double>(std::fabs((k.g - g) / g)));
      EXPECT_EQ(k.a + k.b, 1.0) << u;
    }
  }
  std::printf("  OU step coefficients: worst relative error of b %.2g, of g %.2g\n", worst_b,
              worst_g);
  EXPECT_LT(worst_b, 2e-15);
  EXPECT_LT(worst_g, 1e-12);
}

TEST_F(OrnsteinUhlenbeckPrice, LoaderRefusesStepsAndSwingsThatReachZero) {
  const std::string pool =
      "name: t\nhorizon: 10h\npools:\n  od: {gpu: H100, price_usd_per_gpu_hour: 3.6, quota: 1,\n"
      "       price_process: {model: ornstein_uhlenbeck";
  const std::string job =
      "}}\nworkloads:\n  - {name: j, arrivals: {process: poisson, rate_per_hour: 1}, work: 1h}\n";
  EXPECT_EQ(error_of(pool + ", volatility_per_sqrt_hour: 0.1, reversion_per_hour: 0.2" + job),
            "no error");
  EXPECT_NE(
      error_of(pool + ", volatility_per_sqrt_hour: 0.1, reversion_per_hour: 0.2, step: 1h" + job)
          .find("pools.od.price_process.step: unknown key 'step'; valid keys: model, "
                "volatility_per_sqrt_hour, reversion_per_hour"),
      std::string::npos);
  // 0.5 / sqrt(2 x 0.5) = 0.5 x the level: the price would be negative 2.3% of the time.
  EXPECT_NE(error_of(pool + ", volatility_per_sqrt_hour: 0.5, reversion_per_hour: 0.5" + job)
                .find("pools.od.price_process.volatility_per_sqrt_hour: gives a stationary "
                      "standard deviation of 0.5 x the level (sigma / sqrt(2 theta)); at most "
                      "0.25 is valid"),
            std::string::npos);
  EXPECT_NE(error_of(pool + ", reversion_per_hour: 0.2" + job)
                .find("volatility_per_sqrt_hour: is required: sigma, as a fraction of the level"),
            std::string::npos);
  EXPECT_NE(error_of(pool + ", volatility_per_sqrt_hour: 0.1, reversion_per_hour: 0" + job)
                .find("reversion_per_hour: must be a rate > 0 per hour, got 0"),
            std::string::npos);
  // The draw divides by theta: a pull too weak to divide by is refused (as every number below
  // 1e-12), the weakest accepted runs to finite costs.
  EXPECT_NE(error_of(pool + ", volatility_per_sqrt_hour: 0, reversion_per_hour: 1e-320" + job)
                .find("reversion_per_hour: must be 0 or between 1e-12 and 1e12 in magnitude"),
            std::string::npos);
  write("one.csv", "submit_s,gpus,duration_s\n0,1,3600\n");
  for (const char* theta : {"1e-12", "1e9"}) {
    RunOptions options;
    options.replications = 4;
    const RunResults r = run(
        parse("name: t\nhorizon: 10h\npools:\n  od: {gpu: H100, price_usd_per_gpu_hour: 3.6, "
              "quota: 1,\n       price_process: {model: ornstein_uhlenbeck, "
              "volatility_per_sqrt_hour: 0, reversion_per_hour: " +
              std::string(theta) +
              "}}\nworkloads:\n  - {name: j, arrivals: {process: trace, file: one.csv}}\n"),
        options);
    for (size_t i = 0; i < r.replications; ++i)  // no volatility: the level, 3.6 USD
      EXPECT_NEAR(r.scalar(0, i, kCostUsd), 3.6, 1e-9) << theta;
  }
}

}  // namespace
}  // namespace gpucap
