#include "gpucap/fit/run_time_trend.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "gpucap/fit/special_functions.hpp"

namespace gpucap::fit {
namespace {

constexpr std::size_t kMinEndsPerHalf = 10;
constexpr double kMinHazardRatio = 1.25;

/// The Kaplan-Meier median of one half: the first end time at which S drops to 0.5 or below;
/// NaN when it never does.
double median_of(const RunTimeSample& s) {
  for (const KaplanMeierStep& k : kaplan_meier(s))
    if (k.cdf_after >= 0.5) return k.time_s;
  return std::nan("");
}

}  // namespace

RunTimeTrend run_time_trend(const RunTimeSample& sample, const std::vector<double>& submit_s,
                            double window_s, double alpha) {
  RunTimeTrend out;
  if (submit_s.size() != sample.size() || !(window_s > 0)) return out;
  const double half = 0.5 * window_s;
  RunTimeSample early, late;
  for (std::size_t i = 0; i < sample.size(); ++i) {
    RunTimeSample& h = submit_s[i] < half ? early : late;
    h.time_s.push_back(sample.time_s[i]);
    h.censored.push_back(sample.censored[i]);
  }
  out.early_ends = early.events();
  out.late_ends = late.events();
  if (out.early_ends < kMinEndsPerHalf || out.late_ends < kMinEndsPerHalf) return out;
  out.tested = true;

  // Every job by time, walked from the longest down so that the risk sets are running counts;
  // the jobs of one time join them together (a job censored at t was at risk at t).
  std::vector<std::size_t> order(sample.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return sample.time_s[a] < sample.time_s[b];
  });
  double at_risk = 0, at_risk_late = 0;
  double observed_late = 0, expected_late = 0, variance = 0, observed = 0;
  for (std::size_t j = order.size(); j > 0;) {
    // The jobs of time t: all join the risk sets (they are at risk at t), then their ends count.
    const double t = sample.time_s[order[j - 1]];
    double ends = 0, ends_late = 0;
    std::size_t k = j;
    for (; k > 0 && sample.time_s[order[k - 1]] == t; --k) {
      const std::size_t i = order[k - 1];
      const bool is_late = submit_s[i] >= half;
      at_risk += 1;
      at_risk_late += is_late;
      if (!sample.censored[i]) ends += 1, ends_late += is_late;
    }
    j = k;
    if (ends == 0) continue;
    const double share = at_risk_late / at_risk;
    observed_late += ends_late;
    observed += ends;
    expected_late += ends * share;
    if (at_risk > 1) variance += ends * share * (1 - share) * (at_risk - ends) / (at_risk - 1);
  }
  const double expected_early = observed - expected_late, observed_early = observed - observed_late;
  if (variance > 0 && expected_late > 0 && expected_early > 0 && observed_early > 0) {
    out.chi_square = (observed_late - expected_late) * (observed_late - expected_late) / variance;
    out.p_value = chi_square_sf(out.chi_square, 1);
    out.hazard_ratio = (observed_late / expected_late) / (observed_early / expected_early);
  }
  out.early_median_s = median_of(early);
  out.late_median_s = median_of(late);
  out.significant = out.p_value < alpha && (out.hazard_ratio >= kMinHazardRatio ||
                                            out.hazard_ratio <= 1 / kMinHazardRatio);
  return out;
}

}  // namespace gpucap::fit
