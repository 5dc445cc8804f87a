#include "gpucap/fit/burst_fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "gpucap/fit/special_functions.hpp"

namespace gpucap::fit {
namespace {

constexpr double kHourS = 3600.0;
constexpr double kLengthsS[] = {60.0, 300.0, 900.0, 3600.0, 21600.0, 86400.0};
constexpr std::size_t kMinIntervals = 10;
constexpr std::size_t kMaxIntervals = 4000000;  ///< a length of more intervals is not tried
constexpr std::size_t kMinArrivals = 50;
constexpr double kMinC = 1e-4;  ///< ĉ below this is taken as this in the log fit
constexpr double kMaxHourPieces = 1e6;  ///< intensity_mass integrates by the hour up to this

}  // namespace

double intensity_shape(const ArrivalFit& a, double t_s) {
  double m = 1.0;
  if (a.profile_chosen && a.period_hours > 0 &&
      a.multipliers.size() == static_cast<std::size_t>(a.period_hours)) {
    const double hour = std::floor((t_s + a.origin_offset_s) / kHourS);
    const double slot = std::fmod(hour, static_cast<double>(a.period_hours));
    m = a.multipliers[static_cast<std::size_t>(slot < 0 ? slot + a.period_hours : slot)];
  }
  if (a.step_chosen)
    return t_s >= a.step_at_s ? m * a.step_rate_after_per_s / a.step_rate_before_per_s : m;
  return a.trend_significant ? m * std::exp(a.trend_per_s * t_s) : m;
}

double intensity_mass(const ArrivalFit& a, double t0_s, double t1_s) {
  double mass = 0;
  if ((t1_s - t0_s) / kHourS > kMaxHourPieces) {
    // Centuries: equal pieces, the profile averaged out (its multipliers average 1).
    ArrivalFit flat = a;
    flat.profile_chosen = false;
    const double step = (t1_s - t0_s) / kMaxHourPieces;
    for (double i = 0; i < kMaxHourPieces; ++i)
      mass += intensity_shape(flat, t0_s + (i + 0.5) * step) * step;
    return mass;
  }
  double t = t0_s;
  while (t < t1_s) {
    // Up to the next calendar hour boundary (the profile's bins), or t1.
    const double offset = t + a.origin_offset_s;
    double end = (std::floor(offset / kHourS) + 1.0) * kHourS - a.origin_offset_s;
    if (!(end > t)) end = t + kHourS;
    end = std::min(end, t1_s);
    mass += intensity_shape(a, 0.5 * (t + end)) * (end - t);
    t = end;
  }
  return mass;
}

BurstFit fit_bursts(const std::vector<double>& submit_s, double window_s, const ArrivalFit& a,
                    double alpha) {
  BurstFit fit;
  const double n = static_cast<double>(submit_s.size());
  if (submit_s.size() < kMinArrivals || !(window_s > 0)) return fit;
  // The level: N over the window's whole mass (per hour; a long window in coarse pieces).
  const double total = intensity_mass(a, 0.0, window_s);
  if (!(total > 0)) return fit;
  const double level = n / total;
  for (double tau : kLengthsS) {
    const double k_real = std::floor(window_s / tau);
    if (k_real < kMinIntervals || k_real > kMaxIntervals) continue;
    if (tau > kHourS && window_s / kHourS > kMaxHourPieces) continue;  // hour by hour: too long
    const std::size_t k = static_cast<std::size_t>(k_real);
    std::vector<double> observed(k, 0.0);
    for (double t : submit_s) {
      const double i = std::floor(t / tau);
      if (i >= 0 && i < k_real) observed[static_cast<std::size_t>(i)] += 1;
    }
    double x2 = 0, excess = 0, e2 = 0;
    for (std::size_t i = 0; i < k; ++i) {
      // Intervals shorter than an hour lie within one profile hour but for a boundary: the
      // midpoint's intensity is exact for them; longer ones are integrated.
      const double t0 = i * tau;
      const double e = tau <= kHourS ? level * intensity_shape(a, t0 + 0.5 * tau) * tau
                                     : level * intensity_mass(a, t0, t0 + tau);
      if (!(e > 0)) continue;
      const double d = observed[i] - e;
      x2 += d * d / e;
      excess += d * d - e;
      e2 += e * e;
    }
    DispersionAtLength at;
    at.interval_s = tau;
    at.intervals = k;
    at.index = x2 / static_cast<double>(k - 1);
    at.p_value = chi_square_sf(x2, static_cast<double>(k - 1));
    at.c = e2 > 0 ? std::max(0.0, excess / e2) : 0.0;
    fit.lengths.push_back(at);
  }
  if (fit.lengths.empty()) return fit;
  fit.tested = true;
  double min_p = 1;
  for (const DispersionAtLength& at : fit.lengths) min_p = std::min(min_p, at.p_value);
  fit.over_dispersed = min_p < alpha / static_cast<double>(fit.lengths.size());
  if (!fit.over_dispersed) return fit;
  // τ*: the least-squares fit of log ĉ(s) = log c - max(0, log(s / τ*)).
  double best_sse = std::numeric_limits<double>::infinity();
  for (const DispersionAtLength& star : fit.lengths) {
    double sum = 0;
    for (const DispersionAtLength& at : fit.lengths)
      sum += std::log(std::max(kMinC, at.c)) +
             std::max(0.0, std::log(at.interval_s / star.interval_s));
    const double log_c = sum / static_cast<double>(fit.lengths.size());
    double sse = 0;
    for (const DispersionAtLength& at : fit.lengths) {
      const double r = std::log(std::max(kMinC, at.c)) -
                       (log_c - std::max(0.0, std::log(at.interval_s / star.interval_s)));
      sse += r * r;
    }
    if (sse < best_sse) {
      best_sse = sse;
      fit.interval_s = star.interval_s;
    }
  }
  // c: every length's estimate of it under τ* (ĉ(s), times s/τ* beyond τ*), weighed by its
  // intervals (the log's mean, which chose τ*, is biased low by the noisy long lengths).
  double weighted = 0, weights = 0;
  for (const DispersionAtLength& at : fit.lengths) {
    const double k = static_cast<double>(at.intervals);
    weighted += k * at.c * std::max(1.0, at.interval_s / fit.interval_s);
    weights += k;
  }
  fit.cv = std::sqrt(std::max(0.0, weighted / weights));
  fit.cv = std::min(fit.cv, 9.9);  // the format's range: cv < 10
  return fit;
}

}  // namespace gpucap::fit
