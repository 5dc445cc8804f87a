// gpucap fitting: maximum-likelihood estimates of the run-time families, right-censoring
// included.
//
// The log-likelihood of a sample is Σ_finished ln f(t_i) + Σ_censored ln S(t_i): a job still
// running at the log's end contributes the probability that it runs at least that long.
//   exponential  closed form: mean = Σ t_i / (number finished)
//   lognormal    closed form without censoring (mean and MLE variance of ln t); with censoring,
//                Nelder-Mead over (μ, ln σ)
//   weibull      Newton on the profile score in the shape k (λ^k = Σ t_i^k / finished), with
//                or without censoring; bisection guards every step
//   gamma        Newton on ln k − ψ(k) = ln(mean t) − mean(ln t) without censoring (Minka's
//                start); with censoring, Nelder-Mead over (ln k, ln θ) from that start
//
//   FamilyFit f = fit_family(Family::weibull, sample);
//   if (f.ok) std::cout << describe(f.family, f.params) << ", AIC " << f.aic;
#pragma once
#include <string>

#include "gpucap/fit/distribution_family.hpp"
#include "gpucap/fit/run_time_sample.hpp"

namespace gpucap::fit {

/// Σ_finished ln f(t) + Σ_censored ln S(t), in nats.
double log_likelihood(Family family, const FamilyParams& params, const RunTimeSample& sample);

struct FamilyFit {
  Family family = Family::exponential;
  bool ok = false;       ///< false: not estimable from this sample (see note)
  std::string note;      ///< why not, e.g. "needs at least 2 distinct finished run times"
  FamilyParams params;
  double log_likelihood = 0;  ///< at the estimate, nats
  double aic = 0;             ///< 2 · parameters − 2 · log_likelihood
};

/// The maximum-likelihood fit of `family` to `sample`. Never throws for data: a sample the
/// family cannot be fit to (no finished job; fewer than 2 distinct finished times for the
/// two-parameter families; an optimizer that found no finite maximum) gives ok = false.
FamilyFit fit_family(Family family, const RunTimeSample& sample);

}  // namespace gpucap::fit
