#include "gpucap/fit/maximum_likelihood.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include "gpucap/fit/detail/nelder_mead.hpp"
#include "gpucap/fit/special_functions.hpp"

namespace gpucap::fit {
namespace {

/// Root of a decreasing function g on (lo, hi) with g(lo) > 0 > g(hi): Newton steps (slope
/// from `dg`) kept inside the bracket, bisection when a step would leave it.
double decreasing_root(const std::function<double(double)>& g,
                       const std::function<double(double)>& dg, double lo, double hi, double x) {
  for (int i = 0; i < 200; ++i) {
    const double gx = g(x);
    if (gx > 0)
      lo = x;
    else
      hi = x;
    const double slope = dg(x);
    double next = slope < 0 && std::isfinite(slope) ? x - gx / slope : 0.5 * (lo + hi);
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    if (std::fabs(next - x) <= 1e-13 * x || hi - lo <= 1e-14 * hi) return next;
    x = next;
  }
  return x;
}

/// Expands from x0 until g(lo) > 0 > g(hi) for a decreasing g; false when no sign change
/// within [1e-8, 1e8].
bool bracket(const std::function<double(double)>& g, double x0, double& lo, double& hi) {
  lo = hi = x0;
  while (g(lo) <= 0) {
    lo /= 2;
    if (lo < 1e-8) return false;
  }
  while (g(hi) >= 0) {
    hi *= 2;
    if (hi > 1e8) return false;
  }
  return true;
}

FamilyFit fail(Family family, std::string note) {
  FamilyFit f;
  f.family = family;
  f.note = std::move(note);
  return f;
}

FamilyFit fit_exponential(const RunTimeSample& s) {
  double total = 0;
  for (double t : s.time_s) total += t;
  FamilyFit f;
  f.family = Family::exponential;
  f.params.a = total / static_cast<double>(s.events());
  f.ok = true;
  return f;
}

FamilyFit fit_weibull(const RunTimeSample& s) {
  const double scale = *std::max_element(s.time_s.begin(), s.time_s.end());
  const double d = static_cast<double>(s.events());
  std::vector<double> log_y(s.size());
  double sum_log_y_finished = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    log_y[i] = std::log(s.time_s[i] / scale);  // <= 0, so y^k <= 1: no overflow for any k
    if (!s.censored[i]) sum_log_y_finished += log_y[i];
  }
  // Profile score g(k) = d/k + Σ_finished ln y − d·A/B, A = Σ y^k ln y, B = Σ y^k (all jobs);
  // g' = −d/k² − d·(C·B − A²)/B², C = Σ y^k ln² y; g decreases (Cauchy-Schwarz).
  auto sums = [&](double k, double& a, double& b, double& c) {
    a = b = c = 0;
    for (double ly : log_y) {
      const double w = std::exp(k * ly);
      b += w;
      a += w * ly;
      c += w * ly * ly;
    }
  };
  auto g = [&](double k) {
    double a, b, c;
    sums(k, a, b, c);
    return d / k + sum_log_y_finished - d * a / b;
  };
  auto dg = [&](double k) {
    double a, b, c;
    sums(k, a, b, c);
    return -d / (k * k) - d * (c * b - a * a) / (b * b);
  };
  double lo, hi;
  if (!bracket(g, 1.0, lo, hi))
    return fail(Family::weibull, "no Weibull shape between 1e-8 and 1e8 fits");
  const double k = decreasing_root(g, dg, lo, hi, std::clamp(1.0, lo, hi));
  double a, b, c;
  sums(k, a, b, c);
  FamilyFit f;
  f.family = Family::weibull;
  f.params = {k, scale * std::pow(b / d, 1.0 / k)};
  f.ok = true;
  return f;
}

/// The gamma MLE of uncensored times: Newton on h(k) = ln k − ψ(k) − s = 0, s = ln(mean) −
/// mean(ln t) > 0. Returns false when s is not positive (all times equal).
bool gamma_uncensored(const std::vector<double>& t, FamilyParams& out) {
  double mean = 0, mean_log = 0;
  for (double x : t) mean += x, mean_log += std::log(x);
  mean /= static_cast<double>(t.size());
  mean_log /= static_cast<double>(t.size());
  const double s = std::log(mean) - mean_log;
  if (!(s > 1e-14)) return false;
  const double k0 = (3.0 - s + std::sqrt((s - 3.0) * (s - 3.0) + 24.0 * s)) / (12.0 * s);
  auto h = [&](double k) { return std::log(k) - digamma(k) - s; };
  auto dh = [&](double k) { return 1.0 / k - trigamma(k); };
  double lo, hi;
  if (!bracket(h, k0, lo, hi)) return false;
  const double k = decreasing_root(h, dh, lo, hi, std::clamp(k0, lo, hi));
  out = {k, mean / k};
  return true;
}

FamilyFit fit_gamma(const RunTimeSample& s) {
  FamilyFit f;
  f.family = Family::gamma;
  // Without censoring the profile equation; with it, its answer for all times (as if finished)
  // starts a 2-D search.
  if (!gamma_uncensored(s.time_s, f.params))
    return fail(Family::gamma, "the times are all equal; no gamma fits");
  if (s.events() < s.size()) {
    auto nll = [&](const detail::Point2& x) {
      return -log_likelihood(Family::gamma, {std::exp(x[0]), std::exp(x[1])}, s) /
             static_cast<double>(s.size());
    };
    const auto r =
        detail::nelder_mead(nll, {std::log(f.params.a), std::log(f.params.b)}, {0.3, 0.3});
    f.params = {std::exp(r.x[0]), std::exp(r.x[1])};
  }
  f.ok = true;
  return f;
}

FamilyFit fit_lognormal(const RunTimeSample& s) {
  double mu = 0, var = 0;
  for (double t : s.time_s) mu += std::log(t);
  mu /= static_cast<double>(s.size());
  for (double t : s.time_s) var += (std::log(t) - mu) * (std::log(t) - mu);
  var /= static_cast<double>(s.size());
  if (!(var > 0)) return fail(Family::lognormal, "the times are all equal; no lognormal fits");
  FamilyFit f;
  f.family = Family::lognormal;
  f.params = {mu, std::sqrt(var)};
  if (s.events() < s.size()) {
    auto nll = [&](const detail::Point2& x) {
      return -log_likelihood(Family::lognormal, {x[0], std::exp(x[1])}, s) /
             static_cast<double>(s.size());
    };
    const auto r = detail::nelder_mead(nll, {mu, std::log(f.params.b)}, {0.5, 0.3});
    f.params = {r.x[0], std::exp(r.x[1])};
  }
  f.ok = true;
  return f;
}

}  // namespace

double log_likelihood(Family family, const FamilyParams& params, const RunTimeSample& sample) {
  double sum = 0;
  for (std::size_t i = 0; i < sample.size(); ++i)
    sum += sample.censored[i] ? log_sf(family, params, sample.time_s[i])
                              : log_pdf(family, params, sample.time_s[i]);
  return sum;
}

FamilyFit fit_family(Family family, const RunTimeSample& sample) {
  const std::size_t finished = sample.events();
  if (finished == 0) return fail(family, "no job finished (all censored)");
  if (family != Family::exponential) {
    std::set<double> distinct;
    for (std::size_t i = 0; i < sample.size() && distinct.size() < 2; ++i)
      if (!sample.censored[i]) distinct.insert(sample.time_s[i]);
    if (distinct.size() < 2) return fail(family, "needs at least 2 distinct finished run times");
  }
  FamilyFit f;
  switch (family) {
    case Family::exponential:
      f = fit_exponential(sample);
      break;
    case Family::lognormal:
      f = fit_lognormal(sample);
      break;
    case Family::gamma:
      f = fit_gamma(sample);
      break;
    case Family::weibull:
      f = fit_weibull(sample);
      break;
  }
  if (!f.ok) return f;
  f.log_likelihood = log_likelihood(family, f.params, sample);
  if (!std::isfinite(f.log_likelihood) || !std::isfinite(f.params.a) ||
      (family != Family::exponential && !std::isfinite(f.params.b)))
    return fail(family, "the likelihood has no finite maximum for this sample");
  f.aic = 2.0 * parameter_count(family) - 2.0 * f.log_likelihood;
  return f;
}

}  // namespace gpucap::fit
