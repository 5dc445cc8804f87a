// gpucap fitting: how fast the level of the arrival rate wanders (the scenario's
// `arrivals.drift`: a geometric random walk), so that a forecast's intervals widen with its
// horizon as real demand's level does.
//
// From the D whole days of the window (at least 7): each day's log ratio of its count to what
// the fitted intensity (profile and trend, scaled to the N arrivals) expects of it, ℓ_d =
// ln((n_d + 0.5) / (e_d + 0.5)). Under a random walk of daily step sd σ plus day-to-day noise
// of variance v (Poisson's and bursts'), the semivariogram is γ(k) = ½ mean (ℓ_{d+k} - ℓ_d)² =
// v + k σ²/2: its slope over lags 1 to max(2, D/3), fitted by least squares weighted by the
// pairs at each lag, gives σ² = 2 × slope (0 when the slope is not positive). The trend fitted
// takes out the walk's own average slope over the window, so σ is if anything understated.
#pragma once
#include <cstddef>
#include <vector>

#include "gpucap/fit/arrival_fit.hpp"

namespace gpucap::fit {

struct DriftFit {
  std::size_t days = 0;  ///< whole days used (0: fewer than 7, not estimated)
  std::size_t lags = 0;  ///< lags fitted
  double sd_log_per_day = 0;  ///< σ
  std::vector<double> semivariogram;  ///< γ(1), γ(2), ...
};

DriftFit fit_drift(const std::vector<double>& submit_s, double window_s, const ArrivalFit& a);

}  // namespace gpucap::fit
