// gpucap fitting: arrivals of one job class as a constant-rate Poisson process or a
// non-homogeneous one whose rate follows the hour of the week (or of the day).
//
// Window: arrivals are observed over [0, window_s]. Hour h of the profile is hour h of the
// calendar week (or day), Monday 00:00 first as in the scenario format's `weekly_profile`: t = 0
// of the trace is `origin_offset_s` seconds after a Monday 00:00 (0: t = 0 is Monday 00:00;
// gpucap fit --origin gives the log's real start). A profile of the day is tried when the
// window holds at least a day, and one of the week too when it holds at least a week (every
// hour of the week then has exposure); none below a day (constant rate only). Each period is
// cut into bins of w hours, w the smallest of 1, 2, 3, 4, 6, 8, 12, 24 (24 for weeks only) that
// leaves at least 5 arrivals per bin on average, so that the chi-square law of the test holds;
// with fewer than 10 arrivals no profile is tried. Of the profiles the test keeps, the one of
// lower AIC (2 (bins - 1) - G relative to a constant rate) is chosen: over two weeks a weekly
// profile of hourly bins fits each hour's noise, and the day's wins. Each bin's rate is shrunk
// toward the mean by one pseudo-arrival ((N_b + 1) / (E_b + 1 / λ)): no hour the data left
// empty gets a rate of 0.
//
// Test: the likelihood ratio of the piecewise-constant rate λ_b = N_b / E_b (N_b arrivals and
// E_b seconds of exposure in bin b) against λ = N / window:
//   G = 2 Σ_b N_b ln(λ_b / λ),  G ~ χ²(bins − 1) under a constant rate;
// the profile is chosen when p < alpha (default 1%). Counts burstier than Poisson inflate G: with
// φ the dispersion of the bins' counts over the window's cells (each bin of each period) around
// the richer profile, G / φ is tested and compared instead (quasi-Poisson likelihood, QAIC).
//
// Trend: a log-linear intensity λ(t) = m(t) e^(a + b t) (m: the chosen profile, else 1) against
// b = 0, by the likelihood ratio with a profiled out: l(b) = n ln(n / I(b)) + b Σ t_i - n,
// I(b) = ∫ m(t) e^(b t) dt over the window (exact per hour), G = 2 (l(b̂) - l(0)) ~ χ²(1).
// l is concave in b (ln I is a log-sum-exp), so b̂ is found by golden-section search on
// |b| window <= 20. Tried with at least 10 arrivals over at least 2 days; a rate that drifts
// (p < alpha) is one the window's average misrepresents: gpucap fit then says so and offers
// --trend.
//
// Step: demand that moved once (a customer onboarded, a product launched) is a level shift, not a
// slope, and a line through it misstates the level at the window's end. Where the trend test was
// tried on a window of at least 14 days (over one week, a weekend the profile does not hold would
// read as a step), a step λ(t) = m(t) r₁ before τ and m(t) r₂ after is fitted too: τ on whole
// hours with at least a day before it and three days after it (a surge of a day or two at the
// window's end is a burst as often as a level) and 10 arrivals either side, r₁ and r₂ profiled
// out:
//   l(τ) = n₁ ln(n₁ / I₁(τ)) + n₂ ln(n₂ / I₂(τ)),  I₁ = ∫₀^τ m,  I₂ = ∫_τ^W m,
// on the same scale as the trend's l(b̂). The step is chosen over the log-linear trend when the
// rate drifts (the trend test) and G = 2 (l(τ̂) − l(b̂)) / φ_day is significant: p = D · P(χ²(1) >
// G) < alpha, D the window's whole days (a Bonferroni bound for the best of many τ; on Poisson
// windows with a log-linear trend and no step, G's 99th percentile is 9-12, BIC's ln n would pick
// a step in 3-14% of them). φ_day is the dispersion of the whole days' counts around the step
// model (Pearson's X² / (D − 3), at least 1, from 7 days; else the cells' φ), so days that vary
// more than Poisson (bursty demand) are not read as a shift.
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
  /// φ: the over-dispersion of the counts of the profile's bins, hour by hour of the window
  /// (Pearson's X² over its degrees of freedom, at least 1); the profile's and the trend's
  /// tests use G / φ (quasi-Poisson), so that bursts are not read as a profile or a trend.
  double dispersion = 1;
  int degrees_of_freedom = 0;
  double p_value = 1;
  bool profile_chosen = false;
  /// When profile_chosen: the rate of hour h of the period (period_hours entries) is
  /// profile_rate_per_s · multipliers[h]; the multipliers average 1.
  double profile_rate_per_s = 0;
  std::vector<double> multipliers;
  double origin_offset_s = 0;  ///< t = 0 is this long after a Monday 00:00

  // The trend test (see above).
  bool trend_tried = false;
  double trend_per_s = 0;      ///< b̂: the rate grows by e^(b̂ t) at time t
  double trend_g = 0;          ///< likelihood-ratio G on 1 df
  double trend_p_value = 1;
  bool trend_significant = false;  ///< p < alpha
  /// The fitted base rate at the window's end over the window's average: what
  /// `--trend extrapolate` multiplies the rate by (1 without a trend).
  double trend_end_factor = 1;

  // The step test (see above): tried with the trend on windows of 14 days to 262,144 hours.
  bool step_tried = false;
  double step_at_s = 0;            ///< τ̂ (a whole hour)
  double step_rate_before_per_s = 0;  ///< r̂₁: arrivals per second of m before τ̂
  double step_rate_after_per_s = 0;   ///< r̂₂, after
  std::size_t step_arrivals_after = 0;  ///< n₂
  double step_gain = 0;            ///< 2 (l(τ̂) − l(b̂)): above 0 where the step fits better
  double step_dispersion = 1;      ///< φ_day around the step model
  double step_p_value = 1;         ///< of step_gain / step_dispersion (Bonferroni over the days)
  /// The step describes the window better than the trend: the intensity's shape is then the
  /// step (m(t) times r̂₂ / r̂₁ after τ̂), and trend_end_factor is r̂₂ over the window's average.
  bool step_chosen = false;
};

/// Fits the arrivals at `submit_s` (seconds, each in [0, window_s]); window_s > 0;
/// origin_offset_s in [0, 604800).
ArrivalFit fit_arrivals(const std::vector<double>& submit_s, double window_s,
                        double alpha = 0.01, double origin_offset_s = 0);

/// The chosen profile's multipliers from the hour that starts `start_offset_s` after a Monday
/// 00:00 (the calendar hour of a forecast's t = 0, rounded to the hour), wrapping around the
/// period: what a scenario whose t = 0 is then takes as its profile (its hour 0 is t = 0).
/// Empty without a chosen profile.
std::vector<double> rotated_profile(const ArrivalFit& a, double start_offset_s);

/// Seconds from the Monday 00:00 before `epoch_s` (seconds since 1970-01-01, local time of the
/// log's zone) to it: the origin_offset_s of a log that starts then.
double seconds_since_monday(double epoch_s);

}  // namespace gpucap::fit
