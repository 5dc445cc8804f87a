// Tests of the across-replication summary's quantiles (summary.hpp): hand-worked type-7 values,
// and the selection that finds them giving the bits a full sort gives.
#include "gpucap/summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
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

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

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
}  // namespace gpucap
