#include "gpucap/fit/run_time_model.hpp"

#include <cmath>
#include <cstdio>

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

RunTimeModel choose_run_time_model(const RunTimeSample& sample, RunTimeChoice choice) {
  RunTimeModel m;
  m.jobs = sample.size();
  m.finished = sample.events();
  for (Family f : kFamilies) m.candidates.push_back(assess(sample, f));

  auto use_empirical = [&](std::string reason) {
    m.empirical = true;
    m.values = kaplan_meier_values(sample, sample.size());
    m.reason = std::move(reason);
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
