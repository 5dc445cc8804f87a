// Arrival fits (sim/fit): the hour-of-week likelihood-ratio test rejects a constant rate on a
// strongly diurnal trace and keeps it on a Poisson one at its stated level.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "gpucap/fit/arrival_fit.hpp"
#include "gpucap/fit/burst_fit.hpp"
#include "gpucap/fit/parameter_uncertainty.hpp"

namespace fit = gpucap::fit;

namespace {

constexpr double kHour = 3600, kDay = 86400, kWeek = 7 * kDay;

/// Arrivals of rate(t) per second over [0, window) by thinning a Poisson process of rate `max`.
template <class Rate>
std::vector<double> thinned(Rate rate, double max, double window, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::exponential_distribution<double> gap(max);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> t;
  for (double now = gap(rng); now < window; now += gap(rng))
    if (u(rng) * max < rate(now)) t.push_back(now);
  return t;
}

}  // namespace

TEST(ArrivalFit, RejectsAConstantRateOnADiurnalTrace) {
  // 2 jobs/h on average, ±80% over the day, 4 weeks: ~1350 arrivals, 8 per hour of the week.
  // G's non-centrality is about N · 0.8² / 2 ≈ 430 on 167 df: p is astronomically small.
  const double base = 2 / kHour;
  const auto t = thinned(
      [&](double s) { return base * (1 + 0.8 * std::sin(2 * 3.14159265358979 * s / kDay)); },
      1.8 * base, 4 * kWeek, 31);
  const fit::ArrivalFit a = fit::fit_arrivals(t, 4 * kWeek);
  // A pattern of the day: the day's profile (24 bins, 55 arrivals each) beats the week's (168
  // bins of 8) by AIC, 2 (bins - 1) - G.
  EXPECT_EQ(a.period_hours, 24);
  EXPECT_EQ(a.bin_hours, 1);
  EXPECT_LT(a.p_value, 1e-10);
  ASSERT_TRUE(a.profile_chosen);
  ASSERT_EQ(a.multipliers.size(), 24u);
  EXPECT_NE(a.bins_reason.find("chosen over the week's profile by AIC"), std::string::npos)
      << a.bins_reason;
  double mean = 0;
  for (double m : a.multipliers) mean += m;
  EXPECT_NEAR(mean / 24, 1.0, 1e-12);
  // The peak hours (around 06:00) have multipliers near 1.8, the trough (18:00) near 0.2:
  // each hour's estimate has about 55 arrivals, so ±3 Poisson SDs of 55 is ±22 → ±0.4 × rate.
  EXPECT_GT(a.multipliers[6], 1.3);
  EXPECT_LT(a.multipliers[18], 0.6);
  EXPECT_NEAR(a.profile_rate_per_s * kHour, 2.0, 4 * 2.0 / std::sqrt(double(t.size())));
}

// A pattern of the week (weekdays 3 jobs/h, weekends 0.5 jobs/h), 3 weeks: the day's profile
// cannot hold it and the week's wins; no hour of the profile is 0, though some hours saw no job
// (each bin's rate is shrunk by one pseudo-arrival); and written from another start hour the
// profile is the same hours turned round (rotated_profile).
TEST(ArrivalFit, AWeeklyPatternKeepsTheWeeksProfileAndNoHourIsZero) {
  const auto rate = [](double s) {
    const double day = std::fmod(s, kWeek) / kDay;
    return (day < 5 ? 3.0 : 0.5) / kHour;
  };
  const auto t = thinned(rate, 3.0 / kHour, 3 * kWeek, 5);
  const fit::ArrivalFit a = fit::fit_arrivals(t, 3 * kWeek);
  ASSERT_TRUE(a.profile_chosen);
  EXPECT_EQ(a.period_hours, 168);
  double least = 1e9;
  for (double m : a.multipliers) least = std::min(least, m);
  EXPECT_GT(least, 0.0);
  // The mean rate is (5 x 3 + 2 x 0.5) / 7 = 2.29 jobs/h: weekday hours 1.31 times it, weekend
  // hours 0.22 (each hour's bin holds about 9 weekday or 1.5 weekend arrivals).
  EXPECT_GT(a.multipliers[10], 1.0);
  EXPECT_LT(a.multipliers[24 * 5 + 10], 0.6);
  // The profile from Thursday 14:00 on: its hour 0 is the week's hour 3 x 24 + 14.
  const std::vector<double> from_thursday = fit::rotated_profile(a, (3 * 24 + 14) * kHour);
  ASSERT_EQ(from_thursday.size(), 168u);
  for (int h = 0; h < 168; ++h)
    EXPECT_EQ(from_thursday[h], a.multipliers[(h + 3 * 24 + 14) % 168]) << h;
  // Rounded to the hour, whole weeks away from Monday 00:00 alike.
  EXPECT_EQ(fit::rotated_profile(a, (3 * 24 + 14) * kHour + 1700 + 2 * kWeek), from_thursday);
}

TEST(ArrivalFit, KeepsAConstantRateOnAPoissonTraceAtTheStatedLevel) {
  // Under a constant rate p is uniform (χ² law of G, with >= 5 expected arrivals per bin), so
  // the test rejects 1% of traces: over 200 seeds the count is Binomial(200, 0.01), mean 2;
  // P(count >= 9) < 1e-4. The seed-1 trace itself is accepted.
  const double rate = 2 / kHour;
  int rejected = 0;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    const auto t = thinned([&](double) { return rate; }, rate, 4 * kWeek, seed);
    const fit::ArrivalFit a = fit::fit_arrivals(t, 4 * kWeek);
    if (seed == 1) {
      EXPECT_FALSE(a.profile_chosen) << "p = " << a.p_value;
      EXPECT_EQ(a.degrees_of_freedom, 167);
      EXPECT_NEAR(a.mean_rate_per_s, rate, 4 * rate / std::sqrt(double(t.size())));
    }
    rejected += a.profile_chosen;
  }
  EXPECT_LE(rejected, 8);
}

TEST(ArrivalFit, BinsFollowTheDataAndTheWindow) {
  // 100 arrivals in 2 weeks: 168/w bins with >= 5 each needs w >= 12 → 14 bins of 12 h.
  std::vector<double> t;
  for (int i = 0; i < 100; ++i) t.push_back(i * 2 * kWeek / 100);
  fit::ArrivalFit a = fit::fit_arrivals(t, 2 * kWeek);
  EXPECT_EQ(a.period_hours, 168);
  EXPECT_EQ(a.bin_hours, 12);
  EXPECT_EQ(a.degrees_of_freedom, 13);
  // Evenly spread: no evidence against a constant rate.
  EXPECT_FALSE(a.profile_chosen);
  // A 3-day window: hours of the day.
  a = fit::fit_arrivals(std::vector<double>(t.begin(), t.begin() + 20), 3 * kDay);
  EXPECT_EQ(a.period_hours, 24);
  EXPECT_EQ(a.bin_hours, 6);
  // Under a day, or under 10 arrivals: constant only, and said why.
  a = fit::fit_arrivals({1, 2, 3}, 3600);
  EXPECT_EQ(a.bin_hours, 0);
  EXPECT_NE(a.bins_reason.find("shorter than a day"), std::string::npos);
  a = fit::fit_arrivals({1, 2, 3}, kWeek);
  EXPECT_EQ(a.bin_hours, 0);
  EXPECT_NE(a.bins_reason.find("too few arrivals"), std::string::npos);
  // Partial weeks: the exposure of the hours covered twice is counted twice.
  a = fit::fit_arrivals(std::vector<double>(1000, 10.0), 1.5 * kWeek);
  EXPECT_TRUE(a.profile_chosen);
  EXPECT_NEAR(a.mean_rate_per_s, 1000 / (1.5 * kWeek), 1e-15);
}

// The trend test. Under a constant rate b̂ is near 0 (its standard error is sqrt(12 / (n W²)):
// the Fisher information of b at b = 0 is n Var(t), t uniform on the window) and the test
// rejects at its level; over 200 seeds the count is Binomial(200, 0.01) (P(>= 9) < 1e-4).
TEST(ArrivalFit, NoTrendOnAConstantRateAtTheStatedLevel) {
  const double rate = 2 / kHour;
  int rejected = 0;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    const auto t = thinned([&](double) { return rate; }, rate, 4 * kWeek, seed);
    const fit::ArrivalFit a = fit::fit_arrivals(t, 4 * kWeek);
    ASSERT_TRUE(a.trend_tried);
    const double se = std::sqrt(12.0 / (double(t.size()) * 16 * kWeek * kWeek));
    if (seed == 1) EXPECT_LT(std::fabs(a.trend_per_s), 4 * se) << a.trend_per_s / se;
    rejected += a.trend_significant;
  }
  EXPECT_LE(rejected, 8);
}

// A rate that grows as e^(b t), b = ln 2 per 3 weeks, over 3 weeks: b̂ within 4 standard errors
// (the information n Var(t) under the tilted law of t), significant, and the end factor is
// b W e^(bW) / (e^(bW) - 1) of b̂. With a weekly profile as well (a Friday-evening peak), the
// profile is kept and the trend still found: the geometric sum over whole weeks is exact.
TEST(ArrivalFit, FindsALogLinearTrendWithAndWithoutAProfile) {
  const double window = 3 * kWeek, b = std::log(2.0) / window, base = 3 / kHour;
  for (bool weekly : {false, true}) {
    SCOPED_TRACE(weekly ? "with a weekly profile" : "constant but for the trend");
    const auto shape = [&](double s) {
      const double hour_of_week = std::fmod(s, kWeek) / kHour;
      return weekly && hour_of_week >= 112 && hour_of_week < 118 ? 4.0 : 1.0;
    };
    const auto t = thinned([&](double s) { return base * shape(s) * std::exp(b * s); },
                           base * 4 * 2, window, 7);
    const fit::ArrivalFit a = fit::fit_arrivals(t, window);
    ASSERT_TRUE(a.trend_tried);
    EXPECT_TRUE(a.trend_significant) << a.trend_p_value;
    EXPECT_EQ(a.profile_chosen, weekly);
    // Var(t) under density ∝ e^(bt) on [0, W], for the standard error.
    const double bw = b * window;
    const double mean_t = window * (1 / (1 - std::exp(-bw)) - 1 / bw);
    const double var_t = window * window * (1 / (bw * bw) - std::exp(bw) / std::pow(std::expm1(bw), 2));
    const double se = 1 / std::sqrt(double(t.size()) * var_t);
    EXPECT_NEAR(a.trend_per_s, b, 4 * se) << "mean t " << mean_t;
    const double fitted = a.trend_per_s * window;
    EXPECT_NEAR(a.trend_end_factor, fitted * std::exp(fitted) / std::expm1(fitted), 1e-12);
  }
}

// A level shift: 100 arrivals a day for 30 days, then 160 (a diurnal profile of ±50% on top),
// seen over 34 days. The step beats the log-linear trend, its hour lands within a few hours of
// day 30, the rate after it within 4 standard errors (160 / √n₂ a day) of 160, and what
// `--trend extrapolate` writes is that rate: the end factor is r̂₂ over the window's average
// (exactly), the intensity's shape steps by r̂₂ / r̂₁, and the level's doubt is √(φ / n₂).
TEST(ArrivalFit, FindsAStepAndWritesTheLevelSinceIt) {
  const double window = 34 * kDay, shift = 30 * kDay;
  for (bool diurnal : {false, true}) {
    SCOPED_TRACE(diurnal ? "with a profile of the day" : "constant but for the step");
    const auto rate = [&](double s) {
      const double profile = diurnal ? 1 + 0.5 * std::sin(2 * 3.14159265358979 * s / kDay) : 1.0;
      return (s < shift ? 100.0 : 160.0) / kDay * profile;
    };
    const auto t = thinned(rate, 1.5 * 160 / kDay, window, diurnal ? 12 : 11);
    const fit::ArrivalFit a = fit::fit_arrivals(t, window);
    EXPECT_EQ(a.profile_chosen, diurnal);
    ASSERT_TRUE(a.step_tried);
    EXPECT_TRUE(a.trend_significant);
    EXPECT_TRUE(a.step_chosen) << a.step_gain << " " << a.step_p_value;
    EXPECT_LT(a.step_p_value, 1e-6);
    EXPECT_NEAR(a.step_at_s, shift, 6 * kHour);
    const double n2 = static_cast<double>(a.step_arrivals_after);
    EXPECT_EQ(a.step_arrivals_after,
              static_cast<std::size_t>(std::count_if(t.begin(), t.end(),
                                                     [&](double x) { return x >= a.step_at_s; })));
    EXPECT_NEAR(a.step_rate_after_per_s * kDay, 160, 4 * 160 / std::sqrt(n2));
    EXPECT_NEAR(a.step_rate_before_per_s * kDay, 100, 4 * 100 / std::sqrt(double(t.size()) - n2));
    // The end factor: r̂₂ over n / ∫m (the level with the step's shape taken out).
    fit::ArrivalFit no_step = a;
    no_step.step_chosen = false;
    no_step.trend_significant = false;
    const double level = double(t.size()) / fit::intensity_mass(no_step, 0, window);
    EXPECT_NEAR(a.trend_end_factor, a.step_rate_after_per_s / level, 1e-12);
    EXPECT_NEAR(fit::intensity_shape(a, shift + 12 * kHour) / fit::intensity_shape(a, 12 * kHour) *
                    fit::intensity_shape(no_step, 12 * kHour) /
                    fit::intensity_shape(no_step, shift + 12 * kHour),
                a.step_rate_after_per_s / a.step_rate_before_per_s, 1e-12);
    const fit::RateUncertainty u = fit::rate_uncertainty(a, t, window, true);
    EXPECT_TRUE(u.at_trend_end);
    EXPECT_NEAR(u.sd_log, std::sqrt(u.dispersion / n2), 1e-12);
  }
}

// No step where there is none, at the stated level or below (the days' Bonferroni bound is
// conservative): 100 windows of 30 days whose rate grows smoothly (e^(bt), x1.41 over the
// window: the trend test finds it in nearly all; 1 step in the 100 as written), and 100 whose
// days' rates are gamma draws of cv 0.3 around 100 a day (no trend, no step; the days'
// dispersion is about 10; none). At alpha = 1%, 3 or more of 100 would have probability 8% even
// at the level itself. And none is tried on a window under two weeks.
TEST(ArrivalFit, NoStepOnASmoothTrendOrOnBurstyDays) {
  const double window = 30 * kDay, b = std::log(2.0) / (60 * kDay);
  int steps = 0, trends = 0;
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    const auto t = thinned([&](double s) { return 100 / kDay * std::exp(b * s); },
                           100 / kDay * 1.5, window, 1000 + seed);
    const fit::ArrivalFit a = fit::fit_arrivals(t, window);
    steps += a.step_chosen;
    trends += a.trend_significant;
  }
  EXPECT_LE(steps, 2);
  EXPECT_GE(trends, 90);
  steps = 0;
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    std::mt19937_64 rng(seed);
    std::gamma_distribution<double> day_rate(1 / 0.09, 0.09);  // mean 1, cv 0.3
    std::vector<double> factor(30);
    for (double& f : factor) f = day_rate(rng);
    const auto t = thinned(
        [&](double s) { return 100 / kDay * factor[static_cast<std::size_t>(s / kDay)]; },
        100 / kDay * 4, window, 2000 + seed);
    steps += fit::fit_arrivals(t, window).step_chosen;
  }
  EXPECT_LE(steps, 2);
  // A week whose last two days (a weekend) have a third of the rate: a trend, but no step tried
  // under 14 days (data/sample_week_trace.csv is such a week).
  const auto week = thinned([&](double s) { return (s < 5 * kDay ? 60.0 : 20.0) / kDay; },
                            60 / kDay, kWeek, 77);
  const fit::ArrivalFit a = fit::fit_arrivals(week, kWeek);
  EXPECT_TRUE(a.trend_tried);
  EXPECT_FALSE(a.step_tried);
  EXPECT_FALSE(a.step_chosen);
}

// Profiles follow the calendar: a log that starts on a Friday at 16:57 (t = 0) whose arrivals
// come between 18:00 and 20:00 on Fridays has its peak at hours 114 and 115 of the week
// (Monday 00:00 = hour 0) when the origin's offset is given, and at hours 1 and 2 without it.
TEST(ArrivalFit, ProfilesUseTheOriginsWeekdayAndHour) {
  const double offset = fit::seconds_since_monday(1731689870.0);  // 2024-11-15T16:57:50Z
  EXPECT_DOUBLE_EQ(offset, (4 * 24 + 16) * kHour + 57 * 60 + 50);
  EXPECT_DOUBLE_EQ(fit::seconds_since_monday(4 * kDay), 0.0);  // 1970-01-05 was a Monday
  EXPECT_DOUBLE_EQ(fit::seconds_since_monday(-3 * kDay), 0.0);  // 1969-12-29 too
  const double base = 1 / kHour;
  const auto t = thinned(
      [&](double s) {
        const double h = std::fmod(s + offset, kWeek) / kHour;
        return h >= 114 && h < 116 ? 40 * base : base;
      },
      40 * base, 4 * kWeek, 3);
  const fit::ArrivalFit with = fit::fit_arrivals(t, 4 * kWeek, 0.01, offset);
  ASSERT_TRUE(with.profile_chosen);
  const auto peak = [](const fit::ArrivalFit& a) {
    return std::max_element(a.multipliers.begin(), a.multipliers.end()) - a.multipliers.begin();
  };
  EXPECT_TRUE(peak(with) == 114 || peak(with) == 115) << peak(with);
  EXPECT_GT(with.multipliers[114], 10);
  EXPECT_GT(with.multipliers[115], 10);
  const fit::ArrivalFit without = fit::fit_arrivals(t, 4 * kWeek);
  ASSERT_TRUE(without.profile_chosen);
  EXPECT_TRUE(peak(without) == 1 || peak(without) == 2) << peak(without);
  // A window of 3.5 weeks, whose last half week wraps past the week's end from Friday 16:57:
  // each hour's exposure counts it once, so the off-peak multipliers stay near 1 / (mean).
  std::vector<double> first;
  for (double s : t)
    if (s < 3.5 * kWeek) first.push_back(s);
  const fit::ArrivalFit part = fit::fit_arrivals(first, 3.5 * kWeek, 0.01, offset);
  ASSERT_TRUE(part.profile_chosen);
  EXPECT_TRUE(peak(part) == 114 || peak(part) == 115) << peak(part);
  // Off-peak rate base, peak 40 base in 2 of 168 hours: mean rate 1.464 base; an off-peak hour
  // of about 3.5 arrivals has a multiplier near 0.683, and their average over 166 hours is
  // within a few percent of it.
  double off = 0;
  for (int h = 0; h < 168; ++h)
    if (h != 114 && h != 115) off += part.multipliers[h];
  EXPECT_NEAR(off / 166, 1 / (1 + 78.0 / 168), 0.06);
}
