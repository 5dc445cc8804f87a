// The over-dispersion test and the burst fit (sim/fit/burst_fit): Poisson logs pass (with and
// without a profile, which the expected counts follow), Cox logs of a known interval and cv are
// caught and fitted back, and degenerate logs are left untested.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "gpucap/fit/arrival_fit.hpp"
#include "gpucap/fit/burst_fit.hpp"

namespace fit = gpucap::fit;

namespace {

constexpr double kDayS = 86400.0;

/// Arrivals over `window` s of rate `rate` (/s) times a day-night profile (hours 8-19 x1.6,
/// the rest x0.4) when `profiled`, times a gamma multiplier of mean 1 and cv `cv` per interval
/// of `tau` s (cv 0: Poisson).
std::vector<double> cox_log(double window, double rate, double tau, double cv, bool profiled,
                            uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> t;
  const double step = std::min(tau, 3600.0);
  for (double start = 0; start < window; start += tau) {
    double mult = 1;
    if (cv > 0) mult = std::gamma_distribution<double>(1 / (cv * cv), cv * cv)(rng);
    for (double s = start; s < std::min(start + tau, window); s += step) {
      const double end = std::min({s + step, start + tau, window});
      const int hour = static_cast<int>(std::fmod(s, kDayS) / 3600);
      const double m = profiled ? (hour >= 8 && hour < 20 ? 1.6 : 0.4) : 1.0;
      std::poisson_distribution<int> n(rate * m * mult * (end - s));
      std::uniform_real_distribution<double> u(s, end);
      for (int k = n(rng); k > 0; --k) t.push_back(u(rng));
    }
  }
  std::sort(t.begin(), t.end());
  return t;
}

fit::BurstFit fit_log(const std::vector<double>& t, double window) {
  return fit::fit_bursts(t, window, fit::fit_arrivals(t, window));
}

}  // namespace

// Poisson over 14 days, flat and with a profile the arrival fit finds: every length's index of
// dispersion is near 1 (χ²(K-1)/(K-1) has sd sqrt(2/(K-1)): at most 0.19 up to 6 h (56
// intervals), a band of 0.25; 0.39 for the 14 days, a band of 0.8) and the test keeps Poisson.
TEST(BurstFit, PoissonLogsAreNotBursty) {
  for (bool profiled : {false, true}) {
    SCOPED_TRACE(profiled);
    const std::vector<double> t = cox_log(14 * kDayS, 0.05, 3600, 0, profiled, 11);
    const fit::BurstFit b = fit_log(t, 14 * kDayS);
    ASSERT_TRUE(b.tested);
    EXPECT_FALSE(b.over_dispersed);
    EXPECT_EQ(b.lengths.size(), 6u);  // 1 min to 1 d: 14 days hold 10 days
    for (const fit::DispersionAtLength& at : b.lengths)
      EXPECT_NEAR(at.index, 1.0, at.interval_s < 86400 ? 0.25 : 0.8);
  }
}

// A gamma rate per 5 min of cv 0.8 (and per hour of cv 0.5, over a profile): caught, τ* found,
// cv within 20%.
TEST(BurstFit, CoxLogsAreFittedBack) {
  struct Case {
    double tau, cv;
    bool profiled;
  };
  for (const Case c : {Case{300, 0.8, false}, Case{3600, 0.5, true}, Case{60, 1.5, false}}) {
    SCOPED_TRACE(c.tau);
    const std::vector<double> t = cox_log(14 * kDayS, 0.05, c.tau, c.cv, c.profiled, 23);
    const fit::BurstFit b = fit_log(t, 14 * kDayS);
    ASSERT_TRUE(b.over_dispersed);
    EXPECT_EQ(b.interval_s, c.tau);
    EXPECT_NEAR(b.cv / c.cv, 1.0, 0.2);
  }
}

// Fewer than 50 arrivals, or a window of fewer than 10 minutes: not tested.
TEST(BurstFit, SmallLogsAreNotTested) {
  std::vector<double> few;
  for (int i = 0; i < 40; ++i) few.push_back(i * 100.0);
  EXPECT_FALSE(fit_log(few, 5000).tested);
  std::vector<double> short_window;
  for (int i = 0; i < 200; ++i) short_window.push_back(i * 2.5);
  EXPECT_FALSE(fit_log(short_window, 500).tested);
}

// The intensity's mass over a day is the profile's sum of hours, whatever the origin.
TEST(BurstFit, IntensityMassFollowsTheProfile) {
  fit::ArrivalFit a;
  a.profile_chosen = true;
  a.period_hours = 24;
  a.multipliers.assign(24, 0.5);
  for (int h = 12; h < 24; ++h) a.multipliers[h] = 1.5;
  a.origin_offset_s = 6 * 3600.0;  // t = 0 is 06:00
  EXPECT_NEAR(fit::intensity_mass(a, 0, kDayS), 24 * 3600.0, 1e-6);
  EXPECT_NEAR(fit::intensity_mass(a, 0, 6 * 3600.0), 6 * 3600 * 0.5, 1e-6);  // 06:00-12:00
  EXPECT_NEAR(fit::intensity_mass(a, 6 * 3600.0, 7 * 3600.0), 3600 * 1.5, 1e-6);
  EXPECT_NEAR(fit::intensity_mass(a, 1800.0, 5400.0), 3600 * 0.5, 1e-6);  // across an hour
  EXPECT_NEAR(fit::intensity_mass(a, 0, 1e12) / 1e12, 1.0, 1e-3);  // centuries: the mean
}
