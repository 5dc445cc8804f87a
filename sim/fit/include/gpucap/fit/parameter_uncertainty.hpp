// gpucap fitting: how uncertain the fitted parameters are, as the scenario's
// `workloads[].uncertainty` takes it (sd of the log of the arrival rate and of the work's or
// lifetime's scale), so that a forecast's intervals hold the doubt about the model as well as
// its Poisson noise.
//
// Rate. The maximum-likelihood rate of N Poisson arrivals has sd(ln λ̂) = 1 / sqrt(N). Real
// arrivals vary more from day to day than a Poisson process (bursts, campaigns): the dispersion
// φ is Pearson's χ² of the whole days' counts against what the fitted intensity (profile and
// trend) expects of them, over D - 1 degrees of freedom (D >= 7 days; below, φ = 1), at least
// 1 (a quasi-Poisson likelihood: the variance of λ̂ is φ times the Poisson one). With a trend
// extrapolated to the window's end (--trend extrapolate) the sd is that of the fitted log level
// at the end, from the log-linear model's Fisher information (the end of a fitted line is
// less certain than its middle): sqrt(φ [1 T] I⁻¹ [1 T]ᵀ).
//
// Scale (the multiplier of every draw: work, lifetime), at the fitted shape, from d ended
// lifetimes (finished jobs; a censored one adds information too, so this is conservative):
//   exponential  1 / sqrt(d)            (Var ln mean = 1 / d)
//   lognormal    σ / sqrt(d)            (the median e^μ, sd(μ̂) = σ / sqrt(n))
//   weibull      1.053 / (k sqrt(d))    (Var ln λ̂ = 1.109 / (k² n))
//   gamma        1 / sqrt(k d)          (the mean k θ at a known shape)
//   empirical    CV / sqrt(n)           (the sample mean's coefficient of variation)
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "gpucap/fit/arrival_fit.hpp"
#include "gpucap/fit/run_time_model.hpp"

namespace gpucap::fit {

struct RateUncertainty {
  double sd_log = 0;       ///< sd of ln(rate); 0 when no arrival was seen
  double dispersion = 1;   ///< φ (1 when not estimated or under-dispersed)
  std::size_t days = 0;    ///< whole days the dispersion was measured over (0: not measured)
  bool at_trend_end = false;  ///< the sd of the trend's level at the window's end
};

/// The fitted rate's uncertainty: `submit_s` the arrivals in [0, window_s] that `a` was fitted
/// to; `trend_end` when the rate written is the trend's level at the window's end.
RateUncertainty rate_uncertainty(const ArrivalFit& a, const std::vector<double>& submit_s,
                                 double window_s, bool trend_end);

/// sd of the log of the run-time model's scale (table above); 0 for a model of no spread
/// (every value the same).
double scale_sd_log(const RunTimeModel& m);

/// Largest sd either may have (the scenario format's range is [0, 3)).
constexpr double kMaxSdLog = 2.5;

}  // namespace gpucap::fit
