// gpucap fitting: are arrivals burstier than a Poisson process, and if so, a Cox process that
// reproduces it (the scenario's `arrivals.burst`).
//
// Test. For each interval length τ of 1 min, 5 min, 15 min, 1 h, 6 h and 1 d that the window
// holds at least 10 times, the counts n_k of its K whole intervals are compared with what the
// fitted intensity (profile and trend, scaled to the N arrivals) expects of each, e_k: Pearson's
// X² = Σ (n_k - e_k)² / e_k is χ²(K - 1) under a Poisson process (the index of dispersion
// X² / (K - 1) is then about 1). The arrivals are over-dispersed when the smallest p-value is
// below alpha over the number of lengths tried (Bonferroni).
//
// Fit. A Cox process with a gamma multiplier (mean 1, squared coefficient of variation c) per
// interval of length τ*, independent between intervals, makes the counts of an interval of
// length s have variance e + c(s) e² with c(s) = c for s <= τ* (the rate is constant within an
// interval) and c τ*/s beyond (the average of s/τ* independent multipliers). Each length's
// moment estimate ĉ(s) = Σ ((n_k - e_k)² - e_k) / Σ e_k² is matched: τ* is the candidate length
// whose model fits log ĉ(s) best in least squares (c by the mean of the shifted logs); then c
// is the mean of every length's estimate of it (ĉ(s), times s/τ* beyond τ*) weighed by its
// intervals, and cv = sqrt(c).
#pragma once
#include <cstddef>
#include <vector>

#include "gpucap/fit/arrival_fit.hpp"

namespace gpucap::fit {

/// One interval length's test and estimate.
struct DispersionAtLength {
  double interval_s = 0;
  std::size_t intervals = 0;  ///< K
  double index = 1;           ///< X² / (K - 1): about 1 for a Poisson process
  double p_value = 1;         ///< P(χ²(K - 1) >= X²)
  double c = 0;               ///< ĉ: the squared cv of a gamma rate that explains the excess
};

struct BurstFit {
  std::vector<DispersionAtLength> lengths;  ///< the lengths tried, shortest first
  bool tested = false;        ///< at least one length was tried (50 arrivals, 10 intervals)
  bool over_dispersed = false;  ///< min p < alpha / lengths
  double interval_s = 0;      ///< τ* (when over_dispersed)
  double cv = 0;              ///< sqrt(c) (when over_dispersed)
};

/// Tests and fits the arrivals at `submit_s` (in [0, window_s]) against `a`, the fit of their
/// rate (its profile and a significant trend shape the expected counts).
BurstFit fit_bursts(const std::vector<double>& submit_s, double window_s, const ArrivalFit& a,
                    double alpha = 0.01);

/// The fitted intensity's shape at time t (s): the chosen profile's multiplier of that hour
/// times a significant trend's e^(b t) (a chosen step's r̂₂ / r̂₁ from τ̂ instead), up to the
/// level's constant.
double intensity_shape(const ArrivalFit& a, double t_s);

/// ∫ intensity_shape over [t0, t1] (s), exact per hour of the profile (the trend at each
/// piece's midpoint); over more than 10^6 hours, in 10^6 equal pieces without the profile.
double intensity_mass(const ArrivalFit& a, double t0_s, double t1_s);

}  // namespace gpucap::fit
