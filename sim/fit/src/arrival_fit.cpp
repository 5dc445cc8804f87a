#include "gpucap/fit/arrival_fit.hpp"

#include <algorithm>
#include <cmath>

#include "gpucap/fit/special_functions.hpp"

namespace gpucap::fit {
namespace {

constexpr double kHour = 3600.0;
constexpr double kWeek = 168 * kHour;

/// The profile's multiplier at trace time t (1 without a chosen profile).
double multiplier_at(const ArrivalFit& a, double t) {
  if (!a.profile_chosen) return 1.0;
  const double period_s = a.period_hours * kHour;
  const int h = static_cast<int>(std::fmod(t + a.origin_offset_s, period_s) / kHour);
  return a.multipliers[static_cast<std::size_t>(std::clamp(h, 0, a.period_hours - 1))];
}

/// ∫ m(t) e^(b t) dt over [0, length], length at most a period (or any length without a
/// profile), in pieces that end at the profile's hour boundaries.
double integral_within_period(const ArrivalFit& a, double b, double length) {
  if (!a.profile_chosen) return b == 0 ? length : std::expm1(b * length) / b;
  double total = 0, t0 = 0;
  while (t0 < length) {
    // The next hour boundary of the calendar (hours are aligned to the origin's offset).
    const double calendar = t0 + a.origin_offset_s;
    double t1 = (std::floor(calendar / kHour) + 1) * kHour - a.origin_offset_s;
    if (t1 <= t0) t1 = t0 + kHour;
    t1 = std::min(t1, length);
    const double piece = b == 0 ? t1 - t0 : std::exp(b * t0) * std::expm1(b * (t1 - t0)) / b;
    total += multiplier_at(a, 0.5 * (t0 + t1)) * piece;
    t0 = t1;
  }
  return total;
}

/// ∫ m(t) e^(b t) dt over the window: K whole periods P (m repeats, so period k is period 0
/// times e^(b k P): a geometric sum) and the rest. Without a profile, in closed form.
double trend_integral(const ArrivalFit& a, double b) {
  if (!a.profile_chosen) return integral_within_period(a, b, a.window_s);
  const double period_s = a.period_hours * kHour;
  const double whole = std::floor(a.window_s / period_s);
  const double rest = a.window_s - whole * period_s;
  const double periods =
      b == 0 ? whole : std::expm1(b * whole * period_s) / std::expm1(b * period_s);
  return periods * integral_within_period(a, b, period_s) +
         std::exp(b * whole * period_s) * integral_within_period(a, b, rest);
}

/// ∫ m(t) dt over [t0, t1], in pieces that end at the profile's hour boundaries (t1 − t0
/// without a profile).
double profile_mass(const ArrivalFit& a, double t0, double t1) {
  if (!a.profile_chosen) return std::max(0.0, t1 - t0);
  double total = 0;
  while (t0 < t1) {
    double next = (std::floor((t0 + a.origin_offset_s) / kHour) + 1) * kHour - a.origin_offset_s;
    if (next <= t0) next = t0 + kHour;
    next = std::min(next, t1);
    total += multiplier_at(a, 0.5 * (t0 + next)) * (next - t0);
    t0 = next;
  }
  return total;
}

/// The step test (arrival_fit.hpp), after the trend's: l_trend is l(b̂) on the same scale.
void test_step(ArrivalFit& a, const std::vector<double>& submit_s, double l_trend, double alpha) {
  constexpr double kDay = 24 * kHour;
  constexpr double kMaxHours = 262144;
  constexpr double kMinSide = 10;  // arrivals either side of τ
  // Hours before τ and after it: a day before; three days after, as a surge of a day or two at
  // the window's end is a burst as often as a new level, and the level since τ is what
  // --trend extrapolate writes.
  constexpr std::size_t kMinBefore = 24, kMinAfter = 72;
  // Two weeks at least: over one, the days of a weekly cycle the profile does not hold (a
  // weekend at the window's end) would read as a step.
  if (a.window_s < 14 * kDay || a.window_s / kHour > kMaxHours) return;
  std::vector<double> t(submit_s);
  std::sort(t.begin(), t.end());
  const std::size_t hours = static_cast<std::size_t>(a.window_s / kHour);
  std::vector<double> cum(hours + 1, 0.0);  // cum[k] = ∫₀^{k h} m
  for (std::size_t k = 0; k < hours; ++k)
    cum[k + 1] = cum[k] + profile_mass(a, k * kHour, (k + 1) * kHour);
  const double total = cum[hours] + profile_mass(a, hours * kHour, a.window_s);
  const double n = static_cast<double>(t.size());
  double best = -INFINITY;
  std::size_t best_k = 0, best_n1 = 0, i = 0;
  for (std::size_t k = kMinBefore; k + kMinAfter <= hours; ++k) {
    const double tau = k * kHour;
    while (i < t.size() && t[i] < tau) ++i;
    const double n1 = static_cast<double>(i), n2 = n - n1;
    const double i1 = cum[k], i2 = total - cum[k];
    if (n1 < kMinSide || n2 < kMinSide || !(i1 > 0) || !(i2 > 0)) continue;
    const double l = n1 * std::log(n1 / i1) + n2 * std::log(n2 / i2);
    if (l > best) best = l, best_k = k, best_n1 = i;
  }
  if (!std::isfinite(best)) return;
  a.step_tried = true;
  const double n1 = static_cast<double>(best_n1), n2 = n - n1;
  const double i1 = cum[best_k], i2 = total - cum[best_k];
  a.step_at_s = best_k * kHour;
  a.step_rate_before_per_s = n1 / i1;
  a.step_rate_after_per_s = n2 / i2;
  a.step_arrivals_after = t.size() - best_n1;
  a.step_gain = 2 * (best - l_trend);
  // φ_day: the whole days' counts around the step model, on D − 3 degrees of freedom.
  a.step_dispersion = a.dispersion;
  const std::size_t days = static_cast<std::size_t>(a.window_s / kDay);
  if (days >= 7) {
    std::vector<double> observed(days, 0.0);
    for (double x : t)
      if (x < days * kDay) observed[static_cast<std::size_t>(x / kDay)] += 1;
    double x2 = 0;
    for (std::size_t d = 0; d < days; ++d) {
      const std::size_t lo = d * 24, hi = lo + 24, cut = std::clamp(best_k, lo, hi);
      const double e = a.step_rate_before_per_s * (cum[cut] - cum[lo]) +
                       a.step_rate_after_per_s * (cum[hi] - cum[cut]);
      if (e > 0) x2 += (observed[d] - e) * (observed[d] - e) / e;
    }
    a.step_dispersion = std::max(1.0, x2 / static_cast<double>(days - 3));
  }
  // The best of many τ: χ²(1)'s tail times the window's days, a Bonferroni bound (conservative:
  // neighbouring hours' statistics are nearly equal).
  const double positions = std::max(1.0, std::floor(a.window_s / kDay));
  a.step_p_value =
      a.step_gain > 0 ? std::min(1.0, positions * chi_square_sf(a.step_gain / a.step_dispersion, 1))
                      : 1.0;
  a.step_chosen = a.trend_significant && a.step_p_value < alpha;
  if (a.step_chosen) a.trend_end_factor = a.step_rate_after_per_s / (n / total);
}

/// The log-linear trend test (arrival_fit.hpp), then the step's.
void test_trend(ArrivalFit& a, const std::vector<double>& submit_s, double alpha) {
  if (a.arrivals < 10 || a.window_s < 2 * 24 * kHour) return;
  a.trend_tried = true;
  const double n = static_cast<double>(a.arrivals);
  double sum_t = 0;
  for (double t : submit_s) sum_t += t;
  const auto l = [&](double b) { return n * std::log(n / trend_integral(a, b)) + b * sum_t; };
  // Golden-section search for the maximum of the concave l on |b| window <= 20.
  double lo = -20 / a.window_s, hi = 20 / a.window_s;
  const double g = 0.5 * (std::sqrt(5.0) - 1);
  double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
  double f1 = l(x1), f2 = l(x2);
  for (int i = 0; i < 100 && hi - lo > 1e-9 / a.window_s; ++i) {
    if (f1 < f2) {
      lo = x1, x1 = x2, f1 = f2, x2 = lo + g * (hi - lo), f2 = l(x2);
    } else {
      hi = x2, x2 = x1, f2 = f1, x1 = hi - g * (hi - lo), f1 = l(x1);
    }
  }
  a.trend_per_s = 0.5 * (lo + hi);
  a.trend_g = std::max(0.0, 2 * (l(a.trend_per_s) - l(0)));
  a.trend_p_value = chi_square_sf(a.trend_g / a.dispersion, 1);
  a.trend_significant = a.trend_p_value < alpha;
  // Base rate at the window's end over the average base rate: e^(bW) W / ∫ e^(bt) dt.
  const double bw = a.trend_per_s * a.window_s;
  a.trend_end_factor = bw == 0 ? 1.0 : bw * std::exp(bw) / std::expm1(bw);
  test_step(a, submit_s, l(a.trend_per_s), alpha);
}

}  // namespace

double seconds_since_monday(double epoch_s) {
  // 1970-01-01 was a Thursday: 3 days after a Monday 00:00.
  const double s = std::fmod(epoch_s + 3 * 24 * kHour, kWeek);
  return s < 0 ? s + kWeek : s;
}

namespace {

/// A profile of `period_hours` tried on the arrivals: its bins, their counts and exposure, and
/// the likelihood ratio against a constant rate.
struct ProfileCandidate {
  int period_hours = 0, bin_hours = 0;
  std::vector<double> count, exposure;
  double g = 0, p = 1;
  int df = 0;
  double dispersion = 1;  ///< φ: G / φ is tested (quasi-Poisson), 1 for Poisson counts
  /// (Q)AIC of the profile minus that of a constant rate: 2 (bins - 1) - G / φ (lower is better).
  double aic_gain() const { return 2.0 * df - g / dispersion; }
};

/// φ of the counts of every bin-long cell of the window (each hour of each day, for a daily
/// profile of 1 h bins) around the profile's rates times a log-linear trend e^(b t) (b fitted
/// without the profile; a drift is not a burst): each cell expects its bin's count shared by
/// its exposure weighed by the trend. Pearson's X² / (cells - bins - 1), at least 1. Bursts
/// within a day or week make the profile's G too large for χ² (a weekly profile then fits the
/// bursts of two weeks); G / φ is the quasi-Poisson statistic. 1 when not measured (over 10^6
/// cells).
double cell_dispersion(const std::vector<double>& submit_s, double window_s, double origin_offset_s,
                       const ProfileCandidate& c, double trend_per_s) {
  if (c.bin_hours == 0) return 1.0;
  const int bins = c.period_hours / c.bin_hours;
  const double bin_s = c.bin_hours * kHour;
  const double first = std::floor(origin_offset_s / bin_s);
  const double last = std::floor((window_s + origin_offset_s) / bin_s);
  if (last - first + 1 > 1e6) return 1.0;
  const std::size_t cells = static_cast<std::size_t>(last - first + 1);
  std::vector<double> observed(cells, 0.0);
  for (double t : submit_s) {
    const double j = std::floor((t + origin_offset_s) / bin_s) - first;
    if (j >= 0 && j < static_cast<double>(cells)) observed[static_cast<std::size_t>(j)] += 1;
  }
  // The weight of each cell (its exposure times the trend at its middle), and each bin's sum.
  std::vector<double> weight(cells, 0.0), bin_weight(bins, 0.0);
  const auto bin_of = [&](std::size_t i) {
    return static_cast<int>(std::fmod(first + static_cast<double>(i), static_cast<double>(bins)));
  };
  for (std::size_t i = 0; i < cells; ++i) {
    const double j = first + static_cast<double>(i);
    const double lo = std::max(0.0, j * bin_s - origin_offset_s);
    const double hi = std::min(window_s, (j + 1) * bin_s - origin_offset_s);
    if (!(hi > lo)) continue;
    weight[i] = (hi - lo) * std::exp(trend_per_s * 0.5 * (lo + hi));
    bin_weight[bin_of(i)] += weight[i];
  }
  double x2 = 0;
  for (std::size_t i = 0; i < cells; ++i) {
    const int b = bin_of(i);
    if (!(weight[i] > 0) || !(bin_weight[b] > 0)) continue;
    const double e = c.count[b] * weight[i] / bin_weight[b];
    if (e > 0) x2 += (observed[i] - e) * (observed[i] - e) / e;
  }
  const double df = static_cast<double>(cells) - bins - 1;
  return df > 0 ? std::max(1.0, x2 / df) : 1.0;
}

/// The profile of `period_hours` with the finest bins that leave 5 arrivals each on average;
/// bin_hours 0 when there are too few arrivals for any.
ProfileCandidate try_profile(const std::vector<double>& submit_s, double window_s,
                             double origin_offset_s, double mean_rate_per_s, int period_hours) {
  ProfileCandidate c;
  c.period_hours = period_hours;
  const double n = static_cast<double>(submit_s.size());
  const std::vector<int> widths = period_hours == 168 ? std::vector<int>{1, 2, 3, 4, 6, 8, 12, 24}
                                                      : std::vector<int>{1, 2, 3, 4, 6, 8, 12};
  for (int w : widths)
    if (n / (period_hours / w) >= 5.0) {
      c.bin_hours = w;
      break;
    }
  if (c.bin_hours == 0) return c;
  const int bins = period_hours / c.bin_hours;
  // Exposure: whole periods give every bin the same time; the rest of the window fills the
  // bins in calendar order from the window's phase in the period (the origin's offset), wrapping
  // around the period's end.
  const double period_s = period_hours * kHour, bin_s = c.bin_hours * kHour;
  const double whole = std::floor(window_s / period_s);
  const double rest = window_s - whole * period_s;
  const double phase = std::fmod(origin_offset_s, period_s);
  c.exposure.assign(bins, 0.0);
  c.count.assign(bins, 0.0);
  for (int b = 0; b < bins; ++b) {
    c.exposure[b] = whole * bin_s;
    // The part of [phase, phase + rest) in bin b, and in its copy one period later.
    for (double shift : {0.0, period_s}) {
      const double lo = b * bin_s + shift, hi = lo + bin_s;
      c.exposure[b] += std::max(0.0, std::min(hi, phase + rest) - std::max(lo, phase));
    }
  }
  for (double t : submit_s) {
    const int b = static_cast<int>(std::fmod(t + origin_offset_s, period_s) / bin_s);
    c.count[std::clamp(b, 0, bins - 1)] += 1;
  }
  double g = 0;
  for (int b = 0; b < bins; ++b)
    if (c.count[b] > 0) g += 2.0 * c.count[b] * std::log(c.count[b] / c.exposure[b] / mean_rate_per_s);
  c.g = std::max(g, 0.0);
  c.df = bins - 1;
  c.p = chi_square_sf(c.g, c.df);
  return c;
}

}  // namespace

ArrivalFit fit_arrivals(const std::vector<double>& submit_s, double window_s, double alpha,
                        double origin_offset_s) {
  ArrivalFit a;
  a.arrivals = submit_s.size();
  a.window_s = window_s;
  a.origin_offset_s = origin_offset_s;
  const double n = static_cast<double>(a.arrivals);
  a.mean_rate_per_s = n / window_s;
  a.profile_rate_per_s = a.mean_rate_per_s;

  if (window_s < 24 * kHour) {
    a.bins_reason = "the window is shorter than a day: no profile tried";
    test_trend(a, submit_s, alpha);
    return a;
  }
  // The profiles the window supports: of the day, and of the week when it holds one. Of those
  // that the likelihood-ratio test keeps, the one of lower AIC: a weekly profile has 7 times
  // the parameters of a daily one, and over few weeks it fits the noise of each hour.
  std::vector<ProfileCandidate> candidates;
  if (window_s >= 168 * kHour)
    candidates.push_back(try_profile(submit_s, window_s, origin_offset_s, a.mean_rate_per_s, 168));
  candidates.push_back(try_profile(submit_s, window_s, origin_offset_s, a.mean_rate_per_s, 24));
  // One φ for both, from the richer profile's cells (the most parameters: the usual QAIC),
  // around a trend fitted without a profile.
  ArrivalFit flat = a;
  test_trend(flat, submit_s, alpha);
  const double phi = cell_dispersion(submit_s, window_s, origin_offset_s, candidates.front(),
                                     flat.trend_tried ? flat.trend_per_s : 0.0);
  for (ProfileCandidate& c : candidates) {
    c.dispersion = phi;
    if (c.bin_hours > 0) c.p = chi_square_sf(c.g / phi, c.df);
  }
  a.dispersion = phi;
  const ProfileCandidate* best = nullptr;
  for (const ProfileCandidate& c : candidates)
    if (c.bin_hours > 0 && c.p < alpha && (!best || c.aic_gain() < best->aic_gain())) best = &c;
  // Reported when none is kept: the first the window supports with enough arrivals.
  const ProfileCandidate* shown = best;
  for (const ProfileCandidate& c : candidates)
    if (!shown && c.bin_hours > 0) shown = &c;
  if (!shown) {
    a.bins_reason = "too few arrivals for a profile (" + std::to_string(a.arrivals) +
                    "; 5 per bin are needed for the test)";
    test_trend(a, submit_s, alpha);
    return a;
  }
  const ProfileCandidate& c = *shown;
  a.period_hours = c.period_hours;
  a.bin_hours = c.bin_hours;
  const int bins = c.period_hours / c.bin_hours;
  const char* period = c.period_hours == 168 ? "week" : "day";
  a.bins_reason = std::to_string(bins) + " bins of " + std::to_string(c.bin_hours) + " h of the " +
                  period + " (the finest with >= 5 arrivals per bin on average)";
  if (best && candidates.size() > 1) {
    const ProfileCandidate& other = &candidates[0] == best ? candidates[1] : candidates[0];
    if (other.bin_hours > 0)
      a.bins_reason += "; chosen over the " + std::string(other.period_hours == 168 ? "week" : "day") +
                       "'s profile by AIC (" + std::to_string(static_cast<long long>(std::lround(best->aic_gain()))) +
                       " against " + std::to_string(static_cast<long long>(std::lround(other.aic_gain()))) +
                       " relative to a constant rate" +
                       (other.p < alpha ? "" : "; that one is not significant") + ")";
  }
  a.g_statistic = c.g;
  a.degrees_of_freedom = c.df;
  a.p_value = c.p;
  a.profile_chosen = best != nullptr;
  if (!a.profile_chosen) {
    test_trend(a, submit_s, alpha);
    return a;
  }
  // Per-hour rates, each bin's shrunk toward the mean rate by one pseudo-arrival at it (a gamma
  // prior of one arrival): a bin the data left empty gets a small rate, not 0; and their mean
  // as the base rate, so the multipliers average exactly 1.
  std::vector<double> rate(a.period_hours);
  double mean = 0;
  for (int h = 0; h < a.period_hours; ++h) {
    const int b = h / a.bin_hours;
    rate[h] = (c.count[b] + 1.0) / (c.exposure[b] + 1.0 / a.mean_rate_per_s);
    mean += rate[h];
  }
  mean /= a.period_hours;
  a.profile_rate_per_s = mean;
  for (double r : rate) a.multipliers.push_back(r / mean);
  test_trend(a, submit_s, alpha);
  return a;
}

std::vector<double> rotated_profile(const ArrivalFit& a, double start_offset_s) {
  if (!a.profile_chosen) return {};
  const int period = a.period_hours;
  const double hours = std::fmod(start_offset_s / kHour, static_cast<double>(period));
  const int shift = static_cast<int>(std::lround(hours < 0 ? hours + period : hours)) % period;
  std::vector<double> out(static_cast<std::size_t>(period));
  for (int h = 0; h < period; ++h) out[h] = a.multipliers[(h + shift) % period];
  return out;
}

}  // namespace gpucap::fit
