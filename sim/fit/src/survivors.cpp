// gpucap fitting: expected survivors of the instances running at a forecast's start, by the
// fitted lifetime and by the log's own survival curve (see survivors.hpp).
#include "gpucap/fit/survivors.hpp"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "gpucap/fit/distribution_family.hpp"

namespace gpucap::fit {
namespace {

/// The log's Kaplan-Meier curve with delayed entry: event times and S just after each.
struct DelayedEntryCurve {
  std::vector<double> time_s, survival;
  double oldest_s = 0;  ///< the oldest age any instance was seen at: the curve's reach

  double at(double t) const {
    const auto it = std::upper_bound(time_s.begin(), time_s.end(), t);
    return it == time_s.begin() ? 1.0 : survival[static_cast<std::size_t>(it - time_s.begin()) - 1];
  }
};

DelayedEntryCurve delayed_entry_curve(const JobClass& c, double window_s) {
  struct Span {
    double entry, exit;
    bool event;
  };
  std::vector<Span> spans;
  const RunTimeSample& s = c.run_times;  // created in the window: entry at age 0
  for (std::size_t i = 0; i < s.size(); ++i) spans.push_back({0.0, s.time_s[i], s.censored[i] == 0});
  for (const AliveInstance& a : c.alive_at_start) {  // already running: entry at their age
    if (std::isnan(a.age_s)) continue;               // no start: its age is unknown
    const bool ended = a.remaining_s != HUGE_VAL;
    // Still running at the log's end: censored at its age then.
    spans.push_back({a.age_s, a.age_s + (ended ? a.remaining_s : window_s), ended});
  }
  DelayedEntryCurve curve;
  std::vector<double> events;
  for (const Span& sp : spans) {
    if (sp.event) events.push_back(sp.exit);
    if (std::isfinite(sp.exit)) curve.oldest_s = std::max(curve.oldest_s, sp.exit);
  }
  std::sort(events.begin(), events.end());
  double survival = 1;
  for (std::size_t i = 0; i < events.size();) {
    const double t = events[i];
    std::size_t d = 0;
    while (i < events.size() && events[i] == t) ++d, ++i;
    std::size_t at_risk = 0;
    for (const Span& sp : spans) at_risk += sp.entry < t && t <= sp.exit;
    if (at_risk == 0) continue;
    survival *= 1.0 - static_cast<double>(d) / static_cast<double>(at_risk);
    curve.time_s.push_back(t);
    curve.survival.push_back(survival);
  }
  return curve;
}

}  // namespace

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

SurvivorCheck expected_survivors(const JobClass& c, const RunTimeModel& m, double window_s,
                                 double after_s) {
  SurvivorCheck out;
  out.after_s = after_s;
  out.running = c.age_at_end_s.size();
  const DelayedEntryCurve curve = delayed_entry_curve(c, window_s);
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

RunTimeModel delayed_entry_model(const JobClass& c, double window_s, std::size_t count,
                                 const RunTimeModel& fitted) {
  RunTimeModel m = fitted;
  m.empirical = true;
  m.values.clear();
  m.tail_probability = 0;
  m.tail_mean_s = 0;
  const DelayedEntryCurve curve = delayed_entry_curve(c, window_s);
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
