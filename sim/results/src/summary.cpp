#include "gpucap/summary.hpp"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>
#include <utility>

namespace gpucap {

double type7_quantile(const std::vector<double>& values, double q) {
  if (values.empty()) return 0.0;
  const double h = (static_cast<double>(values.size()) - 1.0) * q;
  const std::size_t lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (h - static_cast<double>(lo)) * (values[hi] - values[lo]);
}

namespace {

/// Puts at the positions the type-7 quantiles `qs` need the order statistics of `values` (no
/// NaN), by selection (O(n) each) rather than a sort: values[k] is then the k-th smallest for
/// every k needed, the very value a sorted copy holds at k. (Zeros of either sign compare equal
/// and may trade places, which cannot change a quantile: interpolating between zeros gives +0.)
template <std::size_t N>
void select_order_statistics(std::vector<double>& values, const double (&qs)[N]) {
  const std::size_t n = values.size();
  if (n == 0) return;
  std::vector<std::size_t> needed;
  for (double q : qs) {
    const std::size_t lo = static_cast<std::size_t>(std::floor((static_cast<double>(n) - 1.0) * q));
    needed.push_back(lo);
    needed.push_back(std::min(lo + 1, n - 1));
  }
  std::sort(needed.begin(), needed.end());
  needed.erase(std::unique(needed.begin(), needed.end()), needed.end());
  // In ascending order: once position k holds its order statistic, nothing after it is smaller,
  // so the next position is selected within (k, n).
  std::size_t first = 0;
  for (const std::size_t k : needed) {
    const auto begin = values.begin();
    if (k == first)  // the smallest of the range: one pass
      std::iter_swap(begin + first, std::min_element(begin + first, values.end()));
    else
      std::nth_element(begin + first, begin + k, values.end());
    first = k + 1;
  }
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

namespace {

/// The summary's count, mean, deviation and clipped interval from the moments of its n values
/// (n > 0); quantiles left for the caller.
MetricSummary from_moments(const Moments& moments, std::size_t n, MetricRange range) {
  MetricSummary s;
  s.n = n;
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
  return s;
}

MetricSummary undefined_summary() {
  MetricSummary s;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  s.mean = s.std = s.ci95_low = s.ci95_high = s.p5 = s.p50 = s.p95 = nan;
  return s;
}

constexpr double kQuantiles[] = {0.05, 0.50, 0.95};

}  // namespace

MetricSummary summarize_in_place(const Moments& moments, std::vector<double>& values,
                                 MetricRange range) {
  // One pass drops the NaNs and finds whether every value compares equal (a metric constant
  // over the replications, common: counts of 0, a job that always completes).
  std::size_t kept = 0;
  bool constant = true;
  for (const double x : values) {
    if (std::isnan(x)) continue;
    constant = constant && (kept == 0 || x == values[0]);
    values[kept++] = x;
  }
  values.resize(kept);
  if (values.empty()) return undefined_summary();
  MetricSummary s = from_moments(moments, values.size(), range);
  // When every value compares equal, every position already holds an order statistic's value
  // (zeros of either sign compare equal, and interpolating between zeros gives +0 whatever
  // their signs): the type-7 arithmetic below then gives what selection would, bit for bit.
  if (!constant) select_order_statistics(values, kQuantiles);
  s.p5 = type7_quantile(values, kQuantiles[0]);
  s.p50 = type7_quantile(values, kQuantiles[1]);
  s.p95 = type7_quantile(values, kQuantiles[2]);
  return s;
}

MetricSummary summarize(const Moments& moments, std::vector<double> values, MetricRange range) {
  return summarize_in_place(moments, values, range);
}

MetricSummary summarize_moments(const Moments& moments, MetricRange range) {
  if (moments.n == 0) return undefined_summary();
  MetricSummary s = from_moments(moments, static_cast<std::size_t>(moments.n), range);
  s.p5 = s.p50 = s.p95 = std::numeric_limits<double>::quiet_NaN();
  return s;
}

MetricSummary summarize(const Moments& moments, const QuantileSketch& sketch, MetricRange range) {
  if (sketch.count() == 0) return undefined_summary();
  MetricSummary s = from_moments(moments, static_cast<std::size_t>(sketch.count()), range);
  s.p5 = sketch.quantile(kQuantiles[0]);
  s.p50 = sketch.quantile(kQuantiles[1]);
  s.p95 = sketch.quantile(kQuantiles[2]);
  return s;
}

MetricSummary summarize(std::vector<double> values, MetricRange range) {
  const Moments moments = column_moments(values.data(), values.size(), 1);
  return summarize(moments, std::move(values), range);
}

}  // namespace gpucap
