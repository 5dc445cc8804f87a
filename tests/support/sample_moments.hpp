// Test support: the sample mean, variance (n - 1) and standard deviation of a vector.
#pragma once
#include <cmath>
#include <vector>

namespace gpucap::testing_support {

inline double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / v.size();
}

inline double variance_of(const std::vector<double>& v) {
  const double m = mean_of(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return s / (v.size() - 1);
}

inline double sd_of(const std::vector<double>& v) { return std::sqrt(variance_of(v)); }

}  // namespace gpucap::testing_support
