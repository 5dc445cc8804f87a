// gpucap fitting: arrivals of one job class as a constant-rate Poisson process or a
// non-homogeneous one whose rate follows the hour of the week (or of the day).
//
// Window: arrivals are observed over [0, window_s], t = 0 being Monday 00:00 as in the scenario
// format's `weekly_profile`. The period is a week when the window holds at least one (every
// hour of the week then has exposure), a day when it holds at least a day, else none (constant
// rate only). The period is cut into bins of w hours, w the smallest of 1, 2, 3, 4, 6, 8, 12,
// 24 (24 for weeks only) that leaves at least 5 arrivals per bin on average, so that the
// chi-square law of the test holds; with fewer than 10 arrivals no profile is tried.
//
// Test: the likelihood ratio of the piecewise-constant rate λ_b = N_b / E_b (N_b arrivals and
// E_b seconds of exposure in bin b) against λ = N / window:
//   G = 2 Σ_b N_b ln(λ_b / λ),  G ~ χ²(bins − 1) under a constant rate;
// the profile is chosen when p < alpha (default 1%).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace gpucap::fit {

struct ArrivalFit {
  std::size_t arrivals = 0;
  double window_s = 0;
  double mean_rate_per_s = 0;   ///< N / window_s
  int period_hours = 0;         ///< 168, 24, or 0 (no profile tried)
  int bin_hours = 0;            ///< width of a bin; 0 when no profile was tried
  std::string bins_reason;      ///< how the bins were chosen, or why no profile was tried
  double g_statistic = 0;       ///< likelihood-ratio G (nats × 2)
  int degrees_of_freedom = 0;
  double p_value = 1;
  bool profile_chosen = false;
  /// When profile_chosen: the rate of hour h of the period (period_hours entries) is
  /// profile_rate_per_s · multipliers[h]; the multipliers average 1.
  double profile_rate_per_s = 0;
  std::vector<double> multipliers;
};

/// Fits the arrivals at `submit_s` (seconds, each in [0, window_s]); window_s > 0.
ArrivalFit fit_arrivals(const std::vector<double>& submit_s, double window_s,
                        double alpha = 0.01);

}  // namespace gpucap::fit
