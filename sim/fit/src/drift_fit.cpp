#include "gpucap/fit/drift_fit.hpp"

#include <algorithm>
#include <cmath>

#include "gpucap/fit/burst_fit.hpp"

namespace gpucap::fit {

DriftFit fit_drift(const std::vector<double>& submit_s, double window_s, const ArrivalFit& a) {
  constexpr double kDayS = 86400.0;
  constexpr std::size_t kMaxDays = 100000;
  DriftFit fit;
  const double whole = std::floor(window_s / kDayS);
  if (whole < 7 || whole > static_cast<double>(kMaxDays) || submit_s.empty()) return fit;
  const std::size_t days = static_cast<std::size_t>(whole);
  const double total = intensity_mass(a, 0.0, window_s);
  if (!(total > 0)) return fit;
  const double level = static_cast<double>(submit_s.size()) / total;
  std::vector<double> observed(days, 0.0), ratio(days);
  for (double t : submit_s) {
    const double d = std::floor(t / kDayS);
    if (d >= 0 && d < whole) observed[static_cast<std::size_t>(d)] += 1;
  }
  for (std::size_t d = 0; d < days; ++d) {
    const double e = level * intensity_mass(a, d * kDayS, (d + 1) * kDayS);
    ratio[d] = std::log((observed[d] + 0.5) / (e + 0.5));
  }
  fit.days = days;
  fit.lags = std::max<std::size_t>(2, days / 3);
  // Weighted least squares of γ(k) on k, weights the pairs at lag k.
  double sw = 0, sk = 0, sg = 0, skk = 0, skg = 0;
  for (std::size_t k = 1; k <= fit.lags; ++k) {
    double sum = 0;
    for (std::size_t d = 0; d + k < days; ++d) sum += (ratio[d + k] - ratio[d]) * (ratio[d + k] - ratio[d]);
    const double pairs = static_cast<double>(days - k);
    const double gamma = 0.5 * sum / pairs;
    fit.semivariogram.push_back(gamma);
    const double kk = static_cast<double>(k);
    sw += pairs;
    sk += pairs * kk;
    sg += pairs * gamma;
    skk += pairs * kk * kk;
    skg += pairs * kk * gamma;
  }
  const double den = sw * skk - sk * sk;
  const double slope = den > 0 ? (sw * skg - sk * sg) / den : 0.0;
  fit.sd_log_per_day = slope > 0 ? std::min(2.5, std::sqrt(2 * slope)) : 0.0;
  return fit;
}

}  // namespace gpucap::fit
