#include "gpucap/fit/parameter_uncertainty.hpp"

#include <algorithm>
#include <cmath>

#include "gpucap/fit/burst_fit.hpp"

namespace gpucap::fit {
namespace {

constexpr double kHourS = 3600.0, kDayS = 86400.0;
constexpr std::size_t kMaxSteps = 262144;  ///< steps of the intensity's integral

}  // namespace

RateUncertainty rate_uncertainty(const ArrivalFit& a, const std::vector<double>& submit_s,
                                 double window_s, bool trend_end) {
  RateUncertainty u;
  const double n = static_cast<double>(submit_s.size());
  if (!(n > 0) || !(window_s > 0)) return u;
  // The intensity by the hour over the window (the last hour partial), scaled to N in all. A
  // window of more than kMaxSteps hours (30 years) is cut into kMaxSteps equal steps, the
  // profile averaged out (its multipliers average 1), and no dispersion measured.
  const bool hourly = window_s / kHourS <= static_cast<double>(kMaxSteps);
  const std::size_t hours =
      hourly ? static_cast<std::size_t>(std::ceil(window_s / kHourS)) : kMaxSteps;
  const double step_s = hourly ? kHourS : window_s / static_cast<double>(kMaxSteps);
  ArrivalFit flat = a;
  flat.profile_chosen = a.profile_chosen && hourly;
  std::vector<double> mass(hours);
  double total = 0;
  for (std::size_t h = 0; h < hours; ++h) {
    const double t = h * step_s, width = std::min(step_s, window_s - t);
    mass[h] = width > 0 ? intensity_shape(flat, t + 0.5 * width) * width : 0.0;
    total += mass[h];
  }
  if (!(total > 0)) return u;
  for (double& m : mass) m *= n / total;

  // Dispersion over whole days: Pearson's χ² / (D - 1).
  const std::size_t days = hourly ? static_cast<std::size_t>(window_s / kDayS) : 0;
  if (days >= 7) {
    std::vector<double> observed(days, 0.0), expected(days, 0.0);
    for (double t : submit_s) {
      const std::size_t d = static_cast<std::size_t>(t / kDayS);
      if (d < days) observed[d] += 1;
    }
    for (std::size_t h = 0; h < days * 24 && h < hours; ++h) expected[h / 24] += mass[h];
    double chi2 = 0;
    for (std::size_t d = 0; d < days; ++d)
      if (expected[d] > 0) chi2 += (observed[d] - expected[d]) * (observed[d] - expected[d]) / expected[d];
    u.days = days;
    u.dispersion = std::max(1.0, chi2 / static_cast<double>(days - 1));
  }

  double var = 1.0 / n;
  if (trend_end && a.step_chosen) {
    // The level since the step: its n₂ arrivals alone.
    var = 1.0 / std::max<double>(1.0, static_cast<double>(a.step_arrivals_after));
    u.at_trend_end = true;
  } else if (trend_end) {
    // Fisher information of (ln level, b) for λ(t) = e^(α + b t) m(t): Σ λ [1 t; t t²].
    double i00 = 0, i01 = 0, i11 = 0;
    for (std::size_t h = 0; h < hours; ++h) {
      const double t = h * step_s + 0.5 * std::min(step_s, window_s - h * step_s);
      i00 += mass[h];
      i01 += mass[h] * t;
      i11 += mass[h] * t * t;
    }
    const double det = i00 * i11 - i01 * i01;
    if (det > 0) {
      const double T = window_s;  // [1 T] I⁻¹ [1 T]ᵀ
      var = (i11 - 2 * T * i01 + T * T * i00) / det;
      u.at_trend_end = true;
    }
  }
  u.sd_log = std::min(kMaxSdLog, std::sqrt(u.dispersion * var));
  return u;
}

double scale_sd_log(const RunTimeModel& m) {
  if (m.empirical) {
    const double n = static_cast<double>(m.values.size());
    if (n < 2) return 0.0;
    double sum = 0, sq = 0;
    for (double v : m.values) sum += v;
    const double mean = sum / n;
    if (!(mean > 0)) return 0.0;
    for (double v : m.values) sq += (v - mean) * (v - mean);
    return std::min(kMaxSdLog, std::sqrt(sq / (n - 1)) / mean / std::sqrt(n));
  }
  const double d = std::max<double>(1.0, static_cast<double>(m.finished));
  double sd = 0;
  switch (m.family) {
    case Family::exponential:
      sd = 1.0 / std::sqrt(d);
      break;
    case Family::lognormal:
      sd = m.params.b / std::sqrt(d);
      break;
    case Family::weibull:
      sd = std::sqrt(1.109) / (m.params.a * std::sqrt(d));
      break;
    case Family::gamma:
      sd = 1.0 / std::sqrt(m.params.a * d);
      break;
  }
  return std::isfinite(sd) ? std::min(kMaxSdLog, std::max(0.0, sd)) : kMaxSdLog;
}

}  // namespace gpucap::fit
