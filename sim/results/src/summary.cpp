#include "gpucap/summary.hpp"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>
#include <utility>

namespace gpucap {
namespace {

/// Type-7 quantile (numpy's default) of sorted values.
double sorted_quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0.0;
  const double h = (static_cast<double>(sorted.size()) - 1.0) * q;
  const std::size_t lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

}  // namespace

double student_t_quantile(double confidence, std::size_t dof) {
  const double p = 0.5 + 0.5 * confidence;
  if (dof == 0) return std::numeric_limits<double>::infinity();
  if (dof > 1000000) return boost::math::quantile(boost::math::normal_distribution<>(), p);
  return boost::math::quantile(boost::math::students_t_distribution<>(static_cast<double>(dof)), p);
}

double ci_half_width(const MetricSummary& s, double confidence) {
  // One value says nothing about the spread: no interval, rather than one of width zero.
  if (s.n < 2) return std::numeric_limits<double>::quiet_NaN();
  return student_t_quantile(confidence, s.n - 1) * s.std / std::sqrt(static_cast<double>(s.n));
}

Moments column_moments(const double* values, std::size_t n, std::size_t stride) {
  Moments total;
  for (std::size_t first = 0; first < n; first += kMomentBlock) {
    const std::size_t count = std::min<std::size_t>(kMomentBlock, n - first);
    total = merge_moments(total, block_moments(values + first * stride, count, stride));
  }
  return total;
}

MetricSummary summarize(const Moments& moments, std::vector<double> values, MetricRange range) {
  values.erase(std::remove_if(values.begin(), values.end(), [](double x) { return std::isnan(x); }),
               values.end());
  MetricSummary s;
  s.n = values.size();
  if (s.n == 0) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    s.mean = s.std = s.ci95_low = s.ci95_high = s.p5 = s.p50 = s.p95 = nan;
    return s;
  }
  s.mean = moments.mean;
  s.std = s.n > 1 ? std::sqrt(moments.m2 / static_cast<double>(s.n - 1))
                  : std::numeric_limits<double>::quiet_NaN();
  const double half = ci_half_width(s, 0.95);
  s.ci95_low = s.mean - half;
  s.ci95_high = s.mean + half;
  // A t interval is symmetric; a metric is not always: say where it was cut to the range.
  if (s.ci95_low < range.low) {
    s.ci95_low = range.low;
    s.clipped_low = true;
  }
  if (s.ci95_high > range.high) {
    s.ci95_high = range.high;
    s.clipped_high = true;
  }
  std::sort(values.begin(), values.end());
  s.p5 = sorted_quantile(values, 0.05);
  s.p50 = sorted_quantile(values, 0.50);
  s.p95 = sorted_quantile(values, 0.95);
  return s;
}

MetricSummary summarize(std::vector<double> values, MetricRange range) {
  const Moments moments = column_moments(values.data(), values.size(), 1);
  return summarize(moments, std::move(values), range);
}

}  // namespace gpucap
