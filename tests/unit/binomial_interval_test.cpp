// Clopper-Pearson and Wilson intervals against exact binomial sums and published values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "gpucap/binomial_interval.hpp"
#include "gpucap/goal_summary.hpp"

using namespace gpucap;

namespace {

/// P(X >= x) for X ~ Binomial(n, p), summed term by term in long double (log space).
long double upper_tail(uint64_t x, uint64_t n, long double p) {
  long double sum = 0;
  for (uint64_t k = x; k <= n; ++k) {
    const long double log_term = std::lgamma(static_cast<long double>(n) + 1) -
                                 std::lgamma(static_cast<long double>(k) + 1) -
                                 std::lgamma(static_cast<long double>(n - k) + 1) +
                                 k * std::log(p) + (n - k) * std::log1p(-p);
    sum += std::exp(log_term);
  }
  return sum;
}

long double lower_tail(uint64_t x, uint64_t n, long double p) {  // P(X <= x)
  return 1 - (x + 1 <= n ? upper_tail(x + 1, n, p) : 0.0L);
}

}  // namespace

// The exact interval's ends are where the binomial tails equal alpha/2: checked for every x of
// several n against sums of the binomial probabilities (no beta function involved).
TEST(ClopperPearson, EndsAreWhereTheBinomialTailsAreHalfAlpha) {
  for (uint64_t n : {1u, 2u, 5u, 10u, 37u, 100u, 400u, 2000u}) {
    for (uint64_t x = 0; x <= n; x += (n > 100 ? 37 : 1)) {
      SCOPED_TRACE("x = " + std::to_string(x) + ", n = " + std::to_string(n));
      const BinomialInterval i = clopper_pearson_interval(x, n, 0.95);
      if (x == 0) {
        EXPECT_EQ(i.low, 0.0);
      } else {
        EXPECT_NEAR(static_cast<double>(upper_tail(x, n, i.low)), 0.025, 2e-10);
      }
      if (x == n) {
        EXPECT_EQ(i.high, 1.0);
      } else {
        EXPECT_NEAR(static_cast<double>(lower_tail(x, n, i.high)), 0.025, 2e-10);
      }
      EXPECT_LE(i.low, static_cast<double>(x) / n);
      EXPECT_GE(i.high, static_cast<double>(x) / n);
    }
  }
}

// Published values (R's binom.test, scipy's binomtest(...).proportion_ci(method="exact")).
TEST(ClopperPearson, MatchesPublishedValues) {
  BinomialInterval i = clopper_pearson_interval(5, 10, 0.95);
  EXPECT_NEAR(i.low, 0.1870860, 1e-7);
  EXPECT_NEAR(i.high, 0.8129140, 1e-7);
  i = clopper_pearson_interval(0, 10, 0.95);
  EXPECT_NEAR(i.high, 0.3084971, 1e-7);
  i = clopper_pearson_interval(95, 100, 0.95);
  EXPECT_NEAR(i.low, 0.8871651, 1e-7);
  EXPECT_NEAR(i.high, 0.9835681, 1e-7);
  // All successes: the lower end is (alpha/2)^(1/n).
  i = clopper_pearson_interval(400, 400, 0.95);
  EXPECT_DOUBLE_EQ(i.low, std::pow(0.025, 1.0 / 400));
  EXPECT_NEAR(i.low, 0.9908202, 1e-7);
  i = clopper_pearson_interval(3, 20, 0.99);
  EXPECT_NEAR(upper_tail(3, 20, i.low), 0.005, 1e-10);
}

// Coverage is at least the confidence for every p (computed exactly over all outcomes).
TEST(ClopperPearson, CoverageIsAtLeastTheConfidenceForEveryP) {
  const uint64_t n = 60;
  BinomialInterval intervals[61];
  for (uint64_t x = 0; x <= n; ++x) intervals[x] = clopper_pearson_interval(x, n, 0.95);
  for (double p = 0.005; p < 1; p += 0.01) {
    long double covered = 0;
    for (uint64_t x = 0; x <= n; ++x)
      if (intervals[x].low <= p && p <= intervals[x].high)
        covered += upper_tail(x, n, p) - (x < n ? upper_tail(x + 1, n, p) : 0.0L);
    EXPECT_GE(static_cast<double>(covered), 0.95 - 1e-12) << "p = " << p;
  }
}

TEST(ClopperPearson, LargeCountsStayExact) {
  // 10^6 trials: the ends still solve the tail equations (checked through the beta identity
  // P(X >= x | p) = I_p(x, n - x + 1)).
  const BinomialInterval i = clopper_pearson_interval(950000, 1000000, 0.95);
  EXPECT_NEAR(regularized_incomplete_beta(950000, 50001, i.low), 0.025, 1e-9);
  EXPECT_NEAR(regularized_incomplete_beta(950001, 50000, i.high), 0.975, 1e-9);
  EXPECT_NEAR(0.5 * (i.low + i.high), 0.95, 1e-5);
  EXPECT_NEAR(i.high - i.low, 2 * 1.959964 * std::sqrt(0.95 * 0.05 / 1e6), 2e-6);
}

TEST(Wilson, MatchesTheScoreFormulaAndPublishedValues) {
  BinomialInterval i = wilson_interval(5, 10, 0.95);
  EXPECT_NEAR(i.low, 0.2365931, 1e-7);
  EXPECT_NEAR(i.high, 0.7634069, 1e-7);
  i = wilson_interval(0, 10, 0.95);
  EXPECT_EQ(i.low, 0.0);
  EXPECT_NEAR(i.high, 0.2775328, 1e-7);
  i = wilson_interval(95, 100, 0.95);
  EXPECT_NEAR(i.low, 0.8882495, 1e-7);
  EXPECT_NEAR(i.high, 0.9784563, 1e-7);
}

TEST(NormalQuantile, MatchesKnownValues) {
  EXPECT_NEAR(normal_quantile(0.975), 1.959963984540054, 1e-14);
  EXPECT_NEAR(normal_quantile(0.5), 0.0, 1e-15);
  EXPECT_NEAR(normal_quantile(0.995), 2.5758293035489004, 1e-13);
  EXPECT_NEAR(normal_quantile(1e-10), -6.361340902404056, 1e-10);
}

TEST(BinomialInterval, RefusesImpossibleCounts) {
  EXPECT_THROW(clopper_pearson_interval(1, 0, 0.95), std::invalid_argument);
  EXPECT_THROW(clopper_pearson_interval(5, 4, 0.95), std::invalid_argument);
  EXPECT_THROW(wilson_interval(1, 2, 1.0), std::invalid_argument);
  EXPECT_THROW(regularized_incomplete_beta(0, 1, 0.5), std::invalid_argument);
}

TEST(ChanceVerdict, FollowsTheExactInterval) {
  const GoalSummary all = summarize_goal(400, 400);  // low 0.9908
  EXPECT_EQ(judge_chance(all, 0.99), ChanceVerdict::meets);
  EXPECT_EQ(judge_chance(all, 0.995), ChanceVerdict::cannot_tell);
  // Enough replications to decide 0.995 with every one a success: 0.025^(1/n) >= 0.995.
  EXPECT_EQ(replications_to_decide(all, 0.995),
            static_cast<uint64_t>(std::ceil(std::log(0.025) / std::log(0.995))));
  const GoalSummary some = summarize_goal(90, 100);  // [0.8238, 0.9510]
  EXPECT_EQ(judge_chance(some, 0.95), ChanceVerdict::cannot_tell);
  EXPECT_EQ(judge_chance(some, 0.96), ChanceVerdict::fails);
  EXPECT_EQ(judge_chance(some, 0.8), ChanceVerdict::meets);
  EXPECT_GT(replications_to_decide(some, 0.95), 100u);
  EXPECT_EQ(replications_to_decide(summarize_goal(50, 100), 0.5), UINT64_MAX);
  const GoalSummary none = summarize_goal(0, 0);
  EXPECT_TRUE(std::isnan(none.probability));
  EXPECT_EQ(judge_chance(none, 0.5), ChanceVerdict::cannot_tell);
}
