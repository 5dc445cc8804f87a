// The fit's doubt about its own parameters (sim/fit/parameter_uncertainty): the sd it writes for
// the log of an arrival rate and of a run time's scale, against the spread of the estimates
// over many logs drawn from one known truth (Monte Carlo calibration), and against theory.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "gpucap/fit/arrival_fit.hpp"
#include "gpucap/fit/parameter_uncertainty.hpp"
#include "gpucap/fit/run_time_model.hpp"

#include "support/sample_moments.hpp"

namespace fit = gpucap::fit;

namespace {

constexpr double kDayS = 86400.0;

/// Arrivals over `days` days, `per_day` a day on average; each day's rate times e^(s Z - s²/2)
/// (s = 0: a Poisson process).
std::vector<double> arrivals(int days, double per_day, double s, std::mt19937_64& rng) {
  std::normal_distribution<double> z;
  std::uniform_real_distribution<double> u(0.0, kDayS);
  std::vector<double> t;
  for (int d = 0; d < days; ++d) {
    std::poisson_distribution<int> n(per_day * std::exp(s * z(rng) - 0.5 * s * s));
    for (int k = n(rng); k > 0; --k) t.push_back(d * kDayS + u(rng));
  }
  std::sort(t.begin(), t.end());
  return t;
}

using gpucap::testing_support::mean_of;
using gpucap::testing_support::sd_of;

/// Over 200 logs of 28 days: the sd of ln(rate estimate) against the mean sd the fit writes.
void expect_rate_calibrated(double s, double min_dispersion, double max_dispersion) {
  std::mt19937_64 rng(41);
  std::vector<double> log_rates, written, dispersions;
  for (int i = 0; i < 200; ++i) {
    const std::vector<double> t = arrivals(28, 50, s, rng);
    const fit::ArrivalFit a = fit::fit_arrivals(t, 28 * kDayS);
    const fit::RateUncertainty u = fit::rate_uncertainty(a, t, 28 * kDayS, false);
    log_rates.push_back(std::log(a.mean_rate_per_s));
    written.push_back(u.sd_log);
    dispersions.push_back(u.dispersion);
    EXPECT_EQ(u.days, 28u);
  }
  // The sd of 200 estimates is within 5% of the truth (one standard error).
  EXPECT_NEAR(mean_of(written) / sd_of(log_rates), 1.0, 0.2);
  EXPECT_GE(mean_of(dispersions), min_dispersion);
  EXPECT_LE(mean_of(dispersions), max_dispersion);
}

}  // namespace

// Poisson: sd(ln λ̂) = 1/sqrt(N) = 0.027 at 1,400 arrivals; the dispersion stays near 1 (its
// floor; χ²/27 has sd 0.27).
TEST(FitUncertainty, APoissonRatesSdIsOneOverRootN) { expect_rate_calibrated(0.0, 1.0, 1.3); }

// Days of lognormal rates (s = 0.5): the counts' variance is μ + μ² (e^(s²) - 1) a day, so the
// dispersion is 1 + 50 (e^0.25 - 1) = 15.2 and the rate's sd ~ sqrt(15.2) = 3.9 times Poisson's.
TEST(FitUncertainty, ABurstyRatesSdFollowsItsDayToDaySpread) {
  expect_rate_calibrated(0.5, 10.0, 22.0);
}

// A level carried to the window's end by a log-linear fit: for a constant rate over [0, T] the
// variance of the fitted log level at T is 4 / N (1/N at the middle, 3/N more from the slope's
// variance 12 / (N T²) over half a window), so the sd is 2 / sqrt(N).
TEST(FitUncertainty, TheEndOfAFittedTrendIsTwiceAsUncertainAsTheAverage) {
  std::mt19937_64 rng(5);
  const std::vector<double> t = arrivals(28, 50, 0.0, rng);
  fit::ArrivalFit a = fit::fit_arrivals(t, 28 * kDayS);
  a.profile_chosen = false;
  a.trend_significant = false;
  const fit::RateUncertainty end = fit::rate_uncertainty(a, t, 28 * kDayS, true);
  const fit::RateUncertainty mid = fit::rate_uncertainty(a, t, 28 * kDayS, false);
  EXPECT_TRUE(end.at_trend_end);
  EXPECT_NEAR(end.sd_log / mid.sd_log, 2.0, 0.01);
  EXPECT_NEAR(mid.sd_log * std::sqrt(static_cast<double>(t.size())), std::sqrt(mid.dispersion),
              1e-12);
}

// Below 7 days no dispersion is measured; an empty log or window has no sd; a window of
// centuries is integrated in bounded steps.
TEST(FitUncertainty, EdgeCases) {
  std::mt19937_64 rng(9);
  const std::vector<double> t = arrivals(3, 20, 0.0, rng);
  const fit::RateUncertainty u = fit::rate_uncertainty(fit::fit_arrivals(t, 3 * kDayS), t,
                                                       3 * kDayS, false);
  EXPECT_EQ(u.days, 0u);
  EXPECT_DOUBLE_EQ(u.sd_log, 1.0 / std::sqrt(static_cast<double>(t.size())));
  EXPECT_EQ(fit::rate_uncertainty(fit::ArrivalFit{}, {}, 100.0, false).sd_log, 0.0);
  const std::vector<double> one = {5.0};
  const fit::RateUncertainty long_window =
      fit::rate_uncertainty(fit::fit_arrivals(one, 1e13), one, 1e13, true);
  EXPECT_LE(long_window.sd_log, fit::kMaxSdLog);
  EXPECT_GT(long_window.sd_log, 0.0);
}

// The run time's scale: over 200 samples of 200 runs of a known family, the sd of the fitted
// log scale (log mean at the fitted shape) against the mean sd written.
TEST(FitUncertainty, ScaleSdMatchesTheSpreadOfFittedScales) {
  struct Case {
    fit::RunTimeChoice choice;
    int kind;  // 0 exponential, 1 lognormal, 2 weibull, 3 gamma
  };
  for (const Case c : {Case{fit::RunTimeChoice::exponential, 0},
                       Case{fit::RunTimeChoice::lognormal, 1},
                       Case{fit::RunTimeChoice::weibull, 2}, Case{fit::RunTimeChoice::gamma, 3}}) {
    SCOPED_TRACE(c.kind);
    std::mt19937_64 rng(100 + c.kind);
    std::vector<double> log_scales, written;
    for (int i = 0; i < 200; ++i) {
      fit::RunTimeSample s;
      for (int k = 0; k < 200; ++k) {
        double x = 0;
        switch (c.kind) {
          case 0: x = std::exponential_distribution<double>(1.0 / 3600)(rng); break;
          case 1: x = std::lognormal_distribution<double>(8.0, 1.2)(rng); break;
          case 2: x = std::weibull_distribution<double>(0.7, 5000)(rng); break;
          default: x = std::gamma_distribution<double>(2.5, 1000)(rng); break;
        }
        s.time_s.push_back(x);
        s.censored.push_back(0);
      }
      const fit::RunTimeModel m = fit::choose_run_time_model(s, c.choice);
      ASSERT_FALSE(m.empirical);
      const double scale = c.kind == 0   ? m.params.a
                           : c.kind == 1 ? m.params.a  // μ: ln of the median
                           : c.kind == 2 ? std::log(m.params.b)
                                         : std::log(m.params.a * m.params.b);
      log_scales.push_back(c.kind == 0 ? std::log(scale) : scale);
      written.push_back(fit::scale_sd_log(m));
    }
    EXPECT_NEAR(mean_of(written) / sd_of(log_scales), 1.0, 0.2);
  }
}

// The empirical distribution's: the sample mean's coefficient of variation, CV / sqrt(n).
TEST(FitUncertainty, EmpiricalScaleSdIsTheMeansCv) {
  fit::RunTimeModel m;
  m.empirical = true;
  m.values = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  const double sd = std::sqrt(82.5 / 9.0), mean = 5.5;  // Σ (x - 5.5)² = 82.5
  EXPECT_NEAR(fit::scale_sd_log(m), sd / mean / std::sqrt(10.0), 1e-12);
  m.values = {7, 7, 7};
  EXPECT_EQ(fit::scale_sd_log(m), 0.0);
}
