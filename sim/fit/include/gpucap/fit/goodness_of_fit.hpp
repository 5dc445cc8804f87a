// gpucap fitting: Kolmogorov-Smirnov and Anderson-Darling statistics of a fitted run-time
// distribution, and their p-values.
//
// KS: D = sup_t |F̂(t) − F(t)|, F̂ the Kaplan-Meier estimate (the empirical CDF when nothing is
// censored), taken over the finished jobs' times (both sides of each jump). AD (no censoring
// only): A² = −n − (1/n) Σ_i (2i − 1) [ln F(x_(i)) + ln S(x_(n+1−i))].
//
// The p-values are those of a fully specified distribution (Kolmogorov's limit law with
// Stephens' small-sample correction; Marsaglia & Marsaglia's 2004 approximation of the AD limit
// law). With parameters estimated from the same data the true p-values are smaller, so these
// are conservative: a rejection (p < 1%) stands, an acceptance is optimistic.
#pragma once
#include <cstddef>
#include <functional>

#include "gpucap/fit/run_time_sample.hpp"

namespace gpucap::fit {

/// D, the largest distance between the Kaplan-Meier estimate and `cdf`; 0 when no job finished.
double ks_statistic(const RunTimeSample& sample, const std::function<double(double)>& cdf);

/// P(D_n > d) under the null (Kolmogorov's limit with Stephens' correction
/// λ = (√n + 0.12 + 0.11/√n) d); in [0, 1].
double ks_p_value(double d, std::size_t n);

/// A² of uncensored `sample` against (cdf, sf); each log term is floored at ln(1e-300) so that
/// a time the fit calls impossible gives a large, finite A².
double anderson_darling_statistic(const RunTimeSample& sample,
                                  const std::function<double(double)>& cdf,
                                  const std::function<double(double)>& sf);

/// P(A² > a) in the limit n → ∞ (Marsaglia & Marsaglia 2004, error < 2e-6).
double anderson_darling_p_value(double a);

}  // namespace gpucap::fit
