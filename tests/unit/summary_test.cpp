// Tests of the across-replication summary's quantiles (summary.hpp): hand-worked type-7 values,
// and the selection that finds them giving the bits a full sort gives (over the whole column,
// or, for 8,192 values and more, within brackets from a sample, or falling back when a sample
// misleads); RunResults::summarize_all giving every column the bits summarize() gives it.
#include "gpucap/summary.hpp"

#include "gpucap/results.hpp"
#include "support/same_bits.hpp"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <random>
#include <vector>

namespace gpucap {
namespace {

/// Type-7 quantile of `values` by a full sort: what summarize computed before it selected.
double sorted_type7(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  const double h = (static_cast<double>(values.size()) - 1.0) * q;
  const std::size_t lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (h - static_cast<double>(lo)) * (values[hi] - values[lo]);
}

using testing_support::same_bits;

TEST(Summary, QuantilesAreType7OfTheDefinedValues) {
  // Sorted without the NaN: 1 2 3 4 5 (n = 5). p5: h = 0.2, 1 + 0.2 (2 - 1) = 1.2; p50: h = 2,
  // 3; p95: h = 3.8, 4 + 0.8 (5 - 4) = 4.8.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const MetricSummary s = summarize({4, 1, nan, 3, 2, 5});
  EXPECT_EQ(s.n, 5u);
  EXPECT_DOUBLE_EQ(s.p5, 1.2);
  EXPECT_EQ(s.p50, 3.0);
  EXPECT_DOUBLE_EQ(s.p95, 4.8);
  const MetricSummary one = summarize({7.5});
  EXPECT_EQ(one.p5, 7.5);
  EXPECT_EQ(one.p50, 7.5);
  EXPECT_EQ(one.p95, 7.5);
  const MetricSummary two = summarize({2, 1});  // p5: h = 0.05, 1.05; p95: 1.95
  EXPECT_DOUBLE_EQ(two.p5, 1.05);
  EXPECT_DOUBLE_EQ(two.p95, 1.95);
}

TEST(Summary, SelectedQuantilesHaveTheBitsOfASortedCopy) {
  std::mt19937_64 rng(15);
  std::uniform_real_distribution<double> u(0.0, 100.0);
  std::vector<std::size_t> sizes;
  for (std::size_t n = 1; n <= 64; ++n) sizes.push_back(n);
  for (std::size_t n : {99u, 100u, 101u, 1000u, 4097u, 50000u}) sizes.push_back(n);
  for (const std::size_t n : sizes) {
    for (int kind = 0; kind < 4; ++kind) {
      std::vector<double> v(n);
      for (double& x : v) {
        switch (kind) {
          case 0:
            x = u(rng);
            break;  // continuous
          case 1:
            x = std::floor(u(rng) / 20);
            break;  // many ties
          case 2:
            x = (rng() % 3 == 0) ? u(rng) : ((rng() % 2) ? 0.0 : -0.0);
            break;  // zeros
          default:
            x = 1e300 * u(rng) - 5e301;
            break;  // large, both signs
        }
      }
      const MetricSummary s = summarize(v);
      SCOPED_TRACE("n = " + std::to_string(n) + ", kind " + std::to_string(kind));
      EXPECT_TRUE(same_bits(s.p5, sorted_type7(v, 0.05))) << s.p5;
      EXPECT_TRUE(same_bits(s.p50, sorted_type7(v, 0.50))) << s.p50;
      EXPECT_TRUE(same_bits(s.p95, sorted_type7(v, 0.95))) << s.p95;
    }
  }
}

// A column whose defined values all compare equal takes the fast path (no selection): the same
// bits as a sorted copy, for a constant, zeros of one sign or of both (+0 either way), an
// infinity (NaN, as interpolating between infinities gives), NaNs among them, and the
// in-place form (which reorders and shrinks its scratch column).
TEST(Summary, ConstantColumnsHaveTheBitsOfASortedCopy) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<std::vector<double>> columns = {{5.0},
                                                    {5.0, 5.0, 5.0},
                                                    std::vector<double>(1000, 2.5),
                                                    {0.0, 0.0},
                                                    {-0.0, -0.0, -0.0},
                                                    {0.0, -0.0, 0.0, -0.0, -0.0},
                                                    {-0.0, 0.0},
                                                    {inf, inf},
                                                    {-inf, -inf, -inf},
                                                    {nan, 7.0, nan, 7.0},
                                                    {1e-300, 1e-300},
                                                    {3.0, 3.0, 3.0000000000000004}};
  for (const std::vector<double>& column : columns) {
    std::vector<double> defined;
    for (double x : column)
      if (!std::isnan(x)) defined.push_back(x);
    const MetricSummary s = summarize(column);
    std::vector<double> scratch = column;
    const MetricSummary in_place =
        summarize_in_place(column_moments(column.data(), column.size(), 1), scratch);
    EXPECT_EQ(s.n, defined.size());
    EXPECT_EQ(scratch.size(), defined.size());
    for (const double q : {0.05, 0.50, 0.95}) {
      const double want = sorted_type7(defined, q);
      const double got = q == 0.05 ? s.p5 : q == 0.50 ? s.p50 : s.p95;
      const double got_in_place = q == 0.05 ? in_place.p5 : q == 0.50 ? in_place.p50 : in_place.p95;
      EXPECT_TRUE(same_bits(got, want)) << column.size() << " values from " << column[0] << ", q "
                                        << q << ": " << got << " vs " << want;
      EXPECT_TRUE(same_bits(got_in_place, want));
    }
    EXPECT_TRUE(same_bits(s.mean, in_place.mean));
  }
}

}  // namespace
// Long columns select within brackets a sample of 1,024 evenly spaced values sets; the
// arrangements here defeat or mislead such a sample (sorted either way, a period equal to the
// sample's spacing so that every sampled value is the same, ties piled on the quantiles, a few
// huge or infinite values), and sizes sit at and around the length where brackets start. Every
// quantile keeps the bits of a sorted copy.
TEST(Summary, LongColumnsHaveTheBitsOfASortedCopyHoweverArranged) {
  const double inf = std::numeric_limits<double>::infinity();
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (const std::size_t n : {8191u, 8192u, 8193u, 20480u, 100003u}) {
    for (int kind = 0; kind < 7; ++kind) {
      std::vector<double> v(n);
      const std::size_t spacing = n / 1024;
      for (std::size_t i = 0; i < n; ++i) {
        switch (kind) {
          case 0: v[i] = static_cast<double>(i); break;                   // ascending
          case 1: v[i] = static_cast<double>(n - i); break;               // descending
          case 2: v[i] = i % spacing == 0 ? 1.0 : u(rng); break;          // the sample sees 1s
          case 3: v[i] = i % spacing == 0 ? 0.5 : u(rng) * 1e-3 + 2; break;  // it sees the lowest
          case 4: v[i] = std::floor(u(rng) * 3.0); break;                 // three values, ties
          case 5: v[i] = i % 97 == 0 ? (i % 2 ? inf : -inf) : u(rng); break;
          default: v[i] = u(rng) < 0.5 ? 0.0 : (u(rng) < 0.5 ? -0.0 : u(rng)); break;
        }
      }
      const MetricSummary s = summarize(v);
      SCOPED_TRACE("n = " + std::to_string(n) + ", kind " + std::to_string(kind));
      EXPECT_TRUE(same_bits(s.p5, sorted_type7(v, 0.05))) << s.p5;
      EXPECT_TRUE(same_bits(s.p50, sorted_type7(v, 0.50))) << s.p50;
      EXPECT_TRUE(same_bits(s.p95, sorted_type7(v, 0.95))) << s.p95;
    }
  }
}

// summarize_all copies the rows into columns a block of 256 replications at a time, drops
// NaNs block by block and closes the gaps, and reduces moments on the way: each column must
// still get summarize()'s bits. Columns here: NaN in whole blocks (the first, the last, every
// other), NaN in scattered rows, constant, constant but for NaNs, constant in each block but
// not across them, zeros of both signs, and continuous; replication counts around a block and
// past the bracketed selection's 8,192; two points and two pools.
TEST(Summary, SummarizeAllGivesEveryColumnTheBitsOfSummarize) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0.0, 10.0);
  for (const std::size_t replications : {1u, 2u, 255u, 256u, 257u, 1000u, 9000u}) {
    RunResults r;
    r.points = 2;
    r.replications = replications;
    r.pool_names = {"a", "b"};
    const std::size_t pool_stride = 2 * kPoolMetricCount;
    r.scalars.assign(r.points * replications * kScalarMetricCount, 0.0);
    r.pool_values.assign(r.points * replications * pool_stride, 0.0);
    const auto value = [&](std::size_t column, std::size_t rep) {
      const std::size_t block = rep / 256;
      switch (column % 9) {
        case 0: return block == 0 ? nan : u(rng);
        case 1: return block % 2 ? nan : u(rng);
        case 2: return rep % 7 == 3 ? nan : u(rng);
        case 3: return 4.25;
        case 4: return rep % 5 == 0 ? nan : 4.25;
        case 5: return static_cast<double>(block);
        case 6: return rep % 2 ? 0.0 : -0.0;
        case 7: return replications > 256 && block == (replications - 1) / 256 ? nan : u(rng);
        default: return u(rng);
      }
    };
    for (std::size_t p = 0; p < r.points; ++p)
      for (std::size_t i = 0; i < replications; ++i) {
        for (std::size_t m = 0; m < kScalarMetricCount; ++m)
          r.scalars[(p * replications + i) * kScalarMetricCount + m] = value(m + p, i);
        for (std::size_t k = 0; k < pool_stride; ++k)
          r.pool_values[(p * replications + i) * pool_stride + k] = value(k + 3 * p, i);
      }
    r.summarize_all();
    SCOPED_TRACE("replications " + std::to_string(replications));
    // Column `column` of point p's rows (`stride` doubles apart) summarized on its own.
    const auto alone = [&](const std::vector<double>& rows, std::size_t stride, std::size_t p,
                           std::size_t column, const MetricInfo& info) {
      std::vector<double> values(replications);
      for (std::size_t i = 0; i < replications; ++i)
        values[i] = rows[(p * replications + i) * stride + column];
      return summarize(column_moments(values.data(), replications, 1), values, metric_range(info));
    };
    for (std::size_t p = 0; p < r.points; ++p) {
      for (std::size_t m = 0; m < kScalarMetricCount; ++m)
        EXPECT_TRUE(same_bits(r.summary[p * kScalarMetricCount + m],
                              alone(r.scalars, kScalarMetricCount, p, m, kScalarMetricInfo[m])))
            << "point " << p << ", metric " << m;
      for (std::size_t k = 0; k < pool_stride; ++k)
        EXPECT_TRUE(same_bits(r.pool_summary[p * pool_stride + k],
                              alone(r.pool_values, pool_stride, p, k,
                                    kPoolMetricInfo[k % kPoolMetricCount])))
            << "point " << p << ", pool value " << k;
    }
  }
}

}  // namespace gpucap
