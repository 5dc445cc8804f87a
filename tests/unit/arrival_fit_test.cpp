// Arrival fits (sim/fit): the hour-of-week likelihood-ratio test rejects a constant rate on a
// strongly diurnal trace and keeps it on a Poisson one at its stated level.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "gpucap/fit/arrival_fit.hpp"

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
  EXPECT_EQ(a.period_hours, 168);
  EXPECT_EQ(a.bin_hours, 1);
  EXPECT_LT(a.p_value, 1e-10);
  ASSERT_TRUE(a.profile_chosen);
  ASSERT_EQ(a.multipliers.size(), 168u);
  double mean = 0;
  for (double m : a.multipliers) mean += m;
  EXPECT_NEAR(mean / 168, 1.0, 1e-12);
  // The peak hours (around 06:00) have multipliers near 1.8, the trough (18:00) near 0.2:
  // each hour's estimate has about 8 arrivals, so ±3 Poisson SDs of 8 is ±8.5 → ±1.06 × rate.
  EXPECT_GT(a.multipliers[6], 0.7);
  EXPECT_LT(a.multipliers[18], 1.2);
  EXPECT_NEAR(a.profile_rate_per_s * kHour, 2.0, 4 * 2.0 / std::sqrt(double(t.size())));
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
