// Maximum-likelihood fits of the run-time families (sim/fit): recovery of known parameters from
// large synthetic samples (fixed seeds) within ±4 standard errors from the Fisher information,
// censored fits against closed forms, and the special functions they rest on.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "gpucap/fit/maximum_likelihood.hpp"
#include "gpucap/fit/special_functions.hpp"

namespace fit = gpucap::fit;
using fit::Family;
using fit::FamilyParams;
using fit::RunTimeSample;

namespace {

constexpr double kPi = 3.14159265358979323846, kEulerGamma = 0.57721566490153286;

template <class Dist>
RunTimeSample draw(Dist dist, std::size_t n, uint64_t seed, double censor_at_s = INFINITY) {
  std::mt19937_64 rng(seed);
  RunTimeSample s;
  for (std::size_t i = 0; i < n; ++i) {
    const double t = dist(rng);
    s.time_s.push_back(std::min(t, censor_at_s));
    s.censored.push_back(t > censor_at_s);
  }
  return s;
}

/// Standard errors of (a, b) from the observed information: the inverse of minus the Hessian
/// of the log-likelihood at `p` (central differences with relative steps of 1e-4).
std::pair<double, double> observed_standard_errors(Family f, FamilyParams p,
                                                   const RunTimeSample& s) {
  const double ha = 1e-4 * std::fabs(p.a), hb = 1e-4 * std::fabs(p.b);
  auto ll = [&](double da, double db) { return fit::log_likelihood(f, {p.a + da, p.b + db}, s); };
  const double l0 = ll(0, 0);
  const double haa = (ll(ha, 0) - 2 * l0 + ll(-ha, 0)) / (ha * ha);
  const double hbb = (ll(0, hb) - 2 * l0 + ll(0, -hb)) / (hb * hb);
  const double hab = (ll(ha, hb) - ll(ha, -hb) - ll(-ha, hb) + ll(-ha, -hb)) / (4 * ha * hb);
  const double det = haa * hbb - hab * hab;  // of −H, same as of H for 2x2
  return {std::sqrt(-hbb / det), std::sqrt(-haa / det)};
}

}  // namespace

TEST(SpecialFunctions, KnownValues) {
  EXPECT_NEAR(fit::digamma(1.0), -kEulerGamma, 1e-13);
  EXPECT_NEAR(fit::digamma(0.5), -kEulerGamma - 2 * std::log(2.0), 1e-13);
  EXPECT_NEAR(fit::trigamma(1.0), kPi * kPi / 6, 1e-12);
  EXPECT_NEAR(fit::trigamma(0.5), kPi * kPi / 2, 1e-11);
  // Q(1, x) = e^−x exactly, far past where e^−x underflows.
  EXPECT_NEAR(fit::log_gamma_q(1.0, 1000.0), -1000.0, 1e-9);
  EXPECT_NEAR(std::exp(fit::log_gamma_p(1.0, 0.5)), -std::expm1(-0.5), 1e-14);
  // Q(a, x) for half-integer a: Q(0.5, x) = erfc(√x).
  EXPECT_NEAR(std::exp(fit::log_gamma_q(0.5, 2.0)), std::erfc(std::sqrt(2.0)), 1e-14);
  // Chi-square critical values: 3.841 (1 df) and 23.209 (10 df) at 5% and 1%.
  EXPECT_NEAR(fit::chi_square_sf(3.841459, 1), 0.05, 1e-6);
  EXPECT_NEAR(fit::chi_square_sf(23.20925, 10), 0.01, 1e-6);
  // ln(1 − Φ(z)) on both sides of the switch to Mills' ratio at z = 30.
  EXPECT_NEAR(fit::log_normal_sf(30.0 - 1e-9), fit::log_normal_sf(30.0), 1e-7);
  EXPECT_NEAR(fit::log_normal_sf(29.0), std::log(0.5 * std::erfc(29.0 / std::sqrt(2.0))), 1e-9);
  EXPECT_NEAR(fit::log_normal_sf(0.0), std::log(0.5), 1e-15);
  EXPECT_TRUE(std::isfinite(fit::log_normal_sf(1e6)));
}

TEST(MaximumLikelihood, ExponentialCensoredHasTheClosedForm) {
  // Σ t / finished = (100 + 200 + 300 + 400) / 2 = 500 s.
  const RunTimeSample s{{100, 200, 300, 400}, {0, 0, 1, 1}};
  const fit::FamilyFit f = fit::fit_family(Family::exponential, s);
  ASSERT_TRUE(f.ok);
  EXPECT_DOUBLE_EQ(f.params.a, 500.0);
  // ln L = 2 ln(1/500) − 1000/500.
  EXPECT_NEAR(f.log_likelihood, 2 * std::log(1.0 / 500) - 2.0, 1e-12);
  EXPECT_NEAR(f.aic, 2 - 2 * f.log_likelihood, 1e-12);
}

TEST(MaximumLikelihood, WeibullWithShapeOneCensoredMatchesTheExponential) {
  // Censored at 2000 s; at the MLE the profile score is 0, and the censored MLE is a maximum:
  // nudging either parameter lowers ln L.
  const RunTimeSample s = draw(std::exponential_distribution<double>(1 / 1000.0), 4000, 7, 2000);
  const fit::FamilyFit w = fit::fit_family(Family::weibull, s);
  ASSERT_TRUE(w.ok);
  for (double da : {-1e-3, 1e-3})
    for (double db : {-1e-3, 1e-3})
      EXPECT_LT(fit::log_likelihood(Family::weibull, {w.params.a * (1 + da), w.params.b * (1 + db)}, s),
                w.log_likelihood);
  const auto [se_k, se_l] = observed_standard_errors(Family::weibull, w.params, s);
  EXPECT_NEAR(w.params.a, 1.0, 4 * se_k);
  EXPECT_NEAR(w.params.b, 1000.0, 4 * se_l);
}

TEST(MaximumLikelihood, ExponentialRecoversTheMean) {
  const std::size_t n = 20000;
  const RunTimeSample s = draw(std::exponential_distribution<double>(1 / 3600.0), n, 1);
  const fit::FamilyFit f = fit::fit_family(Family::exponential, s);
  ASSERT_TRUE(f.ok);
  EXPECT_NEAR(f.params.a, 3600.0, 4 * 3600.0 / std::sqrt(n));  // SE = mean / √n
}

TEST(MaximumLikelihood, LognormalRecoversMuAndSigma) {
  const std::size_t n = 20000;
  const double mu = std::log(1800.0), sigma = 1.3;
  const RunTimeSample s = draw(std::lognormal_distribution<double>(mu, sigma), n, 2);
  const fit::FamilyFit f = fit::fit_family(Family::lognormal, s);
  ASSERT_TRUE(f.ok);
  EXPECT_NEAR(f.params.a, mu, 4 * sigma / std::sqrt(n));              // SE(μ) = σ/√n
  EXPECT_NEAR(f.params.b, sigma, 4 * sigma / std::sqrt(2.0 * n));     // SE(σ) = σ/√(2n)
}

TEST(MaximumLikelihood, GammaRecoversShapeAndScale) {
  const std::size_t n = 20000;
  const double k = 0.7, theta = 5000;
  const RunTimeSample s = draw(std::gamma_distribution<double>(k, theta), n, 3);
  const fit::FamilyFit f = fit::fit_family(Family::gamma, s);
  ASSERT_TRUE(f.ok);
  // Fisher information per job [[ψ'(k), 1/θ], [1/θ, k/θ²]]: var k̂ = k / ((k ψ'(k) − 1) n),
  // var θ̂ = ψ'(k) θ² / ((k ψ'(k) − 1) n).
  const double q = k * fit::trigamma(k) - 1;
  EXPECT_NEAR(f.params.a, k, 4 * std::sqrt(k / (q * n)));
  EXPECT_NEAR(f.params.b, theta, 4 * std::sqrt(fit::trigamma(k) * theta * theta / (q * n)));
}

TEST(MaximumLikelihood, WeibullRecoversShapeAndScale) {
  const std::size_t n = 20000;
  const double k = 0.8, lambda = 3000;
  const RunTimeSample s = draw(std::weibull_distribution<double>(k, lambda), n, 4);
  const fit::FamilyFit f = fit::fit_family(Family::weibull, s);
  ASSERT_TRUE(f.ok);
  // var k̂ = 6 k² / (π² n); var λ̂ = λ² (1 + 6 (1 − γ)² / π²) / (k² n).
  EXPECT_NEAR(f.params.a, k, 4 * std::sqrt(6 * k * k / (kPi * kPi * n)));
  const double c = 1 + 6 * (1 - kEulerGamma) * (1 - kEulerGamma) / (kPi * kPi);
  EXPECT_NEAR(f.params.b, lambda, 4 * lambda * std::sqrt(c / (k * k * n)));
}

TEST(MaximumLikelihood, CensoredFitsRecoverTheParameters) {
  // Type I censoring at a fixed time (about 25-35% of jobs still running); bands are ±4 standard
  // errors from the observed information of the censored likelihood.
  const std::size_t n = 20000;
  struct Case {
    Family family;
    FamilyParams truth;
    RunTimeSample sample;
  };
  const Case cases[] = {
      {Family::lognormal, {std::log(1800.0), 1.3},
       draw(std::lognormal_distribution<double>(std::log(1800.0), 1.3), n, 5, 4000)},
      {Family::gamma, {0.7, 5000},
       draw(std::gamma_distribution<double>(0.7, 5000), n, 6, 5000)},
      {Family::weibull, {0.8, 3000},
       draw(std::weibull_distribution<double>(0.8, 3000), n, 8, 4000)},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(fit::family_name(c.family));
    const double share = 1.0 - static_cast<double>(c.sample.events()) / n;
    EXPECT_GT(share, 0.2);
    const fit::FamilyFit f = fit::fit_family(c.family, c.sample);
    ASSERT_TRUE(f.ok) << f.note;
    const auto [se_a, se_b] = observed_standard_errors(c.family, f.params, c.sample);
    EXPECT_NEAR(f.params.a, c.truth.a, 4 * se_a);
    EXPECT_NEAR(f.params.b, c.truth.b, 4 * se_b);
    // Ignoring censoring (treating the lower bounds as run times) would be biased far outside.
    RunTimeSample as_finished = c.sample;
    std::fill(as_finished.censored.begin(), as_finished.censored.end(), 0);
    const fit::FamilyFit naive = fit::fit_family(c.family, as_finished);
    EXPECT_GT(std::fabs(naive.params.b - c.truth.b), 4 * se_b);
  }
}

TEST(MaximumLikelihood, SamplesTheFamiliesCannotFitAreReportedNotThrown) {
  const RunTimeSample all_censored{{10, 20}, {1, 1}};
  for (Family f : fit::kFamilies) {
    const fit::FamilyFit r = fit::fit_family(f, all_censored);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.note.find("censored"), std::string::npos);
  }
  const RunTimeSample one{{3600}, {0}};
  EXPECT_TRUE(fit::fit_family(Family::exponential, one).ok);
  EXPECT_FALSE(fit::fit_family(Family::weibull, one).ok);
  const RunTimeSample equal{{60, 60, 60}, {0, 0, 0}};
  for (Family f : {Family::lognormal, Family::gamma, Family::weibull}) {
    const fit::FamilyFit r = fit::fit_family(f, equal);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.note.find("2 distinct"), std::string::npos) << r.note;
  }
  // Huge and tiny times together stay finite.
  const RunTimeSample wide{{1e-6, 1.0, 3e11, 5e3, 7}, {0, 0, 0, 0, 1}};
  for (Family f : fit::kFamilies) {
    const fit::FamilyFit r = fit::fit_family(f, wide);
    if (r.ok) {
      EXPECT_TRUE(std::isfinite(r.aic)) << fit::family_name(f);
    }
  }
}
