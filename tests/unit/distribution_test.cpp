// Tests of the distributions of the portable core: sample moments of each DistKind against the
// analytic values (5-sigma bands), a Kolmogorov-Smirnov check of the whole shape where the CDF
// has a closed form, and exactness of the deterministic and empirical kinds.
#include "gpucap/distribution.hpp"
#include "gpucap/residual_life.hpp"

#include <algorithm>
#include <boost/math/special_functions/gamma.hpp>
#include <cmath>
#include <functional>
#include <gtest/gtest.h>
#include <string>
#include <tuple>
#include <vector>

#include "gpucap/scenario.hpp"

namespace gpucap {
namespace {

constexpr int kDraws = 200000;

/// Raw moments E[X^1..4] of a distribution; m[n] for n = 1..4 (m[0] = 1).
struct RawMoments {
  double m[5] = {1, 0, 0, 0, 0};
  bool has_fourth = true;  ///< false when E[X^4] diverges (variance check skipped)
  double mean() const { return m[1]; }
  double variance() const { return m[2] - m[1] * m[1]; }
  double central4() const {
    return m[4] - 4 * m[1] * m[3] + 6 * m[1] * m[1] * m[2] - 3 * m[1] * m[1] * m[1] * m[1];
  }
};

RawMoments moments_of(const Distribution& d, const std::vector<double>& table) {
  RawMoments r;
  for (int n = 1; n <= 4; ++n) {
    const double k = d.p0, s = d.p1;
    switch (d.kind) {
      case DistKind::deterministic:
        r.m[n] = std::pow(d.p0, n);
        break;
      case DistKind::exponential:  // n! mean^n
        r.m[n] = std::tgamma(n + 1.0) * std::pow(d.p0, n);
        break;
      case DistKind::uniform:  // (b^(n+1) - a^(n+1)) / ((n+1)(b-a))
        r.m[n] = (std::pow(d.p1, n + 1) - std::pow(d.p0, n + 1)) / ((n + 1) * (d.p1 - d.p0));
        break;
      case DistKind::lognormal:  // exp(n mu + n^2 sigma^2 / 2)
        r.m[n] = std::exp(n * d.p0 + 0.5 * n * n * d.p1 * d.p1);
        break;
      case DistKind::gamma:  // theta^n k (k+1) ... (k+n-1)
        r.m[n] = std::pow(s, n) * std::tgamma(k + n) / std::tgamma(k);
        break;
      case DistKind::weibull:  // lambda^n Gamma(1 + n/k)
        r.m[n] = std::pow(s, n) * std::tgamma(1.0 + n / k);
        break;
      case DistKind::pareto:  // alpha x_m^n / (alpha - n), finite for alpha > n
        if (k > n) {
          r.m[n] = k * std::pow(s, n) / (k - n);
        } else {
          r.m[n] = HUGE_VAL;
          if (n == 4) r.has_fourth = false;
        }
        break;
      case DistKind::empirical: {
        double sum = 0;
        for (uint32_t i = 0; i < d.table_count; ++i) sum += std::pow(table[d.table_offset + i], n);
        r.m[n] = sum / d.table_count;
        break;
      }
    }
  }
  return r;
}

/// The DistributionSpec the loader would produce for `d` (for its analytic mean()).
DistributionSpec spec_of(const Distribution& d, const std::vector<double>& table) {
  DistributionSpec spec;
  spec.kind = d.kind;
  spec.p0 = d.p0;
  spec.p1 = d.p1;
  if (d.kind == DistKind::empirical)
    spec.samples.assign(table.begin() + d.table_offset,
                        table.begin() + d.table_offset + d.table_count);
  return spec;
}

std::vector<double> draw(const Distribution& d, const std::vector<double>& table, uint32_t index,
                         int n = kDraws) {
  RandomStream rng = RandomStream::make(20240601, 3, stream_id(StreamKind::test, index));
  std::vector<double> x(n);
  for (auto& v : x) v = sample(d, rng, table.empty() ? nullptr : table.data());
  return x;
}

/// Checks the sample mean (and variance, where the fourth moment is finite) of `x` against the
/// analytic values, each inside 5 standard errors, and DistributionSpec::mean() against theory.
void expect_moments(const Distribution& d, const std::vector<double>& table,
                    const std::vector<double>& x) {
  const RawMoments r = moments_of(d, table);
  const double mean = r.mean(), var = r.variance();
  const DistributionSpec spec = spec_of(d, table);
  EXPECT_NEAR(spec.mean(), mean, 1e-12 * std::fabs(mean)) << "DistributionSpec::mean()";

  const double n = static_cast<double>(x.size());
  double sd1 = 0, sd2 = 0;  // sums of deviations from the analytic mean and their squares
  for (double v : x) {
    ASSERT_TRUE(std::isfinite(v));
    const double dv = v - mean;
    sd1 += dv;
    sd2 += dv * dv;
  }
  const double sample_mean = mean + sd1 / n;
  const double sample_var = (sd2 - sd1 * sd1 / n) / (n - 1);
  EXPECT_NEAR(sample_mean, mean, 5 * std::sqrt(var / n)) << "mean";
  if (r.has_fourth) {
    const double se_var = std::sqrt((r.central4() - var * var) / n);
    EXPECT_NEAR(sample_var, var, 5 * se_var) << "variance";
  }
}

/// Kolmogorov-Smirnov distance of the sample from `cdf`, against the 99.99% critical value
/// sqrt(-ln(alpha/2) / (2n)) (asymptotic; 0.0050 for n = 200000).
void expect_ks(std::vector<double> x, const std::function<double(double)>& cdf) {
  std::sort(x.begin(), x.end());
  const double n = static_cast<double>(x.size());
  double dmax = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double f = cdf(x[i]);
    dmax = std::max({dmax, (i + 1) / n - f, f - i / n});
  }
  EXPECT_LT(dmax, std::sqrt(-std::log(1e-4 / 2) / (2 * n))) << "Kolmogorov-Smirnov distance";
}

Distribution make(DistKind kind, double p0, double p1 = 0) {
  Distribution d;
  d.kind = kind;
  d.p0 = p0;
  d.p1 = p1;
  return d;
}

const std::vector<double> kNoTable;

// ---- each kind ------------------------------------------------------------------------------

TEST(Distribution, DeterministicIsExactAndDrawsNothing) {
  const Distribution d = make(DistKind::deterministic, 5400.25);
  RandomStream rng = RandomStream::make(1, 2, stream_id(StreamKind::test, 0));
  const RandomStream before = rng;
  for (int i = 0; i < 100; ++i) EXPECT_EQ(sample(d, rng, nullptr), 5400.25);
  EXPECT_EQ(rng.block, before.block);
  EXPECT_EQ(rng.used, before.used);
  EXPECT_EQ(sample(make(DistKind::deterministic, 0.0), rng, nullptr), 0.0);
  EXPECT_EQ(spec_of(d, kNoTable).mean(), 5400.25);
}

TEST(Distribution, Exponential) {
  const Distribution d = make(DistKind::exponential, 3600.0);
  const std::vector<double> x = draw(d, kNoTable, 1);
  for (double v : x) ASSERT_GT(v, 0.0);
  expect_moments(d, kNoTable, x);
  expect_ks(x, [](double v) { return -std::expm1(-v / 3600.0); });
}

TEST(Distribution, Uniform) {
  const Distribution d = make(DistKind::uniform, 60.0, 180.0);
  const std::vector<double> x = draw(d, kNoTable, 2);
  for (double v : x) {
    ASSERT_GT(v, 60.0);
    ASSERT_LT(v, 180.0);
  }
  expect_moments(d, kNoTable, x);
  expect_ks(x, [](double v) { return (v - 60.0) / 120.0; });
}

TEST(Distribution, Lognormal) {
  const double mu = std::log(1800.0), sigma = 0.6;  // median 30 min
  const Distribution d = make(DistKind::lognormal, mu, sigma);
  const std::vector<double> x = draw(d, kNoTable, 3);
  expect_moments(d, kNoTable, x);
  expect_ks(x, [=](double v) { return 0.5 * std::erfc(-(std::log(v) - mu) / (sigma * M_SQRT2)); });
}

TEST(Distribution, StandardNormal) {
  RandomStream rng = RandomStream::make(5, 0, stream_id(StreamKind::test, 4));
  std::vector<double> x(kDraws);
  double s1 = 0, s2 = 0;
  for (auto& v : x) {
    v = sample_standard_normal(rng);
    s1 += v;
    s2 += v * v;
  }
  const double n = kDraws;
  EXPECT_NEAR(s1 / n, 0.0, 5 * std::sqrt(1.0 / n));
  EXPECT_NEAR((s2 - s1 * s1 / n) / (n - 1), 1.0, 5 * std::sqrt(2.0 / n));  // mu4 - 1 = 2
  expect_ks(x, [](double v) { return 0.5 * std::erfc(-v / M_SQRT2); });
}

// The ziggurat's rare paths carry the right mass: 4 million draws; the tail beyond r = 3.654
// (drawn by Marsaglia's method) has probability 2 (1 - Phi(r)) = 2.58e-4, the band
// [0.5, 1] where the top layers' wedges lie 2 (Phi(1) - Phi(0.5)), and the sign is fair.
// Counts within 5 binomial standard deviations.
TEST(Distribution, StandardNormalZigguratTailWedgesAndSign) {
  RandomStream rng = RandomStream::make(6, 0, stream_id(StreamKind::test, 12));
  const double n = 4e6;
  double tail = 0, band = 0, negative = 0;
  for (int i = 0; i < static_cast<int>(n); ++i) {
    const double z = sample_standard_normal(rng);
    tail += std::fabs(z) > detail::kNormalZigguratR;
    band += std::fabs(z) >= 0.5 && std::fabs(z) <= 1.0;
    negative += z < 0;
  }
  const auto expect_count = [&](double count, double p, const char* what) {
    EXPECT_NEAR(count, n * p, 5 * std::sqrt(n * p * (1 - p))) << what;
  };
  expect_count(tail, std::erfc(detail::kNormalZigguratR / M_SQRT2), "tail beyond r");
  expect_count(band, std::erf(1.0 / M_SQRT2) - std::erf(0.5 / M_SQRT2), "|z| in [0.5, 1]");
  expect_count(negative, 0.5, "negative");
}

// The tables close the ziggurat: every layer i >= 1 has area x[i] (f(x[i+1]) - f(x[i])) equal
// to the base layer's r f(r) + tail (v = 0.00492867), with x[i] = w[i] 2^55.
TEST(Distribution, NormalZigguratLayersHaveEqualAreas) {
  const double two55 = 36028797018963968.0;
  const double tail_area = std::sqrt(M_PI / 2) * std::erfc(detail::kNormalZigguratR / M_SQRT2);
  const double v = detail::kNormalZigguratR * std::exp(-0.5 * detail::kNormalZigguratR *
                                                       detail::kNormalZigguratR) + tail_area;
  EXPECT_NEAR(v, 0.00492867323399, 1e-11);
  for (uint32_t i = 1; i < 255; ++i) {
    const double x = detail::normal_ziggurat_w(i) * two55;
    const double area = x * (detail::normal_ziggurat_f(i + 1) - detail::normal_ziggurat_f(i));
    EXPECT_NEAR(area, v, 1e-10) << "layer " << i;
  }
}

void check_gamma(double shape, double scale, uint32_t index) {
  SCOPED_TRACE("gamma shape " + std::to_string(shape));
  const Distribution d = make(DistKind::gamma, shape, scale);
  const std::vector<double> x = draw(d, kNoTable, index);
  for (double v : x) ASSERT_GE(v, 0.0);
  expect_moments(d, kNoTable, x);
  expect_ks(x, [=](double v) { return boost::math::gamma_p(shape, v / scale); });
}

TEST(Distribution, GammaShapeAboveOne) { check_gamma(3.0, 1200.0, 5); }
TEST(Distribution, GammaShapeOne) { check_gamma(1.0, 600.0, 6); }
TEST(Distribution, GammaShapeBelowOne) { check_gamma(0.5, 7200.0, 7); }
TEST(Distribution, GammaSmallShape) { check_gamma(0.2, 100.0, 8); }

void check_weibull(double shape, double scale, uint32_t index) {
  SCOPED_TRACE("weibull shape " + std::to_string(shape));
  const Distribution d = make(DistKind::weibull, shape, scale);
  const std::vector<double> x = draw(d, kNoTable, index);
  expect_moments(d, kNoTable, x);
  expect_ks(x, [=](double v) { return -std::expm1(-std::pow(v / scale, shape)); });
}

TEST(Distribution, WeibullShapeAboveOne) { check_weibull(1.5, 3600.0, 9); }
TEST(Distribution, WeibullShapeBelowOne) { check_weibull(0.7, 3600.0, 10); }

TEST(Distribution, ParetoFiniteFourthMoment) {
  const Distribution d = make(DistKind::pareto, 5.0, 600.0);  // alpha > 4: variance checked
  const std::vector<double> x = draw(d, kNoTable, 11);
  for (double v : x) ASSERT_GE(v, 600.0);
  expect_moments(d, kNoTable, x);
  expect_ks(x, [](double v) { return 1.0 - std::pow(600.0 / v, 5.0); });
}

TEST(Distribution, ParetoFiniteVarianceOnly) {
  const Distribution d = make(DistKind::pareto, 3.0, 600.0);  // alpha > 2: mean checked
  const std::vector<double> x = draw(d, kNoTable, 12);
  for (double v : x) ASSERT_GE(v, 600.0);
  expect_moments(d, kNoTable, x);
  expect_ks(x, [](double v) { return 1.0 - std::pow(600.0 / v, 3.0); });
}

TEST(Distribution, ParetoMeanDivergesForShapeAtMostOne) {
  DistributionSpec spec;
  spec.kind = DistKind::pareto;
  spec.p0 = 1.0;
  spec.p1 = 10.0;
  EXPECT_TRUE(std::isinf(spec.mean()));
}

TEST(Distribution, EmpiricalDrawsTableValuesWithEqualProbability) {
  // Junk before the offset and after the end must never be drawn.
  const std::vector<double> table = {-1.0, -2.0, 10.0, 20.0, 30.0, 400.0, -3.0};
  Distribution d = make(DistKind::empirical, 0.0);
  d.table_offset = 2;
  d.table_count = 4;
  const std::vector<double> x = draw(d, table, 13);
  int counts[4] = {0, 0, 0, 0};
  for (double v : x) {
    const auto it = std::find(table.begin() + 2, table.begin() + 6, v);
    ASSERT_NE(it, table.begin() + 6) << "drew " << v << ", not a table value";
    ++counts[it - (table.begin() + 2)];
  }
  const double p = 0.25, n = static_cast<double>(x.size());
  for (int c : counts) EXPECT_NEAR(c / n, p, 5 * std::sqrt(p * (1 - p) / n));
  expect_moments(d, table, x);
}

TEST(Distribution, EmpiricalSingleValueIsExact) {
  const std::vector<double> table = {42.5};
  Distribution d = make(DistKind::empirical, 0.0);
  d.table_count = 1;
  RandomStream rng = RandomStream::make(1, 1, stream_id(StreamKind::test, 14));
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(sample(d, rng, table.data()), 42.5);
}

TEST(Distribution, SameStreamGivesSameDraws) {
  const Distribution kinds[] = {make(DistKind::exponential, 10.0),
                                make(DistKind::lognormal, 1.0, 0.5),
                                make(DistKind::gamma, 0.5, 2.0), make(DistKind::weibull, 2.0, 1.0),
                                make(DistKind::pareto, 2.5, 1.0)};
  for (const Distribution& d : kinds) {
    const std::vector<double> a = draw(d, kNoTable, 15, 1000), b = draw(d, kNoTable, 15, 1000);
    EXPECT_EQ(a, b);
  }
}

// ---- residual life (residual_life.hpp) ------------------------------------------------------
// L - age given L > age: its CDF is 1 - S(age + r) / S(age), S the survival function of L.

std::vector<double> draw_residual(const Distribution& d, double age,
                                  const std::vector<double>& sorted, uint32_t index) {
  RandomStream rng = RandomStream::make(20261205, 1, stream_id(StreamKind::test, 100 + index));
  std::vector<double> x(kDraws);
  for (auto& v : x) v = sample_residual(d, age, rng, sorted.empty() ? nullptr : sorted.data());
  return x;
}

/// Draws of the residual after `age` are positive and follow 1 - S(age + r) / S(age) (KS).
void expect_residual(const Distribution& d, double age, const std::function<double(double)>& S,
                     uint32_t index) {
  const std::vector<double> x = draw_residual(d, age, {}, index);
  for (double v : x) ASSERT_TRUE(std::isfinite(v) && v > 0) << v;
  const double s_age = S(age);
  expect_ks(x, [&](double r) { return 1.0 - S(age + r) / s_age; });
}

TEST(ResidualLife, ExponentialIsMemoryless) {
  expect_residual(make(DistKind::exponential, 3600.0), 7200.0,
                  [](double x) { return std::exp(-x / 3600.0); }, 1);
}

TEST(ResidualLife, UniformStartsAtTheAge) {
  // Inside [a, b] and before it (the whole uniform).
  const auto S = [](double x) { return std::clamp((10.0 - x) / 8.0, 0.0, 1.0); };
  expect_residual(make(DistKind::uniform, 2.0, 10.0), 6.0, S, 2);
  expect_residual(make(DistKind::uniform, 2.0, 10.0), 1.0, S, 3);
}

TEST(ResidualLife, WeibullAddsAUnitExponentialToTheCumulativeHazard) {
  for (double k : {0.7, 2.0}) {
    const auto S = [k](double x) { return std::exp(-std::pow(x / 10.0, k)); };
    expect_residual(make(DistKind::weibull, k, 10.0), 8.0, S, 4);
    expect_residual(make(DistKind::weibull, k, 10.0), 0.0, S, 5);
  }
}

TEST(ResidualLife, ParetoTailIsParetoAgain) {
  const auto S = [](double x) { return x < 1.0 ? 1.0 : std::pow(1.0 / x, 2.5); };
  expect_residual(make(DistKind::pareto, 2.5, 1.0), 4.0, S, 6);  // age above x_m
  expect_residual(make(DistKind::pareto, 2.5, 1.0), 0.5, S, 7);  // below: the whole Pareto
}

TEST(ResidualLife, LognormalBelowAndFarAboveTheMedian) {
  // z0 = (ln age - mu) / sigma = -1 (draws until above), 0.4, 2 and 5 (exponential proposal).
  const double mu = 1.0, sigma = 0.8;
  const auto S = [&](double x) {
    return x <= 0 ? 1.0 : 0.5 * std::erfc((std::log(x) - mu) / (sigma * std::sqrt(2.0)));
  };
  uint32_t index = 8;
  for (double z0 : {-1.0, 0.4, 2.0, 5.0})
    expect_residual(make(DistKind::lognormal, mu, sigma), std::exp(mu + sigma * z0), S, index++);
}

TEST(ResidualLife, GammaNearTheModeAndInTheTail) {
  // Shape 3 (x0 <= k draws until above; x0 > k the proposal with rate 1 - (k - 1) / x0), shape
  // 0.5 (rate 1).
  uint32_t index = 12;
  for (const auto& [k, theta, age] : std::vector<std::tuple<double, double, double>>{
           {3.0, 2.0, 2.0}, {3.0, 2.0, 20.0}, {3.0, 2.0, 80.0}, {0.5, 1.0, 0.2}, {0.5, 1.0, 3.0}}) {
    const auto S = [k = k, theta = theta](double x) {
      return boost::math::gamma_q(k, x / theta);
    };
    expect_residual(make(DistKind::gamma, k, theta), age, S, index++);
  }
}

TEST(ResidualLife, WeibullFarInItsTailKeepsItsPrecision) {
  // Shape 20, scale 1 h: past a = age / scale of 1.5 the rest is a tiny fraction of the age, which
  // L - age computed as a difference lost to rounding (negative rests at a = 300 and 3e14). The
  // rest given the age, r, has P(R > r) = exp(-(((age + r) / scale)^k - a^k)) = exp(-a^k
  // expm1(k log1p(r / age))): a KS test against it, every draw >= 0.
  const double k = 20.0, scale = 3600.0;
  uint32_t index = 30;
  for (double a : {1.5, 3.0, 300.0, 3e14}) {
    const double age = a * scale;
    const std::vector<double> x = draw_residual(make(DistKind::weibull, k, scale), age, {}, index++);
    for (double v : x) ASSERT_TRUE(std::isfinite(v) && v >= 0) << "a = " << a << ": " << v;
    const double t = std::pow(a, k);
    expect_ks(x, [&](double r) { return -std::expm1(-t * std::expm1(k * std::log1p(r / age))); });
  }
}

TEST(ResidualLife, OldAgesInEveryTailGiveRestsAtLeastZero) {
  // Ages where L and age share nearly all their digits: no rest may round below zero.
  RandomStream rng = RandomStream::make(7, 1, stream_id(StreamKind::test, 40));
  const std::vector<std::pair<Distribution, double>> cases = {
      {make(DistKind::lognormal, 1.0, 0.1), std::exp(1.0 + 0.1 * 30.0)},
      {make(DistKind::lognormal, 1.0, 0.1), std::exp(1.0 + 0.1 * 300.0)},
      {make(DistKind::gamma, 50.0, 1.0), 1e7},
      {make(DistKind::gamma, 0.5, 1.0), 1e12},
      {make(DistKind::pareto, 40.0, 1.0), 1e15},
      {make(DistKind::weibull, 50.0, 1.0), 1e6},
      {make(DistKind::uniform, 0.0, 1e15), 1e15 - 0.5}};
  for (const auto& [d, age] : cases)
    for (int i = 0; i < 20000; ++i) {
      const double r = sample_residual(d, age, rng, nullptr);
      ASSERT_TRUE(r >= 0 && std::isfinite(r)) << static_cast<int>(d.kind) << " at " << age;
    }
}

// An empirical distribution with a tail (p0 = 0.2, p1 = 5): its sorted values 1, 2, 3, 4, with
// probability 0.8 equally, else 4 plus an exponential of mean 5. Draws follow that CDF (KS); the
// rest given an age beyond the largest value is the tail's exponential excess (memoryless), and
// given an age of 2.5 it is drawn from the values above and the tail in proportion.
TEST(ResidualLife, AnEmpiricalTailReachesEveryAge) {
  const std::vector<double> sorted = {1.0, 2.0, 3.0, 4.0};
  Distribution d = make(DistKind::empirical, 0.2, 5.0);
  d.table_count = 4;
  const auto cdf = [](double t) {
    const double body = t >= 4 ? 1.0 : t >= 3 ? 0.75 : t >= 2 ? 0.5 : t >= 1 ? 0.25 : 0.0;
    return 0.8 * body + 0.2 * (t < 4 ? 0.0 : -std::expm1(-(t - 4) / 5.0));
  };
  RandomStream rng = RandomStream::make(3, 1, stream_id(StreamKind::test, 50));
  std::vector<double> x(kDraws);
  for (double& v : x) v = sample(d, rng, sorted.data());
  // Ties at the values: the KS distance is read on the continuous tail only.
  std::vector<double> tail;
  std::size_t at_values = 0;
  for (double v : x) (v > 4 ? tail.push_back(v - 4) : void(++at_values));
  const double n = static_cast<double>(x.size());
  EXPECT_NEAR(at_values / n, 0.8, 5 * std::sqrt(0.16 / n));
  expect_ks(tail, [](double e) { return -std::expm1(-e / 5.0); });
  (void)cdf;
  // Beyond the largest value: the exponential excess alone.
  const std::vector<double> old = draw_residual(d, 10.0, sorted, 51);
  expect_ks(old, [](double r) { return -std::expm1(-r / 5.0); });
  // At 2.5: 3 and 4 with weight 0.8 x 2 / 4 = 0.4 together, the tail 0.2: P(tail) = 1/3.
  const std::vector<double> mid = draw_residual(d, 2.5, sorted, 52);
  std::size_t from_tail = 0;
  for (double r : mid) from_tail += r > 1.5;
  EXPECT_NEAR(from_tail / n, 1.0 / 3, 5 * std::sqrt((2.0 / 9) / n));
}

TEST(ResidualLife, DeterministicAndEmpiricalAreExact) {
  RandomStream rng = RandomStream::make(1, 1, stream_id(StreamKind::test, 20));
  EXPECT_EQ(sample_residual(make(DistKind::deterministic, 5.0), 2.0, rng, nullptr), 3.0);
  // Sorted values 1, 2, 3, 4, 10 after 1 (junk before the offset): above 2.5 are 3, 4 and 10,
  // each with probability 1/3; at age 0 every value.
  const std::vector<double> sorted = {-7.0, 1.0, 2.0, 3.0, 4.0, 10.0};
  Distribution d = make(DistKind::empirical, 0.0);
  d.table_offset = 1;
  d.table_count = 5;
  const std::vector<double> x = draw_residual(d, 2.5, sorted, 21);
  int counts[3] = {0, 0, 0};
  for (double v : x) {
    ASSERT_TRUE(v == 0.5 || v == 1.5 || v == 7.5) << v;
    ++counts[v == 0.5 ? 0 : v == 1.5 ? 1 : 2];
  }
  const double n = static_cast<double>(x.size()), p = 1.0 / 3;
  for (int c : counts) EXPECT_NEAR(c / n, p, 5 * std::sqrt(p * (1 - p) / n));
  for (double v : draw_residual(d, 0.0, sorted, 22)) ASSERT_TRUE(v >= 1.0 && v <= 10.0);
  EXPECT_EQ(first_above(sorted.data() + 1, 5, 10.0), 5u);
  EXPECT_EQ(first_above(sorted.data() + 1, 5, 0.0), 0u);
}

}  // namespace
}  // namespace gpucap
