// time_to_reclaim (engine/reclaim_draw.hpp): the one rule by which job runs and replica lifetimes
// on a preemptible pool are reclaimed, and what it draws from the pool's preemption stream.
#include <gtest/gtest.h>

#include <cmath>

#include "gpucap/compiled_model.hpp"
#include "gpucap/distribution.hpp"
#include "gpucap/engine/reclaim_draw.hpp"
#include "gpucap/philox.hpp"

namespace gpucap {
namespace {

RandomStream fresh_stream() { return RandomStream::make(7, 3, 11); }

/// How many 32-bit words `rng` has drawn since it was made.
uint64_t words_drawn(const RandomStream& rng) { return 4ull * rng.block - (4 - rng.used); }

CompiledPool exponential_pool(double mean_s, double max_runtime_s) {
  CompiledPool p;
  p.preemptible = true;
  p.has_time_to_preemption = true;
  p.time_to_preemption_s.kind = DistKind::exponential;
  p.time_to_preemption_s.p0 = mean_s;
  p.max_runtime_s = max_runtime_s;
  return p;
}

TEST(ReclaimDraw, NeitherRuleNeverReclaimsAndDrawsNothing) {
  CompiledPool p;
  p.preemptible = true;  // e.g. a pool reclaimed only by zone events or its availability trace
  RandomStream rng = fresh_stream();
  EXPECT_TRUE(std::isinf(time_to_reclaim(p, rng, nullptr)));
  EXPECT_EQ(words_drawn(rng), 0u);
}

TEST(ReclaimDraw, MaxRuntimeAloneIsExactAndDrawsNothing) {
  CompiledPool p;
  p.preemptible = true;
  p.max_runtime_s = 6 * 3600.0;
  RandomStream rng = fresh_stream();
  EXPECT_EQ(time_to_reclaim(p, rng, nullptr), 6 * 3600.0);
  EXPECT_EQ(words_drawn(rng), 0u);
}

TEST(ReclaimDraw, TheTimeToPreemptionIsOneDrawCappedByMaxRuntime) {
  // The same stream state gives the same draw: the uncapped pool returns it, the capped one
  // returns the smaller of it and max_runtime, and both advance the stream alike.
  const CompiledPool uncapped = exponential_pool(3600.0, 0);
  RandomStream a = fresh_stream(), b = fresh_stream(), c = fresh_stream();
  const double drawn = time_to_reclaim(uncapped, a, nullptr);
  EXPECT_EQ(drawn, sample(uncapped.time_to_preemption_s, b, nullptr));
  EXPECT_GT(drawn, 0.0);
  const CompiledPool capped = exponential_pool(3600.0, drawn / 2);
  EXPECT_EQ(time_to_reclaim(capped, c, nullptr), drawn / 2);
  EXPECT_EQ(words_drawn(a), words_drawn(b));
  EXPECT_EQ(words_drawn(c), words_drawn(a));
  // Over many draws the mean is the distribution's, and a cap at the mean halves the
  // exponential's tail: P(T > m) = e^-1.
  RandomStream rng = fresh_stream();
  const CompiledPool at_mean = exponential_pool(3600.0, 3600.0);
  const int n = 200000;
  double capped_count = 0;
  for (int i = 0; i < n; ++i) capped_count += time_to_reclaim(at_mean, rng, nullptr) == 3600.0;
  const double share = capped_count / n, expected = std::exp(-1.0);
  EXPECT_NEAR(share, expected, 4 * std::sqrt(expected * (1 - expected) / n));
}

}  // namespace
}  // namespace gpucap
