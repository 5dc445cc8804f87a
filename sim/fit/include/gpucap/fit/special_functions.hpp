// gpucap fitting: the special functions that maximum likelihood and goodness-of-fit tests need.
//
// Host code only (not the portable core): doubles, std::lgamma and std::erfc. Each function is
// accurate to about 1e-13 relative in its documented domain and returns logarithms where the
// value itself would underflow (survival functions far in a tail).
#pragma once

namespace gpucap::fit {

/// ψ(x) = d/dx ln Γ(x), for x > 0 (recurrence up to x >= 10, then the asymptotic series).
double digamma(double x);

/// ψ'(x), for x > 0.
double trigamma(double x);

/// ln P(a, x) and ln Q(a, x) = ln(1 − P(a, x)): the logarithms of the regularized lower and
/// upper incomplete gamma functions, for a > 0, x >= 0 (series for x < a + 1, Lentz's continued
/// fraction otherwise, so ln Q stays finite far in the upper tail). P(a, 0) = 0: ln P = −inf.
double log_gamma_p(double a, double x);
double log_gamma_q(double a, double x);

/// Φ(z), the standard normal CDF, and ln(1 − Φ(z)), finite for every finite z.
double normal_cdf(double z);
double log_normal_sf(double z);

/// P(X > x) for X chi-square with `df` > 0 degrees of freedom; 1 for x <= 0.
double chi_square_sf(double x, double df);

}  // namespace gpucap::fit
