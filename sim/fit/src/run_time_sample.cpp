#include "gpucap/fit/run_time_sample.hpp"

#include <algorithm>
#include <numeric>

namespace gpucap::fit {

std::size_t RunTimeSample::events() const {
  std::size_t n = 0;
  for (uint8_t c : censored) n += c == 0;
  return n;
}

std::vector<KaplanMeierStep> kaplan_meier(const RunTimeSample& sample) {
  const std::size_t n = sample.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return sample.time_s[a] < sample.time_s[b]; });
  std::vector<KaplanMeierStep> steps;
  double survival = 1.0;
  std::size_t i = 0;
  while (i < n) {
    const double t = sample.time_s[order[i]];
    const std::size_t at_risk = n - i;
    std::size_t finished = 0, j = i;
    for (; j < n && sample.time_s[order[j]] == t; ++j) finished += sample.censored[order[j]] == 0;
    if (finished > 0) {
      const double before = 1.0 - survival;
      survival *= 1.0 - static_cast<double>(finished) / static_cast<double>(at_risk);
      steps.push_back({t, before, 1.0 - survival});
    }
    i = j;
  }
  return steps;
}

std::vector<double> kaplan_meier_values(const RunTimeSample& sample, std::size_t count) {
  const std::vector<KaplanMeierStep> steps = kaplan_meier(sample);
  const double largest =
      sample.size() ? *std::max_element(sample.time_s.begin(), sample.time_s.end()) : 0.0;
  std::vector<double> out;
  out.reserve(count);
  std::size_t s = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const double p = (static_cast<double>(i) + 0.5) / static_cast<double>(count);
    while (s < steps.size() && steps[s].cdf_after < p) ++s;
    out.push_back(s < steps.size() ? steps[s].time_s : largest);
  }
  return out;
}

std::vector<double> kaplan_meier_body_values(const RunTimeSample& sample, std::size_t count,
                                             double& body) {
  const std::vector<KaplanMeierStep> steps = kaplan_meier(sample);
  body = steps.empty() ? 0.0 : steps.back().cdf_after;
  std::vector<double> out;
  if (steps.empty()) return out;
  out.reserve(count);
  std::size_t s = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const double p = (static_cast<double>(i) + 0.5) / static_cast<double>(count) * body;
    while (s + 1 < steps.size() && steps[s].cdf_after < p) ++s;
    out.push_back(steps[s].time_s);
  }
  return out;
}

}  // namespace gpucap::fit
