// Tests of the Philox-4x32-10 generator and RandomStream: Random123 known-answer vectors,
// reproducibility and independence of streams, and the statistical quality of next_uniform.
#include "gpucap/philox.hpp"

#include <algorithm>
#include <boost/math/distributions/chi_squared.hpp>
#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>
#include <vector>

namespace gpucap {
namespace {

// ---- known-answer tests (Random123 kat_vectors, "philox4x32 10") ------------------------------

TEST(Philox, KnownAnswerZeroCounterZeroKey) {
  const PhiloxBlock b = philox4x32_10(0u, 0u, 0u, 0u, 0u, 0u);
  EXPECT_EQ(b.v[0], 0x6627e8d5u);
  EXPECT_EQ(b.v[1], 0xe169c58du);
  EXPECT_EQ(b.v[2], 0xbc57ac4cu);
  EXPECT_EQ(b.v[3], 0x9b00dbd8u);
}

TEST(Philox, KnownAnswerAllOnes) {
  const PhiloxBlock b =
      philox4x32_10(0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu);
  EXPECT_EQ(b.v[0], 0x408f276du);
  EXPECT_EQ(b.v[1], 0x41c83b0eu);
  EXPECT_EQ(b.v[2], 0xa20bc7c6u);
  EXPECT_EQ(b.v[3], 0x6d5451fdu);
}

TEST(Philox, KnownAnswerPiDigits) {
  // Counter and key from the hexadecimal digits of pi, as in Random123's kat_vectors.
  const PhiloxBlock b =
      philox4x32_10(0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u, 0xa4093822u, 0x299f31d0u);
  EXPECT_EQ(b.v[0], 0xd16cfe09u);
  EXPECT_EQ(b.v[1], 0x94fdccebu);
  EXPECT_EQ(b.v[2], 0x5001e420u);
  EXPECT_EQ(b.v[3], 0x24126ea1u);
}

TEST(Philox, StreamDrawsAreTheBlocksOfItsCounter) {
  // The stream's counter is (block, stream id, replication lo, replication hi) under key = seed.
  const uint64_t seed = 0x0123456789abcdefull, rep = 0xfedcba9876543210ull;
  const uint32_t id = stream_id(StreamKind::job_size, 7);
  RandomStream s = RandomStream::make(seed, rep, id);
  for (uint32_t block = 0; block < 3; ++block) {
    const PhiloxBlock b =
        philox4x32_10(block, id, static_cast<uint32_t>(rep), static_cast<uint32_t>(rep >> 32),
                      static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
    for (int w = 0; w < 4; ++w) EXPECT_EQ(s.next_u32(), b.v[w]) << "block " << block;
  }
}

TEST(Philox, StreamIdPacksKindAndIndex) {
  EXPECT_EQ(stream_id(StreamKind::arrivals, 0), 0x00010000u);
  EXPECT_EQ(stream_id(StreamKind::job_size, 5), 0x00020005u);
  EXPECT_EQ(stream_id(StreamKind::provisioning, 0xFFFF), 0x0003FFFFu);
  EXPECT_EQ(stream_id(StreamKind::test, 0x12345), 0xFFFF2345u);  // index keeps 16 bits
}

// ---- reproducibility and independence -------------------------------------------------------

std::vector<uint32_t> draws(uint64_t seed, uint64_t rep, uint32_t stream, int n) {
  RandomStream s = RandomStream::make(seed, rep, stream);
  std::vector<uint32_t> out(n);
  for (auto& v : out) v = s.next_u32();
  return out;
}

TEST(Philox, SameKeyGivesIdenticalSequence) {
  const uint32_t id = stream_id(StreamKind::arrivals, 3);
  EXPECT_EQ(draws(42, 17, id, 1000), draws(42, 17, id, 1000));
  // A copy of a stream in mid-sequence continues identically.
  RandomStream a = RandomStream::make(42, 17, id);
  for (int i = 0; i < 7; ++i) a.next_u32();
  RandomStream b = a;
  for (int i = 0; i < 100; ++i) EXPECT_EQ(a.next_uniform(), b.next_uniform());
}

/// Number of positions at which the sequences agree (expected ~ n / 2^32 for independent ones).
int agreements(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
  int same = 0;
  for (std::size_t i = 0; i < a.size(); ++i) same += a[i] == b[i];
  return same;
}

TEST(Philox, DifferentStreamsReplicationsAndSeedsDiffer) {
  const int n = 1000;
  const uint32_t id = stream_id(StreamKind::arrivals, 0);
  const std::vector<uint32_t> base = draws(1, 0, id, n);
  EXPECT_LE(agreements(base, draws(1, 0, stream_id(StreamKind::arrivals, 1), n)), 1);
  EXPECT_LE(agreements(base, draws(1, 0, stream_id(StreamKind::job_size, 0), n)), 1);
  EXPECT_LE(agreements(base, draws(1, 1, id, n)), 1);
  EXPECT_LE(agreements(base, draws(1, uint64_t{1} << 32, id, n)), 1);  // replication hi word
  EXPECT_LE(agreements(base, draws(2, 0, id, n)), 1);
  EXPECT_LE(agreements(base, draws(uint64_t{1} << 32 | 1, 0, id, n)), 1);  // seed hi word
}

// ---- next_uniform ---------------------------------------------------------------------------

TEST(Philox, UniformStaysInsideOpenInterval) {
  RandomStream s = RandomStream::make(2024, 5, stream_id(StreamKind::test, 0));
  double lo = 1.0, hi = 0.0;
  for (int i = 0; i < 2000000; ++i) {
    const double u = s.next_uniform();
    ASSERT_GT(u, 0.0);
    ASSERT_LT(u, 1.0);
    lo = std::min(lo, u);
    hi = std::max(hi, u);
  }
  EXPECT_LT(lo, 1e-5);  // covers the whole interval
  EXPECT_GT(hi, 1.0 - 1e-5);
}

TEST(Philox, UniformExtremeWordsStayInsideOpenInterval) {
  // The extreme 64-bit inputs of next_uniform (words (0, 0) and (2^32-1, 2^32-1)) are reached by
  // Philox with probability 2^-53 per draw, so feed them through the stream's buffer directly.
  RandomStream s = RandomStream::make(1, 0, 0);
  s.buffer[0] = 0u;
  s.buffer[1] = 0u;
  s.buffer[2] = 0xFFFFFFFFu;
  s.buffer[3] = 0xFFFFFFFFu;
  s.used = 0;
  const double smallest = s.next_uniform();
  const double largest = s.next_uniform();
  EXPECT_GT(smallest, 0.0);
  EXPECT_LT(smallest, 1e-15);
  EXPECT_LT(largest, 1.0) << "next_uniform() returned exactly 1.0 for the all-ones input";
  EXPECT_GT(largest, 1.0 - 1e-15);
  // Upper words just below the maximum must not round up to 1 either.
  s.buffer[0] = 0xFFFFFFFFu;
  s.buffer[1] = 0xFFFFF800u;  // bits53 = 2^53 - 1 as well (low 11 bits are dropped)
  s.buffer[2] = 0xFFFFFFFFu;
  s.buffer[3] = 0xFFFFF000u;  // bits53 = 2^53 - 2
  s.used = 0;
  EXPECT_LT(s.next_uniform(), 1.0);
  EXPECT_LT(s.next_uniform(), 1.0);
}

TEST(Philox, UniformMeanAndVarianceMatchTheory) {
  const int n = 1000000;
  RandomStream s = RandomStream::make(99, 3, stream_id(StreamKind::test, 1));
  double sum = 0, sum_sq = 0;
  for (int i = 0; i < n; ++i) {
    const double u = s.next_uniform() - 0.5;
    sum += u;
    sum_sq += u * u;
  }
  const double mean = sum / n;  // of u - 1/2
  const double variance = sum_sq / n - mean * mean;
  // sd of the mean: sqrt(1/12 / n); sd of the variance estimate: sqrt((mu4 - sigma^4) / n) with
  // mu4 = 1/80 for U(0,1), so mu4 - sigma^4 = 1/80 - 1/144 = 1/180.
  EXPECT_NEAR(mean, 0.0, 5 * std::sqrt(1.0 / 12.0 / n));
  EXPECT_NEAR(variance, 1.0 / 12.0, 5 * std::sqrt(1.0 / 180.0 / n));
}

TEST(Philox, UniformChiSquareOn64Bins) {
  const int bins = 64, n = 1 << 20;
  std::vector<double> counts(bins, 0.0);
  RandomStream s = RandomStream::make(31337, 0, stream_id(StreamKind::test, 2));
  for (int i = 0; i < n; ++i) counts[static_cast<int>(s.next_uniform() * bins)] += 1;
  const double expected = static_cast<double>(n) / bins;
  double chi2 = 0;
  for (double c : counts) chi2 += (c - expected) * (c - expected) / expected;
  const double bound =
      boost::math::quantile(boost::math::chi_squared_distribution<>(bins - 1), 0.9999);
  EXPECT_GT(bound, 110.0);  // sanity of the bound itself (chi2_{63}, 99.99% ~ 113.7)
  EXPECT_LT(bound, 118.0);
  EXPECT_LT(chi2, bound);
}

TEST(Philox, UniformChiSquareOfTopBitsOfEachWord) {
  // Every 32-bit word, not only next_uniform's pairs: 64 bins from the top 6 bits.
  const int bins = 64, n = 1 << 20;
  std::vector<double> counts(bins, 0.0);
  RandomStream s = RandomStream::make(7, 11, stream_id(StreamKind::test, 3));
  for (int i = 0; i < n; ++i) counts[s.next_u32() >> 26] += 1;
  const double expected = static_cast<double>(n) / bins;
  double chi2 = 0;
  for (double c : counts) chi2 += (c - expected) * (c - expected) / expected;
  EXPECT_LT(chi2, boost::math::quantile(boost::math::chi_squared_distribution<>(bins - 1), 0.9999));
}

TEST(Philox, StreamsAreUncorrelated) {
  const int n = 500000;
  // Neighbouring stream ids and neighbouring replications: the closest counters.
  const RandomStream pairs[][2] = {
      {RandomStream::make(5, 0, stream_id(StreamKind::arrivals, 0)),
       RandomStream::make(5, 0, stream_id(StreamKind::arrivals, 1))},
      {RandomStream::make(5, 0, stream_id(StreamKind::arrivals, 0)),
       RandomStream::make(5, 1, stream_id(StreamKind::arrivals, 0))},
      {RandomStream::make(5, 0, stream_id(StreamKind::arrivals, 0)),
       RandomStream::make(6, 0, stream_id(StreamKind::arrivals, 0))},
  };
  for (const auto& pair : pairs) {
    RandomStream a = pair[0], b = pair[1];
    double sab = 0, saa = 0, sbb = 0, sa = 0, sb = 0;
    for (int i = 0; i < n; ++i) {
      const double x = a.next_uniform(), y = b.next_uniform();
      sa += x;
      sb += y;
      sab += x * y;
      saa += x * x;
      sbb += y * y;
    }
    const double cov = sab / n - (sa / n) * (sb / n);
    const double r =
        cov / std::sqrt((saa / n - (sa / n) * (sa / n)) * (sbb / n - (sb / n) * (sb / n)));
    // Under independence the sample correlation is ~ N(0, 1/n).
    EXPECT_LT(std::fabs(r), 5.0 / std::sqrt(static_cast<double>(n)));
  }
}

}  // namespace
}  // namespace gpucap
