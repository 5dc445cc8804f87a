#include "gpucap/fit/arrival_fit.hpp"

#include <algorithm>
#include <cmath>

#include "gpucap/fit/special_functions.hpp"

namespace gpucap::fit {

ArrivalFit fit_arrivals(const std::vector<double>& submit_s, double window_s, double alpha) {
  ArrivalFit a;
  a.arrivals = submit_s.size();
  a.window_s = window_s;
  const double n = static_cast<double>(a.arrivals);
  a.mean_rate_per_s = n / window_s;
  a.profile_rate_per_s = a.mean_rate_per_s;

  constexpr double kHour = 3600.0;
  if (window_s >= 168 * kHour) {
    a.period_hours = 168;
  } else if (window_s >= 24 * kHour) {
    a.period_hours = 24;
  } else {
    a.bins_reason = "the window is shorter than a day: no profile tried";
    return a;
  }
  const std::vector<int> widths = a.period_hours == 168
                                      ? std::vector<int>{1, 2, 3, 4, 6, 8, 12, 24}
                                      : std::vector<int>{1, 2, 3, 4, 6, 8, 12};
  for (int w : widths)
    if (n / (a.period_hours / w) >= 5.0) {
      a.bin_hours = w;
      break;
    }
  const char* period = a.period_hours == 168 ? "week" : "day";
  if (a.bin_hours == 0) {
    a.period_hours = 0;
    a.bins_reason = "too few arrivals for a profile (" + std::to_string(a.arrivals) +
                    "; 5 per bin are needed for the test)";
    return a;
  }
  const int bins = a.period_hours / a.bin_hours;
  a.bins_reason = std::to_string(bins) + " bins of " + std::to_string(a.bin_hours) +
                  " h of the " + period + " (the finest with >= 5 arrivals per bin on average)";

  // Exposure: whole periods give every bin the same time; the rest of the window, from the
  // start of a period, fills the bins in order.
  const double period_s = a.period_hours * kHour, bin_s = a.bin_hours * kHour;
  const double whole = std::floor(window_s / period_s);
  const double rest = window_s - whole * period_s;
  std::vector<double> exposure(bins), count(bins, 0.0);
  for (int b = 0; b < bins; ++b)
    exposure[b] = whole * bin_s + std::clamp(rest - b * bin_s, 0.0, bin_s);
  for (double t : submit_s) {
    const int b = static_cast<int>(std::fmod(t, period_s) / bin_s);
    count[std::clamp(b, 0, bins - 1)] += 1;
  }
  double g = 0;
  for (int b = 0; b < bins; ++b)
    if (count[b] > 0) g += 2.0 * count[b] * std::log(count[b] / exposure[b] / a.mean_rate_per_s);
  a.g_statistic = std::max(g, 0.0);
  a.degrees_of_freedom = bins - 1;
  a.p_value = chi_square_sf(a.g_statistic, a.degrees_of_freedom);
  a.profile_chosen = a.p_value < alpha;
  if (!a.profile_chosen) return a;
  // Per-hour rates, and their mean as the base rate, so the multipliers average exactly 1.
  std::vector<double> rate(a.period_hours);
  double mean = 0;
  for (int h = 0; h < a.period_hours; ++h) {
    const int b = h / a.bin_hours;
    rate[h] = count[b] / exposure[b];
    mean += rate[h];
  }
  mean /= a.period_hours;
  a.profile_rate_per_s = mean;
  for (double r : rate) a.multipliers.push_back(r / mean);
  return a;
}

}  // namespace gpucap::fit
