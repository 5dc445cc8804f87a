// Tests of the log-spaced histogram: bin boundaries and quantile accuracy.
#include "gpucap/histogram.hpp"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <memory>
#include <random>
#include <vector>

namespace gpucap {
namespace {

using H = LogHistogram;

std::unique_ptr<H> make_histogram() {
  auto h = std::make_unique<H>();
  h->clear();
  return h;
}

TEST(LogHistogram, Layout) {
  EXPECT_EQ(H::kSubBins, 8);
  EXPECT_EQ(H::kLogBins, (H::kMaxExponent - H::kMinExponent) * 8);
  EXPECT_EQ(H::kBins, H::kLogBins + 3);
}

TEST(LogHistogram, BinOfBoundaries) {
  const double lo = std::ldexp(1.0, H::kMinExponent), hi = std::ldexp(1.0, H::kMaxExponent);
  EXPECT_EQ(H::bin_of(0.0), 0);
  EXPECT_EQ(H::bin_of(-0.0), 0);
  EXPECT_EQ(H::bin_of(-5.0), 0);
  EXPECT_EQ(H::bin_of(std::numeric_limits<double>::quiet_NaN()), 0);
  EXPECT_EQ(H::bin_of(std::numeric_limits<double>::denorm_min()), 1);
  EXPECT_EQ(H::bin_of(1e-9), 1);
  EXPECT_EQ(H::bin_of(std::nextafter(lo, 0.0)), 1);
  EXPECT_EQ(H::bin_of(lo), 2);
  EXPECT_EQ(H::bin_of(lo * 1.125), 3);
  EXPECT_EQ(H::bin_of(std::nextafter(lo * 1.125, 0.0)), 2);
  EXPECT_EQ(H::bin_of(1.0), 2 + (0 - H::kMinExponent) * 8);
  EXPECT_EQ(H::bin_of(1.5), 2 + (0 - H::kMinExponent) * 8 + 4);
  EXPECT_EQ(H::bin_of(std::nextafter(hi, 0.0)), H::kBins - 2);
  EXPECT_EQ(H::bin_of(hi), H::kBins - 1);
  EXPECT_EQ(H::bin_of(1e12), H::kBins - 1);
  EXPECT_EQ(H::bin_of(std::numeric_limits<double>::max()), H::kBins - 1);
  EXPECT_EQ(H::bin_of(std::numeric_limits<double>::infinity()), H::kBins - 1);
}

TEST(LogHistogram, EveryLogBinContainsItsEdges) {
  for (int b = 2; b <= H::kLogBins + 1; ++b) {
    const double edge = H::lower_edge(b), w = H::width(b);
    ASSERT_EQ(H::bin_of(edge), b);
    ASSERT_EQ(H::bin_of(std::nextafter(edge + w, 0.0)), b);
    ASSERT_EQ(H::bin_of(edge + w), b + 1);
    ASSERT_LE(w / edge, 1.0 / H::kSubBins + 1e-15);  // relative width at most 12.5%
  }
}

TEST(LogHistogram, EmptyQuantileIsZero) {
  auto h = make_histogram();
  EXPECT_EQ(h->total, 0u);
  EXPECT_EQ(h->quantile(0.5), 0.0);
  EXPECT_EQ(h->quantile(0.99), 0.0);
}

TEST(LogHistogram, QuantileOfAllZerosIsZero) {
  auto h = make_histogram();
  for (int i = 0; i < 1000; ++i) h->add(0.0);
  EXPECT_EQ(h->total, 1000u);
  EXPECT_EQ(h->counts[0], 1000u);
  for (double q : {0.001, 0.5, 0.95, 0.99, 0.999}) EXPECT_EQ(h->quantile(q), 0.0) << q;
}

TEST(LogHistogram, QuantileWithMostlyZeros) {
  // 90% zeros (jobs that did not wait), 10% at 100 s: p50 is 0, p95 lies in 100's bin.
  auto h = make_histogram();
  for (int i = 0; i < 900; ++i) h->add(0.0);
  for (int i = 0; i < 100; ++i) h->add(100.0);
  EXPECT_EQ(h->quantile(0.5), 0.0);
  EXPECT_EQ(h->quantile(0.9), 0.0);
  const int b = H::bin_of(100.0);
  EXPECT_GE(h->quantile(0.95), H::lower_edge(b));
  EXPECT_LE(h->quantile(0.95), H::lower_edge(b) + H::width(b));
}

TEST(LogHistogram, SingleValueQuantileStaysInItsBin) {
  auto h = make_histogram();
  h->add(5.0);  // bin [5, 5.5)
  EXPECT_EQ(H::lower_edge(H::bin_of(5.0)), 5.0);
  EXPECT_EQ(H::width(H::bin_of(5.0)), 0.5);
  EXPECT_DOUBLE_EQ(h->quantile(0.5), 5.25);
  EXPECT_GE(h->quantile(0.01), 5.0);
  EXPECT_LE(h->quantile(0.99), 5.5);
}

TEST(LogHistogram, UnderflowAndOverflowBins) {
  auto h = make_histogram();
  h->add(1e-6);
  EXPECT_EQ(h->counts[1], 1u);
  EXPECT_GE(h->quantile(0.5), 0.0);
  EXPECT_LE(h->quantile(0.5), std::ldexp(1.0, H::kMinExponent));
  auto g = make_histogram();
  g->add(1e9);
  EXPECT_EQ(g->counts[H::kBins - 1], 1u);
  EXPECT_EQ(g->quantile(0.5), std::ldexp(1.0, H::kMaxExponent));
}

TEST(LogHistogram, ExponentialQuantilesWithinBinWidth) {
  const double mean = 3600.0;
  const int n = 1000000;
  auto h = make_histogram();
  std::mt19937_64 gen(11);
  std::exponential_distribution<double> expo(1.0 / mean);
  std::vector<double> x(n);
  for (auto& v : x) {
    v = expo(gen);
    h->add(v);
  }
  std::sort(x.begin(), x.end());
  for (double q : {0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999}) {
    SCOPED_TRACE(q);
    const double exact = -mean * std::log1p(-q);
    const double got = h->quantile(q);
    // Against the distribution's quantile: the bin's relative width (12.5%) bounds the error
    // (the sample quantile's own error is < 0.5% at n = 1e6).
    EXPECT_LE(std::fabs(got - exact), 0.125 * exact);
    // Against the sample's own quantile: inside the bin that holds it.
    const double sample_q = x[static_cast<std::size_t>(std::llround(q * n)) - 1];
    const int b = H::bin_of(sample_q);
    EXPECT_LE(std::fabs(got - sample_q), H::width(b));
  }
}

TEST(LogHistogram, QuantileIsMonotoneInQ) {
  auto h = make_histogram();
  std::mt19937_64 gen(3);
  std::lognormal_distribution<double> logn(3.0, 2.0);
  for (int i = 0; i < 100000; ++i) h->add(logn(gen));
  double last = 0;
  for (int i = 1; i < 1000; ++i) {
    const double v = h->quantile(i / 1000.0);
    EXPECT_GE(v, last);
    last = v;
  }
}

}  // namespace
}  // namespace gpucap
