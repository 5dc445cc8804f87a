// Test support for validation against closed forms: a tight-band check and queueing formulas.
#pragma once
#include <cmath>
#include <cstdio>
#include <gtest/gtest.h>
#include <string>

#include "gpucap/results.hpp"
#include "gpucap/summary.hpp"

namespace gpucap::testing_support {

/// Asserts that `analytic` is inside the 99% CI of `metric` and the CI is narrower than 2% of
/// it (so a check cannot pass by being vague); prints the error for docs/validation.md.
inline void expect_matches(const RunResults& r, ScalarMetric metric, double analytic,
                           const std::string& label) {
  const MetricSummary& s = r.summary_of(0, metric);
  const double half = ci_half_width(s, 0.99);
  std::printf(
      "  %-40s analytic %-12.6g simulated %-12.6g +- %-10.4g (99%%)  error %+.3f%%  "
      "CI width %.3f%%\n",
      label.c_str(), analytic, s.mean, half, 100.0 * (s.mean - analytic) / analytic,
      100.0 * 2 * half / analytic);
  EXPECT_LE(std::fabs(s.mean - analytic), half)
      << label << ": analytic " << analytic << " outside the 99% CI " << s.mean << " +- " << half;
  EXPECT_LT(2 * half, 0.02 * analytic) << label << ": CI too wide to prove anything";
}

/// Erlang C: probability that an arrival waits in M/M/c with offered load a = lambda / mu < c.
inline double erlang_c(int c, double a) {
  double term = 1, sum = 1;  // a^k / k!
  for (int k = 1; k < c; ++k) {
    term *= a / k;
    sum += term;
  }
  const double top = term * a / c * c / (c - a);
  return top / (sum + top);
}

/// Erlang B: blocking probability of M/M/c/c with offered load a (stable recursion).
inline double erlang_b(int c, double a) {
  double b = 1;
  for (int k = 1; k <= c; ++k) b = a * b / (k + a * b);
  return b;
}

}  // namespace gpucap::testing_support
