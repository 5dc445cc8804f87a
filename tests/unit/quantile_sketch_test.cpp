// Tests of QuantileSketch: percentiles within the stated bound of the exact type-7 ones, exact
// where the class says so, the same bits however the values are split and merged, and a byte
// form that refuses what it did not write.
#include "gpucap/quantile_sketch.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpucap/summary.hpp"

namespace gpucap {
namespace {

/// numpy's default quantile (type 7) of `values`, from a sorted copy.
double exact_quantile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  const double h = (static_cast<double>(values.size()) - 1.0) * q;
  const std::size_t lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (h - static_cast<double>(lo)) * (values[hi] - values[lo]);
}

QuantileSketch sketch_of(const std::vector<double>& values) {
  QuantileSketch s;
  for (double x : values) s.add(x);
  return s;
}

const double kProbabilities[] = {0,    0.001, 0.01, 0.05, 0.1,   0.25, 0.5,
                                 0.75, 0.9,   0.95, 0.99, 0.999, 1};

TEST(QuantileSketch, PercentilesOfSkewedValuesAreWithinTheStatedRelativeBound) {
  std::mt19937_64 rng(42);
  std::lognormal_distribution<double> costs(8.0, 1.5);      // dollars, four decades
  std::exponential_distribution<double> waits(1.0 / 3600);  // seconds
  for (auto* draw : {static_cast<void*>(&costs), static_cast<void*>(&waits)}) {
    std::vector<double> values(100000);
    for (double& x : values) x = draw == &costs ? costs(rng) : waits(rng);
    const QuantileSketch s = sketch_of(values);
    ASSERT_EQ(s.count(), values.size());
    for (double q : kProbabilities) {
      const double exact = exact_quantile(values, q);
      EXPECT_LE(std::fabs(s.quantile(q) - exact), QuantileSketch::kRelativeError * exact)
          << "q = " << q;
    }
    // The bound is 2^-10, below 0.1%, and the extremes are exact.
    EXPECT_LT(QuantileSketch::kRelativeError, 0.001);
    EXPECT_EQ(s.quantile(0), *std::min_element(values.begin(), values.end()));
    EXPECT_EQ(s.quantile(1), *std::max_element(values.begin(), values.end()));
  }
}

TEST(QuantileSketch, RepeatedValuesCountsAndZerosGiveTheExactPercentiles) {
  // Counts of jobs (0 to 12, many repeats), with zeros: every bucket holds one distinct value.
  std::mt19937_64 rng(7);
  std::poisson_distribution<int> jobs(3.5);
  std::vector<double> values(20001);
  for (double& x : values) x = jobs(rng);
  const QuantileSketch s = sketch_of(values);
  for (double q : kProbabilities) EXPECT_EQ(s.quantile(q), exact_quantile(values, q)) << q;
  // The same for a constant, and for one value.
  EXPECT_EQ(sketch_of(std::vector<double>(1000, 1234.5)).quantile(0.95), 1234.5);
  EXPECT_EQ(sketch_of({0.25}).quantile(0.5), 0.25);
  EXPECT_TRUE(std::isnan(QuantileSketch().quantile(0.5)));
}

TEST(QuantileSketch, NegativeValuesSignedZerosAndInfinitiesKeepTheirOrder) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> normal(0.0, 100.0);
  std::vector<double> values(50000);
  for (double& x : values) x = normal(rng);
  values.push_back(-0.0);
  values.push_back(0.0);
  const QuantileSketch s = sketch_of(values);
  double largest = 0;
  for (double x : values) largest = std::max(largest, std::fabs(x));
  for (double q : kProbabilities) {
    const double exact = exact_quantile(values, q);
    // Interpolating across zero: within the bound of the larger magnitude.
    EXPECT_LE(std::fabs(s.quantile(q) - exact), QuantileSketch::kRelativeError * largest) << q;
    if (std::fabs(exact) > 1) {
      EXPECT_LE(std::fabs(s.quantile(q) - exact), QuantileSketch::kRelativeError * std::fabs(exact))
          << q;
    }
  }
  const double inf = std::numeric_limits<double>::infinity();
  const QuantileSketch extremes = sketch_of({-inf, 1.0, 2.0, inf});
  EXPECT_EQ(extremes.quantile(0), -inf);
  EXPECT_EQ(extremes.quantile(1), inf);
  EXPECT_EQ(extremes.quantile(0.5), 1.5);
}

TEST(QuantileSketch, AnySplitAndMergeOrderGivesTheSameBits) {
  std::mt19937_64 rng(11);
  std::gamma_distribution<double> gamma(0.7, 50.0);
  std::vector<double> values(30000);
  for (double& x : values) x = gamma(rng);
  const QuantileSketch whole = sketch_of(values);
  for (std::size_t parts : {2u, 3u, 7u, 64u}) {
    std::vector<QuantileSketch> pieces(parts);
    for (std::size_t i = 0; i < values.size(); ++i) pieces[(i * 31 + i / 5) % parts].add(values[i]);
    QuantileSketch forward, backward;
    for (std::size_t k = 0; k < parts; ++k) forward.merge(pieces[k]);
    for (std::size_t k = parts; k-- > 0;) backward.merge(pieces[k]);
    EXPECT_TRUE(forward == whole) << parts << " parts";
    EXPECT_TRUE(backward == whole) << parts << " parts";
    for (double q : kProbabilities) EXPECT_EQ(forward.quantile(q), whole.quantile(q));
  }
  // Memory follows the values' range, not their number: 10x the values, the same buckets.
  std::vector<double> more;
  for (int k = 0; k < 10; ++k) more.insert(more.end(), values.begin(), values.end());
  const QuantileSketch bigger = sketch_of(more);
  EXPECT_EQ(bigger.occupied_buckets(), whole.occupied_buckets());
  EXPECT_EQ(bigger.memory_bytes(), whole.memory_bytes());
}

// A device groups a batch's values by bucket (sketch_bucket_key) and hands the host one
// (count, smallest, largest) per bucket: the same bits as adding the values one by one.
TEST(QuantileSketch, ValuesAddedByBucketGiveTheBitsOfAddingThemOneByOne) {
  std::mt19937_64 rng(11);
  std::lognormal_distribution<double> skewed(3.0, 2.0);
  std::vector<double> values;
  for (int i = 0; i < 20000; ++i) values.push_back(i % 7 == 0 ? -skewed(rng) : skewed(rng));
  values.insert(values.end(), {0.0, -0.0, 0.0, 5.0, 5.0, std::numeric_limits<double>::infinity(),
                               -std::numeric_limits<double>::infinity()});
  QuantileSketch one_by_one;
  for (double x : values) one_by_one.add(x);
  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end(), [](double a, double b) {
    return sketch_ordered_bits(a) < sketch_ordered_bits(b);
  });
  QuantileSketch by_bucket;
  std::size_t buckets = 0;
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t j = i;
    while (j < sorted.size() && sketch_bucket_key(sorted[j]) == sketch_bucket_key(sorted[i])) ++j;
    by_bucket.add_bucket(sketch_bucket_key(sorted[i]), j - i, sorted[i], sorted[j - 1]);
    ++buckets;
    i = j;
  }
  EXPECT_EQ(buckets, one_by_one.occupied_buckets());
  EXPECT_LT(buckets, values.size() / 2);  // grouping saves most of the values
  EXPECT_TRUE(by_bucket == one_by_one);
  std::string a, b;
  one_by_one.serialize(a);
  by_bucket.serialize(b);
  EXPECT_EQ(a, b);
  // -0 lies just below +0, in a bucket of its own; keys increase with the values.
  EXPECT_LT(sketch_bucket_key(-0.0), sketch_bucket_key(0.0));
  EXPECT_LT(sketch_bucket_key(-1e300), sketch_bucket_key(-1e-300));
  EXPECT_LT(sketch_bucket_key(1.0), sketch_bucket_key(1.0 + 1.0 / 256));
  EXPECT_EQ(sketch_bucket_key(1.0), sketch_bucket_key(1.0 + 1.0 / 1024));
  // Bounds outside the bucket, or the wrong way round, are refused; no values add nothing.
  const uint32_t key = sketch_bucket_key(1.0);
  EXPECT_THROW(by_bucket.add_bucket(key, 2, 1.0, 2.0), std::invalid_argument);
  EXPECT_THROW(by_bucket.add_bucket(key, 2, 1.001, 1.0), std::invalid_argument);
  EXPECT_THROW(by_bucket.add_bucket(key, 1, std::nan(""), 1.0), std::invalid_argument);
  by_bucket.add_bucket(key, 0, 7.0, 9.0);
  EXPECT_TRUE(by_bucket == one_by_one);
}

TEST(QuantileSketch, TheByteFormRoundTripsAndRefusesWhatItDidNotWrite) {
  std::vector<double> values;
  for (int i = 0; i < 5000; ++i) values.push_back(std::ldexp(1.0 + (i % 97) / 97.0, i % 40 - 20));
  values.push_back(0.0);
  values.push_back(-3.5);
  const QuantileSketch s = sketch_of(values);
  std::string bytes;
  s.serialize(bytes);
  std::size_t pos = 0;
  EXPECT_TRUE(QuantileSketch::deserialize(bytes, pos) == s);
  EXPECT_EQ(pos, bytes.size());

  const auto refused = [](std::string b) {
    std::size_t p = 0;
    EXPECT_THROW(QuantileSketch::deserialize(b, p), std::invalid_argument);
  };
  refused(bytes.substr(0, bytes.size() - 1));  // truncated
  refused(std::string(8, '\xff'));             // more buckets than bytes
  std::string swapped = bytes;                 // the first two buckets' keys swapped
  std::swap_ranges(swapped.begin() + 8, swapped.begin() + 12, swapped.begin() + 36);
  refused(swapped);
  std::string zero_count = bytes;  // the first bucket counts nothing
  std::fill(zero_count.begin() + 12, zero_count.begin() + 20, '\0');
  refused(zero_count);
  std::string outside = bytes;  // its minimum moved to another bucket
  const double far = 1e300;
  std::memcpy(&outside[20], &far, sizeof far);
  refused(outside);
}

TEST(QuantileSketch, SummariesFromASketchShareTheMomentsFieldsAndBoundThePercentiles) {
  std::mt19937_64 rng(5);
  std::lognormal_distribution<double> d(2.0, 1.0);
  std::vector<double> values(4096);
  for (double& x : values) x = d(rng);
  values[17] = std::nan("");  // an undefined value: left out of both
  const MetricSummary rows = summarize(values);
  QuantileSketch sketch;
  for (double x : values)
    if (!std::isnan(x)) sketch.add(x);
  const MetricSummary streamed = summarize(column_moments(values.data(), values.size(), 1), sketch);
  EXPECT_EQ(streamed.n, rows.n);
  EXPECT_EQ(streamed.mean, rows.mean);
  EXPECT_EQ(streamed.std, rows.std);
  EXPECT_EQ(streamed.ci95_low, rows.ci95_low);
  EXPECT_EQ(streamed.ci95_high, rows.ci95_high);
  for (auto [a, b] :
       {std::pair{streamed.p5, rows.p5}, {streamed.p50, rows.p50}, {streamed.p95, rows.p95}})
    EXPECT_LE(std::fabs(a - b), QuantileSketch::kRelativeError * b);
}

}  // namespace
}  // namespace gpucap
