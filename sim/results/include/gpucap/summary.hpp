// gpucap: statistics of one metric across replications.
#pragma once
#include <cstddef>
#include <limits>
#include <vector>

#include "gpucap/moments.hpp"
#include "gpucap/quantile_sketch.hpp"

namespace gpucap {

/// Across-replication statistics of one metric, over the replications where it is defined
/// (a NaN value, e.g. the mean wait of a replication where no job launched, is left out; n
/// counts the others). The confidence interval is Student's t interval for the mean
/// (replications are independent and identically distributed), clipped to the metric's range
/// (clipped_low/high say where); quantiles are of the replication values (type 7, linear
/// interpolation, as numpy's default). With n = 0 every statistic is NaN.
struct MetricSummary {
  std::size_t n = 0;
  double mean = 0, std = 0;  ///< sample standard deviation (n - 1 denominator); NaN if n < 2
  double ci95_low = 0, ci95_high = 0;
  double p5 = 0, p50 = 0, p95 = 0;
  bool clipped_low = false, clipped_high = false;  ///< the t interval went past the range
};

/// The values a metric can take: [low, high].
struct MetricRange {
  double low = -std::numeric_limits<double>::infinity();
  double high = std::numeric_limits<double>::infinity();
};

/// Type-7 quantile (linear interpolation, numpy's default) of `values`, whose positions
/// floor(h) and the next one hold the order statistics a sorted copy would, h = (n - 1) q
/// (a sorted vector qualifies); 0 when empty.
double type7_quantile(const std::vector<double>& values, double q);

/// Moments of values[i * stride], i < n, reduced in the blocks of moments.hpp and merged in order:
/// the same bits as merging the blocks a device backend reduced.
Moments column_moments(const double* values, std::size_t n, std::size_t stride);

/// Summary of `values` whose moments are `moments` (mean, std and interval come from the
/// moments, quantiles from the values; NaN values are left out). With n = 1 the standard
/// deviation and the interval are NaN (one value gives no spread), and printed as n/a. The
/// interval is clipped to `range`.
MetricSummary summarize(const Moments& moments, std::vector<double> values,
                        MetricRange range = {});
/// summarize() on `values` itself (no copy), which it shrinks and leaves holding values of the
/// column in no particular order (some may repeat): for callers that reuse a scratch column.
MetricSummary summarize_in_place(const Moments& moments, std::vector<double>& values,
                                 MetricRange range = {});
/// summarize_in_place() on values[0, n), scratch whose contents it leaves unspecified.
MetricSummary summarize_values(const Moments& moments, double* values, std::size_t n,
                               MetricRange range = {});
/// summarize_values() of values[0, n) that holds no NaN; `constant`: they all compare equal
/// (the caller found it, passing over the values once for everything).
MetricSummary summarize_defined(const Moments& moments, double* values, std::size_t n,
                                bool constant, MetricRange range = {});

/// Summary of values whose moments are `moments` and whose sketch is `sketch` (NaN values left
/// out of both): mean, deviation and interval as above (the same bits), percentiles from the
/// sketch (within QuantileSketch::kRelativeError of the exact ones).
MetricSummary summarize(const Moments& moments, const QuantileSketch& sketch,
                        MetricRange range = {});

/// Summary from moments alone: mean, deviation and interval as above, percentiles NaN.
MetricSummary summarize_moments(const Moments& moments, MetricRange range = {});

/// Summary of `values`, moments included.
MetricSummary summarize(std::vector<double> values, MetricRange range = {});

/// Two-sided Student t quantile t_{1 - alpha/2, dof}, e.g. 1.96 for alpha = 0.05 and dof large.
double student_t_quantile(double confidence, std::size_t dof);

/// Half-width of the `confidence` interval of the mean for `s` (a summary of n values); NaN
/// when n < 2.
double ci_half_width(const MetricSummary& s, double confidence);

}  // namespace gpucap
