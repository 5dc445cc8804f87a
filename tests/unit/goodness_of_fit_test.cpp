// Kolmogorov-Smirnov and Anderson-Darling statistics (sim/fit) against hand computations, the
// Kaplan-Meier estimate, and the p-values at known critical values.
#include <gtest/gtest.h>

#include <cmath>

#include "gpucap/fit/distribution_family.hpp"
#include "gpucap/fit/goodness_of_fit.hpp"
#include "gpucap/fit/run_time_sample.hpp"

namespace fit = gpucap::fit;

namespace {
// Exponential with mean 2 s: F(t) = 1 − e^(−t/2).
double F(double t) { return -std::expm1(-t / 2); }
double S(double t) { return std::exp(-t / 2); }
}  // namespace

TEST(GoodnessOfFit, KolmogorovSmirnovByHand) {
  // x = 1, 2, 3 s. D+ = max(i/3 − F(x_i)) = 1 − F(3) = 0.2231; D− = max(F(x_i) − (i−1)/3) =
  // F(1) = 0.3935; D = 0.3935.
  const fit::RunTimeSample s{{3, 1, 2}, {0, 0, 0}};
  const double d = fit::ks_statistic(s, F);
  EXPECT_NEAR(d, F(1), 1e-15);
  EXPECT_NEAR(d, 0.393469, 1e-6);
}

TEST(GoodnessOfFit, AndersonDarlingByHand) {
  // A² = −3 − (1/3)[1 (ln F(1) + ln S(3)) + 3 (ln F(2) + ln S(2)) + 5 (ln F(3) + ln S(1))].
  const fit::RunTimeSample s{{2, 3, 1}, {0, 0, 0}};
  const double by_hand = -3 - (1 * (std::log(F(1)) - 1.5) + 3 * (std::log(F(2)) - 1.0) +
                               5 * (std::log(F(3)) - 0.5)) / 3;
  EXPECT_NEAR(fit::anderson_darling_statistic(s, F, S), by_hand, 1e-13);
  EXPECT_NEAR(by_hand, 0.5237300, 1e-6);
}

TEST(GoodnessOfFit, KaplanMeierWithCensoring) {
  // 1, 2+, 3, 4+, 5 s: S = 4/5 after 1 s; × 2/3 after 3 s (3 at risk); 0 after 5 s.
  const fit::RunTimeSample s{{1, 2, 3, 4, 5}, {0, 1, 0, 1, 0}};
  const auto km = fit::kaplan_meier(s);
  ASSERT_EQ(km.size(), 3u);
  EXPECT_DOUBLE_EQ(km[0].cdf_after, 0.2);
  EXPECT_NEAR(km[1].cdf_before, 0.2, 1e-15);
  EXPECT_NEAR(km[1].cdf_after, 1 - 0.8 * 2 / 3, 1e-15);
  EXPECT_NEAR(km[2].cdf_after, 1.0, 1e-15);
  // Equally likely values that reproduce it: p = 0.1, 0.3, ..., 0.9.
  const auto v = fit::kaplan_meier_values(s, 5);
  EXPECT_EQ(v, (std::vector<double>{1, 3, 5, 5, 5}));
  // Mass past the last finished job goes to the largest (censored) time.
  const fit::RunTimeSample tail{{1, 9}, {0, 1}};
  EXPECT_EQ(fit::kaplan_meier_values(tail, 2), (std::vector<double>{1, 9}));
  // Without censoring it is the empirical CDF, ties included.
  const fit::RunTimeSample ties{{2, 1, 2}, {0, 0, 0}};
  EXPECT_EQ(fit::kaplan_meier_values(ties, 3), (std::vector<double>{1, 2, 2}));
  EXPECT_NEAR(fit::kaplan_meier(ties)[1].cdf_after, 1.0, 1e-15);
}

TEST(GoodnessOfFit, PValuesAtKnownCriticalValues) {
  // Kolmogorov: λ = 1.6276 at 1%, 1.3581 at 5% (large n).
  const std::size_t n = 1000000;
  EXPECT_NEAR(fit::ks_p_value(1.62762 / std::sqrt(double(n)), n), 0.01, 2e-4);
  EXPECT_NEAR(fit::ks_p_value(1.35810 / std::sqrt(double(n)), n), 0.05, 5e-4);
  EXPECT_DOUBLE_EQ(fit::ks_p_value(0, 10), 1.0);
  EXPECT_LT(fit::ks_p_value(0.9, 100), 1e-30);
  // Anderson-Darling limit law (Marsaglia & Marsaglia 2004): 1.933 at 10%, 2.492 at 5%,
  // 3.878 at 1%.
  EXPECT_NEAR(fit::anderson_darling_p_value(2.492), 0.05, 5e-4);
  EXPECT_NEAR(fit::anderson_darling_p_value(3.878), 0.01, 1e-4);
  EXPECT_NEAR(fit::anderson_darling_p_value(1.933), 0.10, 1e-3);
}
