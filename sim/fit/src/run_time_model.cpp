#include "gpucap/fit/run_time_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gpucap/fit/distribution_family.hpp"
#include "gpucap/fit/goodness_of_fit.hpp"

namespace gpucap::fit {
namespace {

std::string number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4g", v);
  return buffer;
}

std::string out_of_range(const char* what, double v, double lo, double hi, const char* unit) {
  if (v < lo)
    return std::string(what) + " " + number(v) + unit + " is below the format's " + number(lo) +
           unit;
  if (v > hi)
    return std::string(what) + " " + number(v) + unit + " is above the format's " + number(hi) +
           unit;
  return "";
}

CandidateFit assess(const RunTimeSample& sample, Family family) {
  CandidateFit c;
  c.fit = fit_family(family, sample);
  if (!c.fit.ok) return c;
  c.unwritable = unwritable_reason(family, c.fit.params);
  const FamilyParams p = c.fit.params;
  c.ks_d = ks_statistic(sample, [&](double t) { return cdf(family, p, t); });
  c.ks_p = ks_p_value(c.ks_d, sample.events());
  if (sample.events() == sample.size()) {
    c.ad = anderson_darling_statistic(
        sample, [&](double t) { return cdf(family, p, t); },
        [&](double t) { return sf(family, p, t); });
    c.ad_p = anderson_darling_p_value(c.ad);
  }
  return c;
}

bool usable(const CandidateFit& c) { return c.fit.ok && c.unwritable.empty(); }

}  // namespace

std::string unwritable_reason(Family family, const FamilyParams& p) {
  switch (family) {
    case Family::exponential:
      return out_of_range("mean", p.a, kMinDurationS, kMaxDurationS, " s");
    case Family::lognormal: {
      std::string r = out_of_range("sigma", p.b, 1e-3, 10, "");
      return r.empty() ? out_of_range("median", std::exp(p.a), kMinDurationS, kMaxDurationS, " s")
                       : r;
    }
    case Family::gamma:
    case Family::weibull: {
      std::string r = out_of_range("shape", p.a, 1e-2, 1e3, "");
      return r.empty() ? out_of_range("scale", p.b, kMinDurationS, kMaxDurationS, " s") : r;
    }
  }
  return "";
}

double mean_residual_life(const RunTimeModel& m, double t) {
  const CandidateFit* best = nullptr;
  for (const CandidateFit& c : m.candidates)
    if (c.fit.ok && c.unwritable.empty() && (!best || c.fit.aic < best->fit.aic)) best = &c;
  if (!best || !(t > 0)) return t > 0 ? t : 1.0;
  const double s0 = sf(best->fit.family, best->fit.params, t);
  if (!(s0 > 0)) return t;
  double area = 0, u = t, su = s0;
  for (int i = 0; i < 4000 && su > 1e-9 * s0; ++i) {
    const double next = u * 1.01 + 1e-3;
    const double sn = sf(best->fit.family, best->fit.params, next);
    area += 0.5 * (su + sn) * (next - u);
    u = next;
    su = sn;
  }
  const double mean = area / s0;
  return std::isfinite(mean) && mean > 0 ? std::min(mean, kMaxDurationS / 2) : t;
}

void add_tail_for_survivors(RunTimeModel& m, const std::vector<double>& ages_at_end_s) {
  if (!m.empirical || m.values.empty() || m.tail_probability > 0) return;
  const double largest = *std::max_element(m.values.begin(), m.values.end());
  const std::size_t survivors = static_cast<std::size_t>(std::count_if(
      ages_at_end_s.begin(), ages_at_end_s.end(), [&](double age) { return age >= largest; }));
  if (survivors == 0) return;
  const double n = static_cast<double>(m.values.size());
  m.tail_probability = static_cast<double>(survivors) / (n + static_cast<double>(survivors));
  m.tail_mean_s = mean_residual_life(m, largest);
  m.reason += "; " + std::to_string(survivors) +
              " instance(s) running at the log's end are at least as old as the longest "
              "lifetime (" + number(largest) + " s): a tail of " +
              number(m.tail_probability * 100) + "% beyond it, of mean excess " +
              number(m.tail_mean_s) + " s, so that each has a rest";
}

RunTimeModel choose_run_time_model(const RunTimeSample& sample, RunTimeChoice choice) {
  RunTimeModel m;
  m.jobs = sample.size();
  m.finished = sample.events();
  for (Family f : kFamilies) m.candidates.push_back(assess(sample, f));

  auto use_empirical = [&](std::string reason) {
    m.empirical = true;
    m.reason = std::move(reason);
    // The Kaplan-Meier body, and its tail beyond the last finished job when censored lifetimes
    // outlast it: so that an instance older than every observed lifetime still has a rest.
    double body = 1;
    m.values = kaplan_meier_body_values(sample, sample.size(), body);
    if (m.values.empty()) {
      m.values = kaplan_meier_values(sample, sample.size());
      return;
    }
    if (body < 1 - 1e-12) {
      m.tail_probability = 1 - body;
      m.tail_mean_s = mean_residual_life(m, m.values.back());
      m.reason += "; the " + number(m.tail_probability * 100) +
                  "% of lifetimes beyond the longest observed one (" +
                  number(m.values.back()) + " s) as a tail of mean excess " +
                  number(m.tail_mean_s) + " s";
    }
  };
  auto use_family = [&](Family f, std::string reason) {
    const CandidateFit& c = m.candidates[static_cast<std::size_t>(f)];
    m.empirical = false;
    m.family = f;
    m.params = c.fit.params;
    m.reason = std::move(reason);
  };

  if (m.finished == 0) {
    m.values = sample.time_s;
    m.empirical = true;
    m.reason = "fallback: no job finished (all " + std::to_string(m.jobs) +
               " censored), so no distribution can be fit; the empirical distribution of the "
               "lower bounds understates run times";
    m.warnings.push_back(m.reason);
    return m;
  }
  if (choice == RunTimeChoice::empirical) {
    use_empirical("empirical, as asked (--family empirical)");
    return m;
  }
  if (choice != RunTimeChoice::automatic) {
    const Family f = static_cast<Family>(static_cast<int>(choice) - 1);
    const CandidateFit& c = m.candidates[static_cast<std::size_t>(f)];
    if (usable(c)) {
      use_family(f, std::string(family_name(f)) + ", as asked (--family)");
      return m;
    }
    m.warnings.push_back(std::string("--family ") + family_name(f) + " cannot be used: " +
                         (c.fit.ok ? c.unwritable : c.fit.note) + "; chose by AIC instead");
  }

  const CandidateFit* best = nullptr;
  for (const CandidateFit& c : m.candidates)
    if (usable(c) && (!best || c.fit.aic < best->fit.aic)) best = &c;
  if (!best) {  // cannot happen while exponential is writable; a mean out of range can
    use_empirical("fallback: no family could be fit and written (" + m.candidates[0].fit.note +
                  m.candidates[0].unwritable + ")");
    m.warnings.push_back(m.reason);
    return m;
  }
  const bool two_parameter_failed = !m.candidates[1].fit.ok && !m.candidates[3].fit.ok;
  if (best->fit.family == Family::exponential && two_parameter_failed) {
    use_family(Family::exponential, "fallback: exponential, the only family estimable from " +
                                        std::to_string(m.finished) + " finished job(s) (" +
                                        m.candidates[1].fit.note + ")");
    m.warnings.push_back(m.reason);
    return m;
  }
  const double critical = 1.628 / std::sqrt(static_cast<double>(m.finished));  // KS at 1%
  if (m.finished >= kEmpiricalMinFinished && best->ks_d > critical) {
    use_empirical("empirical: the best family by AIC (" +
                  std::string(family_name(best->fit.family)) + ") fails KS at 1% (D " +
                  number(best->ks_d) + " > " + number(critical) + ") with " +
                  std::to_string(m.finished) + " finished jobs");
    return m;
  }
  use_family(
      best->fit.family,
      std::string(family_name(best->fit.family)) + ": lowest AIC of the families" +
          (m.finished >= kEmpiricalMinFinished ? ", and it passes KS at 1%"
                                               : " (fewer than 500 finished jobs: empirical not "
                                                 "considered)"));
  return m;
}

}  // namespace gpucap::fit
