// Run-time (lifetime) trends (sim/fit/run_time_trend): the log-rank test of the jobs started in
// the window's second half against the first's, censoring included. Exact against a direct
// computation, at its level where nothing changes (however much the log's end censors), and
// finding a halved lifetime with its hazard ratio.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>
#include <vector>

#include "gpucap/fit/run_time_trend.hpp"

namespace fit = gpucap::fit;

namespace {

constexpr double kDay = 86400;

struct Log {
  fit::RunTimeSample sample;
  std::vector<double> submit_s;
};

/// Instances created at `per_day` a day over [0, window) with exponential lifetimes of mean
/// `mean(start)`, censored at the window's end.
template <class Mean>
Log instances(double per_day, double window, Mean mean, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::exponential_distribution<double> gap(per_day / kDay);
  Log log;
  for (double t = gap(rng); t < window; t += gap(rng)) {
    const double life = std::exponential_distribution<double>(1 / mean(t))(rng);
    const bool running = t + life > window;
    log.sample.time_s.push_back(running ? window - t : life);
    log.sample.censored.push_back(running);
    log.submit_s.push_back(t);
  }
  return log;
}

}  // namespace

// The statistic from its definition, time by time with the risk sets counted afresh (O(n²)).
TEST(RunTimeTrend, EqualsTheLogRankStatisticComputedDirectly) {
  Log log = instances(20, 20 * kDay, [](double) { return 2 * kDay; }, 5);
  // Ties: a few equal times, one of them censored, as a log rounded to the second has.
  for (std::size_t i = 0; i + 1 < 40; i += 8) log.sample.time_s[i + 1] = log.sample.time_s[i];
  log.sample.censored[1] = 1;
  const fit::RunTimeTrend t = fit::run_time_trend(log.sample, log.submit_s, 20 * kDay);
  ASSERT_TRUE(t.tested);
  const double half = 10 * kDay;
  std::set<double> end_times;
  for (std::size_t i = 0; i < log.submit_s.size(); ++i)
    if (!log.sample.censored[i]) end_times.insert(log.sample.time_s[i]);
  double o1 = 0, e1 = 0, v = 0, o = 0;
  for (double u : end_times) {
    double n = 0, n1 = 0, d = 0, d1 = 0;
    for (std::size_t i = 0; i < log.submit_s.size(); ++i) {
      const bool late = log.submit_s[i] >= half;
      if (log.sample.time_s[i] >= u) n += 1, n1 += late;
      if (log.sample.time_s[i] == u && !log.sample.censored[i]) d += 1, d1 += late;
    }
    o1 += d1;
    o += d;
    e1 += d * n1 / n;
    if (n > 1) v += d * (n1 / n) * (1 - n1 / n) * (n - d) / (n - 1);
  }
  EXPECT_NEAR(t.chi_square, (o1 - e1) * (o1 - e1) / v, 1e-9 * (1 + t.chi_square));
  EXPECT_NEAR(t.hazard_ratio, (o1 / e1) / ((o - o1) / (o - e1)), 1e-12);
  EXPECT_EQ(t.early_ends + t.late_ends, static_cast<std::size_t>(o));
}

// One lifetime throughout: rejected at about alpha, whether the log's end censors a little
// (mean 1 day of a 30-day window) or most of the later half (mean 20 days): the later half's
// shorter follow-up is not read as shorter lives. 200 logs each; at 1%, 7 or more would have
// probability 1.5% at the level itself.
TEST(RunTimeTrend, HoldsItsLevelWhereLifetimesDoNotChange) {
  for (double mean_days : {1.0, 20.0}) {
    SCOPED_TRACE(mean_days);
    int flagged = 0;
    for (uint64_t seed = 1; seed <= 200; ++seed) {
      const Log log = instances(20, 30 * kDay, [&](double) { return mean_days * kDay; }, seed);
      const fit::RunTimeTrend t = fit::run_time_trend(log.sample, log.submit_s, 30 * kDay);
      ASSERT_TRUE(t.tested);
      flagged += t.significant;
    }
    EXPECT_LE(flagged, 6);
  }
}

// Lifetimes that halve from the window's middle on (mean 2 days, then 1): found, with a hazard
// ratio of 2 within 4 standard errors of its log (√(1/O_early + 1/O_late)), and the medians in
// the order the lives have.
TEST(RunTimeTrend, FindsLifetimesThatHalve) {
  const double window = 30 * kDay;
  const Log log = instances(20, window, [&](double t) { return (t < window / 2 ? 2 : 1) * kDay; }, 9);
  const fit::RunTimeTrend t = fit::run_time_trend(log.sample, log.submit_s, window);
  ASSERT_TRUE(t.tested);
  EXPECT_TRUE(t.significant) << t.p_value;
  const double se = std::sqrt(1.0 / t.early_ends + 1.0 / t.late_ends);
  EXPECT_NEAR(std::log(t.hazard_ratio), std::log(2.0), 4 * se);
  EXPECT_GT(t.early_median_s, t.late_median_s);
  EXPECT_NEAR(t.early_median_s / kDay, 2 * std::log(2.0), 0.4);
}

// Too few ends in a half, or a sample and starts of different lengths: not tested.
TEST(RunTimeTrend, NotTestedOnTooLittle) {
  Log log = instances(1, 30 * kDay, [](double) { return kDay; }, 3);  // about 15 a half
  log.sample.censored.assign(log.sample.size(), 1);
  for (std::size_t i = 0; i < 9 && i < log.sample.size(); ++i) log.sample.censored[i] = 0;
  EXPECT_FALSE(fit::run_time_trend(log.sample, log.submit_s, 30 * kDay).tested);
  log.submit_s.pop_back();
  EXPECT_FALSE(fit::run_time_trend(log.sample, log.submit_s, 30 * kDay).tested);
  EXPECT_FALSE(fit::run_time_trend({}, {}, 30 * kDay).tested);
}
