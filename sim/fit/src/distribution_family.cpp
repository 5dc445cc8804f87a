#include "gpucap/fit/distribution_family.hpp"

#include <cmath>
#include <cstdio>

#include "gpucap/fit/special_functions.hpp"

namespace gpucap::fit {
namespace {
constexpr double kLogSqrt2Pi = 0.91893853320467274178;
}

const char* family_name(Family family) {
  switch (family) {
    case Family::exponential:
      return "exponential";
    case Family::lognormal:
      return "lognormal";
    case Family::gamma:
      return "gamma";
    case Family::weibull:
      return "weibull";
  }
  return "?";
}

int parameter_count(Family family) { return family == Family::exponential ? 1 : 2; }

double log_pdf(Family family, const FamilyParams& p, double t) {
  switch (family) {
    case Family::exponential:
      return -std::log(p.a) - t / p.a;
    case Family::lognormal: {
      const double z = (std::log(t) - p.a) / p.b;
      return -std::log(t * p.b) - kLogSqrt2Pi - 0.5 * z * z;
    }
    case Family::gamma:
      return (p.a - 1.0) * std::log(t) - t / p.b - std::lgamma(p.a) - p.a * std::log(p.b);
    case Family::weibull: {
      const double y = t / p.b;
      return std::log(p.a / p.b) + (p.a - 1.0) * std::log(y) - std::pow(y, p.a);
    }
  }
  return 0;
}

double log_sf(Family family, const FamilyParams& p, double t) {
  switch (family) {
    case Family::exponential:
      return -t / p.a;
    case Family::lognormal:
      return log_normal_sf((std::log(t) - p.a) / p.b);
    case Family::gamma:
      return log_gamma_q(p.a, t / p.b);
    case Family::weibull:
      return -std::pow(t / p.b, p.a);
  }
  return 0;
}

double cdf(Family family, const FamilyParams& p, double t) {
  switch (family) {
    case Family::exponential:
      return -std::expm1(-t / p.a);
    case Family::lognormal:
      return normal_cdf((std::log(t) - p.a) / p.b);
    case Family::gamma:
      return std::exp(log_gamma_p(p.a, t / p.b));
    case Family::weibull:
      return -std::expm1(-std::pow(t / p.b, p.a));
  }
  return 0;
}

double sf(Family family, const FamilyParams& p, double t) { return std::exp(log_sf(family, p, t)); }

std::string describe(Family family, const FamilyParams& p) {
  char buffer[128];
  switch (family) {
    case Family::exponential:
      std::snprintf(buffer, sizeof buffer, "mean %.6g s", p.a);
      break;
    case Family::lognormal:
      std::snprintf(buffer, sizeof buffer, "median %.6g s, sigma %.4g", std::exp(p.a), p.b);
      break;
    case Family::gamma:
    case Family::weibull:
      std::snprintf(buffer, sizeof buffer, "shape %.4g, scale %.6g s", p.a, p.b);
      break;
  }
  return buffer;
}

}  // namespace gpucap::fit
