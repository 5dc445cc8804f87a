// gpucap: confidence intervals for a probability estimated from successes in independent trials
// (a goal met in `successes` of `trials` replications).
//
//   exact (Clopper-Pearson): [B^-1(a/2; x, n-x+1), B^-1(1-a/2; x+1, n-x)], B^-1 the inverse of
//       the regularized incomplete beta function: the set of p that a two-sided binomial test at
//       level a does not reject; its coverage is at least the confidence for every p.
//   Wilson score: the set of p whose normal-approximation score test does not reject; coverage
//       close to the confidence on average, narrower than the exact interval.
// With x = 0 the exact lower bound is 0 and the upper 1 - (a/2)^(1/n); with x = n, symmetrically.
#pragma once
#include <cstdint>

namespace gpucap {

struct BinomialInterval {
  double low = 0, high = 1;
};

/// The regularized incomplete beta function I_x(a, b), a, b > 0, 0 <= x <= 1 (continued
/// fraction; relative error about 1e-14).
double regularized_incomplete_beta(double a, double b, double x);

/// The standard normal quantile Phi^-1(p), 0 < p < 1 (error below 1e-15 relative).
double normal_quantile(double p);

/// Clopper-Pearson interval of `successes` in `trials` (trials >= 1) at `confidence` (0 to 1).
BinomialInterval clopper_pearson_interval(uint64_t successes, uint64_t trials, double confidence);

/// Wilson score interval of `successes` in `trials` (trials >= 1) at `confidence` (0 to 1).
BinomialInterval wilson_interval(uint64_t successes, uint64_t trials, double confidence);

}  // namespace gpucap
