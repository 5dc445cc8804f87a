// gpucap: Clopper-Pearson and Wilson intervals (see binomial_interval.hpp).
#include "gpucap/binomial_interval.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace gpucap {
namespace {

/// Continued fraction of I_x(a, b) (Lentz's method), for x < (a + 1) / (a + b + 2) where it
/// converges in O(sqrt(max(a, b))) terms.
double beta_fraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  constexpr double kEps = 1e-16;
  const double qab = a + b, qap = a + 1, qam = a - 1;
  double c = 1, d = 1 - qab * x / qap;
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double h = d;
  // Terms needed grow as sqrt(a + b); 10^9 trials need about 10^5.
  const int max_terms = 1000 + static_cast<int>(20 * std::sqrt(qab));
  for (int m = 1; m <= max_terms; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1) < kEps) break;
  }
  return h;
}

void check_counts(uint64_t successes, uint64_t trials, double confidence) {
  if (trials == 0 || successes > trials)
    throw std::invalid_argument("binomial interval: " + std::to_string(successes) +
                                " successes in " + std::to_string(trials) +
                                " trials (need 1 or more trials and at most as many successes)");
  if (!(confidence > 0 && confidence < 1))
    throw std::invalid_argument("binomial interval: confidence must be between 0 and 1");
}

/// The p in (0, 1) where I_p(a, b) = y, by bisection (I_p rises with p): 200 halvings reach the
/// spacing of doubles near the root.
double inverse_incomplete_beta(double a, double b, double y) {
  double lo = 0, hi = 1;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (mid <= lo || mid >= hi) break;
    if (regularized_incomplete_beta(a, b, mid) < y)
      lo = mid;
    else
      hi = mid;
  }
  return 0.5 * (lo + hi);
}

}  // namespace

double regularized_incomplete_beta(double a, double b, double x) {
  if (!(a > 0 && b > 0) || !(x >= 0 && x <= 1))
    throw std::invalid_argument("regularized_incomplete_beta: needs a, b > 0 and 0 <= x <= 1");
  if (x == 0) return 0;
  if (x == 1) return 1;
  const double log_front =
      std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  const double front = std::exp(log_front);
  if (x < (a + 1) / (a + b + 2)) return front * beta_fraction(a, b, x) / a;
  return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

double normal_quantile(double p) {
  if (!(p > 0 && p < 1)) throw std::invalid_argument("normal_quantile: needs 0 < p < 1");
  // Acklam's rational approximation (relative error 1.15e-9), then one Halley step on erfc.
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                             1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01,  -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  double x;
  if (p < 0.02425) {
    const double q = std::sqrt(-2 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p <= 1 - 0.02425) {
    const double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    const double q = std::sqrt(-2 * std::log1p(-p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  const double e = 0.5 * std::erfc(-x / std::sqrt(2.0)) - p;
  const double u = e * std::sqrt(2 * 3.14159265358979323846) * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

BinomialInterval clopper_pearson_interval(uint64_t successes, uint64_t trials, double confidence) {
  check_counts(successes, trials, confidence);
  const double alpha = 1 - confidence;
  const double x = static_cast<double>(successes), n = static_cast<double>(trials);
  BinomialInterval r;
  if (successes == 0) {
    r.low = 0;
  } else if (successes == trials) {
    r.low = std::pow(alpha / 2, 1 / n);
  } else {
    r.low = inverse_incomplete_beta(x, n - x + 1, alpha / 2);
  }
  if (successes == trials) {
    r.high = 1;
  } else if (successes == 0) {
    r.high = 1 - std::pow(alpha / 2, 1 / n);
  } else {
    r.high = inverse_incomplete_beta(x + 1, n - x, 1 - alpha / 2);
  }
  return r;
}

BinomialInterval wilson_interval(uint64_t successes, uint64_t trials, double confidence) {
  check_counts(successes, trials, confidence);
  const double z = normal_quantile(1 - (1 - confidence) / 2);
  const double n = static_cast<double>(trials), p = static_cast<double>(successes) / n;
  const double z2n = z * z / n;
  const double center = (p + z2n / 2) / (1 + z2n);
  const double half = z / (1 + z2n) * std::sqrt(p * (1 - p) / n + z2n / (4 * n));
  BinomialInterval r;
  r.low = successes == 0 ? 0 : std::max(0.0, center - half);
  r.high = successes == trials ? 1 : std::min(1.0, center + half);
  return r;
}

}  // namespace gpucap
