// gpucap fitting: the parametric run-time families and their densities, CDFs and survival
// functions, in the parameterizations the fits estimate.
//
//   family        a                b
//   exponential   mean (s)         –
//   lognormal     μ = ln median    σ (of ln t)
//   gamma         shape k          scale θ (s)
//   weibull       shape k          scale λ (s)
//
// Every function takes a time t in seconds, t > 0.
#pragma once
#include <string>

namespace gpucap::fit {

enum class Family { exponential, lognormal, gamma, weibull };

constexpr Family kFamilies[] = {Family::exponential, Family::lognormal, Family::gamma,
                                Family::weibull};

/// "exponential", "lognormal", "gamma", "weibull": the scenario format's `dist` names.
const char* family_name(Family family);

/// Number of free parameters (1 for exponential, 2 for the others), for the AIC.
int parameter_count(Family family);

struct FamilyParams {
  double a = 0;  ///< see the table above
  double b = 0;
};

double log_pdf(Family family, const FamilyParams& p, double t);
/// ln P(T > t), finite far in the tails (used for censored jobs).
double log_sf(Family family, const FamilyParams& p, double t);
double cdf(Family family, const FamilyParams& p, double t);
/// P(T > t), computed directly (not 1 − cdf) so that it keeps its precision in the upper tail.
double sf(Family family, const FamilyParams& p, double t);

/// The parameters for people: "mean 3600 s", "median 874 s, sigma 2.1", "shape 0.6, scale 2000 s".
std::string describe(Family family, const FamilyParams& p);

}  // namespace gpucap::fit
