#include "gpucap/fit/goodness_of_fit.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace gpucap::fit {

double ks_statistic(const RunTimeSample& sample, const std::function<double(double)>& cdf) {
  double d = 0;
  for (const KaplanMeierStep& step : kaplan_meier(sample)) {
    const double f = cdf(step.time_s);
    d = std::max({d, std::fabs(f - step.cdf_before), std::fabs(f - step.cdf_after)});
  }
  return d;
}

double ks_p_value(double d, std::size_t n) {
  if (n == 0 || !(d > 0)) return 1.0;
  const double rn = std::sqrt(static_cast<double>(n));
  const double lambda = (rn + 0.12 + 0.11 / rn) * d;
  if (lambda < 0.2) return 1.0;
  constexpr double kPi = 3.14159265358979323846;
  if (lambda < 1.18) {
    // Jacobi's form: P(K <= λ) = √(2π)/λ Σ_{k>=1} exp(−(2k−1)² π² / (8λ²)).
    double sum = 0;
    for (int k = 1; k <= 20; ++k)
      sum += std::exp(-(2.0 * k - 1) * (2.0 * k - 1) * kPi * kPi / (8 * lambda * lambda));
    return std::clamp(1.0 - std::sqrt(2 * kPi) / lambda * sum, 0.0, 1.0);
  }
  double sum = 0, sign = 1;
  for (int k = 1; k <= 100; ++k, sign = -sign) {
    const double term = std::exp(-2.0 * k * k * lambda * lambda);
    sum += sign * term;
    if (term < 1e-300) break;
  }
  return std::clamp(2.0 * sum, 0.0, 1.0);
}

double anderson_darling_statistic(const RunTimeSample& sample,
                                  const std::function<double(double)>& cdf,
                                  const std::function<double(double)>& sf) {
  std::vector<double> x = sample.time_s;
  std::sort(x.begin(), x.end());
  const std::size_t n = x.size();
  if (n == 0) return 0;
  constexpr double kFloor = 1e-300;
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double weight = 2.0 * static_cast<double>(i) + 1.0;
    sum += weight *
           (std::log(std::max(cdf(x[i]), kFloor)) + std::log(std::max(sf(x[n - 1 - i]), kFloor)));
  }
  return -static_cast<double>(n) - sum / static_cast<double>(n);
}

double anderson_darling_p_value(double a) {
  if (!(a > 0)) return 1.0;
  if (a < 2.0) {
    const double cdf =
        std::exp(-1.2337141 / a) / std::sqrt(a) *
        (2.00012 +
         (0.247105 - (0.0649821 - (0.0347962 - (0.011672 - 0.00168691 * a) * a) * a) * a) * a);
    return std::clamp(1.0 - cdf, 0.0, 1.0);
  }
  // P(A² <= a) = exp(−exp(c(a))): the upper tail is −expm1(−exp(c)), exact far out.
  const double c =
      1.0776 - (2.30695 - (0.43424 - (0.082433 - (0.008056 - 0.0003146 * a) * a) * a) * a) * a;
  return std::clamp(-std::expm1(-std::exp(c)), 0.0, 1.0);
}

}  // namespace gpucap::fit
