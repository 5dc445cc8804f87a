#include "gpucap/summary.hpp"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>
#include <memory>
#include <utility>

namespace gpucap {

namespace {

/// type7_quantile of values[0, n), which holds at the positions it reads their order statistics.
double type7_quantile_of(const double* values, std::size_t n, double q) {
  if (n == 0) return 0.0;
  const double h = (static_cast<double>(n) - 1.0) * q;
  const std::size_t lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, n - 1);
  return values[lo] + (h - static_cast<double>(lo)) * (values[hi] - values[lo]);
}

}  // namespace

double type7_quantile(const std::vector<double>& values, double q) {
  return type7_quantile_of(values.data(), values.size(), q);
}

namespace {

/// Puts values[k] in order for the positions k in `needed` (ascending, distinct), within
/// values[first, n): by selection, each next one within the range the one before left.
void select_in_order(double* values, std::size_t n, const std::vector<std::size_t>& needed) {
  // In ascending order: once position k holds its order statistic, nothing after it is smaller,
  // so the next position is selected within (k, n).
  std::size_t first = 0;
  double* const end = values + n;
  for (const std::size_t k : needed) {
    if (k == first)  // the smallest of the range: one pass
      std::iter_swap(values + first, std::min_element(values + first, end));
    else
      std::nth_element(values + first, values + k, end);
    first = k + 1;
  }
}

/// Columns this long or longer select through brackets (select_in_brackets); shorter ones by
/// selection over the whole column.
constexpr std::size_t kBracketMinValues = 8192;
constexpr std::size_t kBracketSample = 1024;

/// Sets values[k], for each k in `needed` (ascending, distinct, n >= kBracketMinValues), to the
/// k-th smallest value (0-based) without selecting over the whole column: a sorted sample of
/// kBracketSample values at evenly spaced positions gives each group of adjacent ranks a
/// bracket [low, high] (its ranks' sample positions, widened by four standard deviations of a
/// sample quantile); one pass counts the values below each bracket and copies those inside;
/// selection within the copies then finds the ranks. Returns false, having changed nothing,
/// when a bracket misses its ranks (an unlucky or adversarial sample): the caller selects
/// over the whole column. The k-th smallest value is the same number however it is found
/// (zeros of either sign aside, which cannot change a quantile: see below); positions not in
/// `needed` are left holding values of the column, in no particular order.
bool select_in_brackets(double* values, std::size_t n, const std::vector<std::size_t>& needed) {
  double sample[kBracketSample];
  for (std::size_t i = 0; i < kBracketSample; ++i) sample[i] = values[i * (n / kBracketSample)];
  std::sort(sample, sample + kBracketSample);

  struct Bracket {
    std::size_t first_rank, last_rank;  ///< the ranks it must hold
    double low, high;                   ///< values in [low, high] are inside
    std::size_t below = 0, inside = 0;
    std::unique_ptr<double[]> copies;  ///< room for the column (pages touched only as filled)
  };
  Bracket brackets[6];
  std::size_t count = 0;
  for (const std::size_t k : needed) {
    if (count > 0 && k <= brackets[count - 1].last_rank + 1) {
      brackets[count - 1].last_rank = k;
      continue;
    }
    if (count == 6) return false;
    brackets[count] = Bracket{k, k, 0, 0, 0, 0, nullptr};
    ++count;
  }
  const double scale = static_cast<double>(kBracketSample) / static_cast<double>(n);
  for (std::size_t b = 0; b < count; ++b) {
    Bracket& br = brackets[b];
    const double q = static_cast<double>(br.first_rank) / static_cast<double>(n);
    const double margin = 4.0 * std::sqrt(kBracketSample * q * (1.0 - q)) + 4.0;
    const double lo = std::floor(static_cast<double>(br.first_rank) * scale - margin);
    const double hi = std::ceil(static_cast<double>(br.last_rank + 1) * scale + margin);
    br.low = lo < 0 ? -std::numeric_limits<double>::infinity()
                    : sample[static_cast<std::size_t>(lo)];
    br.high = hi >= kBracketSample ? std::numeric_limits<double>::infinity()
                                   : sample[static_cast<std::size_t>(hi)];
    br.copies.reset(new double[n]);  // not initialized: written before it is read
  }
  // The pass: branch-free (a value is written to every bracket's copies, kept where inside).
  for (std::size_t b = 0; b < count; ++b) {
    Bracket& br = brackets[b];
    double* out = br.copies.get();
    std::size_t below = 0, inside = 0;
    const double low = br.low, high = br.high;
    for (std::size_t i = 0; i < n; ++i) {
      const double x = values[i];
      below += x < low;
      out[inside] = x;
      inside += (x >= low) & (x <= high);
    }
    br.below = below;
    br.inside = inside;
    if (!(below <= br.first_rank && br.last_rank < below + inside)) return false;
  }
  for (std::size_t b = 0; b < count; ++b) {
    Bracket& br = brackets[b];
    std::vector<std::size_t> ranks;
    for (const std::size_t k : needed)
      if (k >= br.first_rank && k <= br.last_rank) ranks.push_back(k - br.below);
    select_in_order(br.copies.get(), br.inside, ranks);
  }
  // Written last: the pass above read the column as it was.
  for (std::size_t b = 0; b < count; ++b)
    for (const std::size_t k : needed)
      if (k >= brackets[b].first_rank && k <= brackets[b].last_rank)
        values[k] = brackets[b].copies[k - brackets[b].below];
  return true;
}

/// Puts at the positions the type-7 quantiles `qs` need the order statistics of `values` (no
/// NaN): values[k] is then the k-th smallest for every k needed, the very value a sorted copy
/// holds at k; by selection (O(n) each) rather than a sort, through brackets for long columns.
/// (Zeros of either sign compare equal and may trade places, which cannot change a quantile:
/// interpolating between zeros gives +0.)
template <std::size_t N>
void select_order_statistics(double* values, std::size_t n, const double (&qs)[N]) {
  if (n == 0) return;
  std::vector<std::size_t> needed;
  for (double q : qs) {
    const std::size_t lo = static_cast<std::size_t>(std::floor((static_cast<double>(n) - 1.0) * q));
    needed.push_back(lo);
    needed.push_back(std::min(lo + 1, n - 1));
  }
  std::sort(needed.begin(), needed.end());
  needed.erase(std::unique(needed.begin(), needed.end()), needed.end());
  if (n >= kBracketMinValues && select_in_brackets(values, n, needed)) return;
  select_in_order(values, n, needed);
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

MetricSummary summarize_defined(const Moments& moments, double* values, std::size_t n,
                                bool constant, MetricRange range) {
  if (n == 0) return undefined_summary();
  MetricSummary s = from_moments(moments, n, range);
  // When every value compares equal, every position already holds an order statistic's value
  // (zeros of either sign compare equal, and interpolating between zeros gives +0 whatever
  // their signs): the type-7 arithmetic below then gives what selection would, bit for bit.
  if (!constant) select_order_statistics(values, n, kQuantiles);
  s.p5 = type7_quantile_of(values, n, kQuantiles[0]);
  s.p50 = type7_quantile_of(values, n, kQuantiles[1]);
  s.p95 = type7_quantile_of(values, n, kQuantiles[2]);
  return s;
}

MetricSummary summarize_values(const Moments& moments, double* values, std::size_t n,
                               MetricRange range) {
  // One pass drops the NaNs and finds whether every value compares equal (a metric constant
  // over the replications, common: counts of 0, a job that always completes).
  std::size_t kept = 0;
  bool constant = true;
  for (std::size_t i = 0; i < n; ++i) {
    const double x = values[i];
    if (std::isnan(x)) continue;
    constant = constant && (kept == 0 || x == values[0]);
    values[kept++] = x;
  }
  return summarize_defined(moments, values, kept, constant, range);
}

MetricSummary summarize_in_place(const Moments& moments, std::vector<double>& values,
                                 MetricRange range) {
  const MetricSummary s = summarize_values(moments, values.data(), values.size(), range);
  values.resize(static_cast<std::size_t>(s.n));
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
