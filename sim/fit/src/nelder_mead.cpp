#include "gpucap/fit/detail/nelder_mead.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gpucap::fit::detail {
namespace {

double finite_or_inf(double v) {
  return std::isfinite(v) ? v : std::numeric_limits<double>::infinity();
}

MinimizeResult one_run(const std::function<double(const Point2&)>& f, Point2 start, Point2 step,
                       int max_evaluations) {
  std::array<Point2, 3> x{start, start, start};
  x[1][0] += step[0];
  x[2][1] += step[1];
  std::array<double, 3> v;
  int evaluations = 0;
  auto eval = [&](const Point2& p) {
    ++evaluations;
    return finite_or_inf(f(p));
  };
  for (int i = 0; i < 3; ++i) v[i] = eval(x[i]);
  auto point = [](const Point2& a, const Point2& b, double t) {  // a + t (b − a)
    return Point2{a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])};
  };
  while (evaluations < max_evaluations) {
    std::array<int, 3> o{0, 1, 2};
    std::sort(o.begin(), o.end(), [&](int a, int b) { return v[a] < v[b]; });
    const int best = o[0], mid = o[1], worst = o[2];
    double size = 0;
    for (int i : {mid, worst})
      for (int d = 0; d < 2; ++d) size = std::max(size, std::fabs(x[i][d] - x[best][d]));
    if (std::isfinite(v[worst]) && v[worst] - v[best] <= 1e-12 * (1.0 + std::fabs(v[best])) &&
        size <= 1e-10)
      break;
    const Point2 centroid = point(x[best], x[mid], 0.5);
    const Point2 reflected = point(centroid, x[worst], -1.0);
    const double vr = eval(reflected);
    if (vr < v[best]) {
      const Point2 expanded = point(centroid, x[worst], -2.0);
      const double ve = eval(expanded);
      if (ve < vr) {
        x[worst] = expanded, v[worst] = ve;
      } else {
        x[worst] = reflected, v[worst] = vr;
      }
    } else if (vr < v[mid]) {
      x[worst] = reflected, v[worst] = vr;
    } else {
      const bool outside = vr < v[worst];
      const Point2 contracted = point(centroid, outside ? reflected : x[worst], 0.5);
      const double vc = eval(contracted);
      if (vc < (outside ? vr : v[worst])) {
        x[worst] = contracted, v[worst] = vc;
      } else {
        for (int i : {mid, worst}) {
          x[i] = point(x[best], x[i], 0.5);
          v[i] = eval(x[i]);
        }
      }
    }
  }
  const int best = static_cast<int>(std::min_element(v.begin(), v.end()) - v.begin());
  return {x[best], v[best], evaluations};
}

}  // namespace

MinimizeResult nelder_mead(const std::function<double(const Point2&)>& f, Point2 start, Point2 step,
                           int max_evaluations) {
  MinimizeResult first = one_run(f, start, step, max_evaluations / 2);
  const Point2 small{std::max(std::fabs(step[0]) * 0.1, 1e-4),
                     std::max(std::fabs(step[1]) * 0.1, 1e-4)};
  MinimizeResult second = one_run(f, first.x, small, max_evaluations / 2);
  second.evaluations += first.evaluations;
  if (first.value < second.value) second.x = first.x, second.value = first.value;
  return second;
}

}  // namespace gpucap::fit::detail
