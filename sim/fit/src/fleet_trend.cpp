#include "gpucap/fit/fleet_trend.hpp"

#include <algorithm>
#include <cmath>
#include <vector>


namespace gpucap::fit {

FleetTrend fleet_trend(const JobTrace& trace) {
  constexpr double kDayS = 86400.0;
  FleetTrend out;
  const double whole = std::floor(trace.window_s / kDayS);
  if (!trace.instances || whole < 7 || whole > 100000) return out;
  const std::size_t days = static_cast<std::size_t>(whole);
  const double end_s = whole * kDayS;
  std::vector<double> gpu_s(days, 0.0);
  // GPU-seconds of [from, to) (clipped to [0, end)) into the days it overlaps.
  const auto add = [&](double from, double to, double gpus) {
    from = std::max(from, 0.0);
    to = std::min(to, end_s);
    for (double t = from; t < to;) {
      const std::size_t d = static_cast<std::size_t>(t / kDayS);
      const double edge = std::min(to, (static_cast<double>(d) + 1) * kDayS);
      gpu_s[std::min(d, days - 1)] += gpus * (edge - t);
      t = edge;
    }
  };
  for (const JobClass& c : trace.classes) {
    for (const AliveInstance& a : c.alive_at_start) add(0, a.remaining_s, a.gpus);
    // The lives of the instances created in the window, each from its start (instances whose
    // life was too short to observe have none).
    const RunTimeSample& s = c.run_times;
    for (std::size_t k = 0; k < s.size() && k < c.run_time_submit_s.size(); ++k)
      add(c.run_time_submit_s[k], c.run_time_submit_s[k] + s.time_s[k], c.gpus);
  }
  std::vector<double> y;
  for (double g : gpu_s) {
    if (!(g > 0)) return out;  // a day with nothing in use: no log level
    y.push_back(std::log(g / kDayS));
  }
  out.tested = true;
  out.days = days;
  const double n = static_cast<double>(days);
  double mx = 0, my = 0;
  for (std::size_t d = 0; d < days; ++d) mx += d, my += y[d];
  mx /= n;
  my /= n;
  double sxx = 0, sxy = 0;
  for (std::size_t d = 0; d < days; ++d) {
    sxx += (d - mx) * (d - mx);
    sxy += (d - mx) * (y[d] - my);
  }
  const double slope = sxy / sxx, intercept = my - slope * mx;
  // Residuals, and their lag-1 autocorrelation ρ: instances live for days, so neighbouring
  // days' means move together, and the slope's standard error grows by sqrt((1 + ρ) / (1 - ρ)).
  std::vector<double> r(days);
  double rss = 0, lag = 0;
  for (std::size_t d = 0; d < days; ++d) {
    r[d] = y[d] - intercept - slope * static_cast<double>(d);
    rss += r[d] * r[d];
    if (d) lag += r[d] * r[d - 1];
  }
  const double rho = rss > 0 ? std::clamp(lag / rss, 0.0, 0.9) : 0.0;
  const double se = std::sqrt(rss / (n - 2) / sxx * (1 + rho) / (1 - rho));
  out.t_statistic = se > 0 ? slope / se : (slope == 0 ? 0.0 : HUGE_VAL);
  out.per_week = std::expm1(7 * slope);
  out.first_level = std::exp(intercept);
  out.last_level = std::exp(intercept + slope * (n - 1));
  out.significant = std::fabs(out.t_statistic) > 3 && std::fabs(out.per_week) >= 0.05;
  return out;
}

}  // namespace gpucap::fit
