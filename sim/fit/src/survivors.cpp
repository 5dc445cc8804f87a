// gpucap fitting: expected survivors of the instances running at a forecast's start, by the
// fitted lifetime and by the log's own survival curve (see survivors.hpp).
#include "gpucap/fit/survivors.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "gpucap/fit/distribution_family.hpp"

namespace gpucap::fit {

double LogSurvival::at(double t) const {
  const auto it = std::upper_bound(time_s.begin(), time_s.end(), t);
  return it == time_s.begin() ? 1.0 : survival[static_cast<std::size_t>(it - time_s.begin()) - 1];
}

LogSurvival log_survival(const JobClass& c, double window_s) {
  // Each instance's span of ages in the risk set, (entry, exit], and whether exit is an end.
  std::vector<double> entries, exits, events;
  const auto add = [&](double entry, double exit, bool event) {
    entries.push_back(entry);
    exits.push_back(exit);
    if (event) events.push_back(exit);
  };
  const RunTimeSample& s = c.run_times;  // created in the window: entry at age 0
  for (std::size_t i = 0; i < s.size(); ++i) add(0.0, s.time_s[i], s.censored[i] == 0);
  for (const AliveInstance& a : c.alive_at_start) {  // already running: entry at their age
    if (std::isnan(a.age_s)) continue;               // no start: its age is unknown
    // An end after the window (or none) is not seen: censored at the window's end.
    const bool ended = a.remaining_s <= window_s;
    add(a.age_s, a.age_s + (ended ? a.remaining_s : window_s), ended);
  }
  LogSurvival curve;
  for (const double exit : exits)
    if (std::isfinite(exit)) curve.oldest_s = std::max(curve.oldest_s, exit);
  std::sort(entries.begin(), entries.end());
  std::sort(exits.begin(), exits.end());
  std::sort(events.begin(), events.end());
  double survival = 1;
  for (std::size_t i = 0; i < events.size();) {
    const double t = events[i];
    std::size_t d = 0;
    while (i < events.size() && events[i] == t) ++d, ++i;
    // At risk at t: entry < t <= exit, i.e. #(entry < t) - #(exit < t) (entry <= exit).
    const std::size_t entered = static_cast<std::size_t>(
        std::lower_bound(entries.begin(), entries.end(), t) - entries.begin());
    const std::size_t left = static_cast<std::size_t>(
        std::lower_bound(exits.begin(), exits.end(), t) - exits.begin());
    const std::size_t at_risk = entered - left;
    if (at_risk == 0) continue;
    survival *= 1.0 - static_cast<double>(d) / static_cast<double>(at_risk);
    curve.time_s.push_back(t);
    curve.survival.push_back(survival);
  }
  return curve;
}

double model_survival(const RunTimeModel& m, double t_s) {
  if (!m.empirical) return sf(m.family, m.params, t_s);
  if (m.values.empty()) return 0;
  const double largest = *std::max_element(m.values.begin(), m.values.end());
  const std::size_t above = static_cast<std::size_t>(
      std::count_if(m.values.begin(), m.values.end(), [&](double v) { return v > t_s; }));
  double s = (1 - m.tail_probability) * static_cast<double>(above) /
             static_cast<double>(m.values.size());
  if (m.tail_probability > 0)
    s += m.tail_probability *
         (t_s < largest ? 1.0 : std::exp(-(t_s - largest) / std::max(m.tail_mean_s, 1e-9)));
  return s;
}

SurvivorCheck expected_survivors(const JobClass& c, const LogSurvival& curve,
                                 const RunTimeModel& m, double after_s) {
  SurvivorCheck out;
  out.after_s = after_s;
  out.running = c.age_at_end_s.size();
  for (double age : c.age_at_end_s) {
    const double s_age = model_survival(m, age);
    const double model = s_age > 0 ? model_survival(m, age + after_s) / s_age : 0.0;
    out.model += model;
    if (age + after_s <= curve.oldest_s) {
      const double k_age = curve.at(age);
      if (k_age > 0) {
        ++out.covered;
        out.log += curve.at(age + after_s) / k_age;
        out.model_covered += model;
      }
    }
  }
  return out;
}

bool survivors_disagree(const SurvivorCheck& c) {
  if (c.covered < 5) return false;
  const double n = static_cast<double>(c.covered);
  const double p = std::clamp(c.log / n, 0.0, 1.0);
  return std::fabs(c.model_covered - c.log) > 3 * std::sqrt(n * p * (1 - p)) + 1;
}

RunTimeModel delayed_entry_model(const LogSurvival& curve, std::size_t count,
                                 const RunTimeModel& fitted) {
  RunTimeModel m = fitted;
  m.empirical = true;
  m.values.clear();
  m.tail_probability = 0;
  m.tail_mean_s = 0;
  if (curve.time_s.empty() || count == 0) return m;
  const double body = 1 - curve.survival.back();
  std::size_t s = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const double p = (static_cast<double>(i) + 0.5) / static_cast<double>(count) * body;
    while (s + 1 < curve.time_s.size() && 1 - curve.survival[s] < p) ++s;
    m.values.push_back(curve.time_s[s]);
  }
  if (curve.survival.back() > 1e-12) {
    m.tail_probability = curve.survival.back();
    m.tail_mean_s = mean_residual_life(fitted, curve.time_s.back());
  }
  return m;
}

}  // namespace gpucap::fit
