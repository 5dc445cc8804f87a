// gpucap fitting internals: the Nelder-Mead simplex minimizer in two dimensions, for the
// censored likelihoods that have no one-dimensional profile (lognormal, gamma).
//
// Derivative-free and robust to the flat or curved valleys of censored likelihoods; a
// non-finite function value counts as +inf, so the simplex steps back from where a parameter
// leaves its domain. Deterministic: same start, same result.
#pragma once
#include <array>
#include <functional>

namespace gpucap::fit::detail {

using Point2 = std::array<double, 2>;

struct MinimizeResult {
  Point2 x;          ///< the best vertex
  double value;      ///< f(x)
  int evaluations;
};

/// Minimizes f from `start` with an initial simplex of `step` along each axis; restarts once from
/// the best vertex (a collapsed simplex is the method's known failure). Stops when the values of
/// the simplex differ by at most 1e-12 · (1 + |f|) and its vertices by at most 1e-10 (in the
/// units of x), or after `max_evaluations`.
MinimizeResult nelder_mead(const std::function<double(const Point2&)>& f, Point2 start,
                           Point2 step, int max_evaluations = 20000);

}  // namespace gpucap::fit::detail
