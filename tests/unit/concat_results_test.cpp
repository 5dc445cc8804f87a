// Tests of concat_results: joined slices of one run are that run, bit for bit; anything else is
// refused with the part and the difference named.
#include <cstdint>
#include <cstring>
#include <gtest/gtest.h>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpucap/concat.hpp"

namespace gpucap {
namespace {

/// Replications [first, first + reps) of a run of `points` points and 2 pools, whose value at
/// (point p, replication r, column c) depends on those only, as a real run's do (streams keyed by
/// (seed, r)). Summaries computed.
RunResults slice(std::size_t first, std::size_t reps, const std::vector<std::string>& quotas) {
  RunResults r;
  r.scenario_name = "s";
  r.scenario_original_text = "name: s\n";
  r.seed = 7;
  r.points = quotas.size();
  r.replications = reps;
  r.first_replication = first;
  r.backend = "cpu-openmp";
  r.pool_names = {"spot", "od"};
  r.sweep = {{"pools.spot.quota", quotas}};
  GoalSpec goal;  // met where cost <= 4100 USD: the first 271 replications of quota 4
  goal.name = "cheap";
  GoalCondition condition;
  condition.text = "cost <= 4100";
  condition.lhs.metric = kCostUsd;
  condition.constant = 4100;
  goal.conditions = {condition};
  r.goals = {goal};
  r.timeseries_bins = 2;
  r.timeseries_step_s = 3600;
  for (std::size_t p = 0; p < r.points; ++p) {
    const double q = std::stod(quotas[p]);
    for (std::size_t i = first; i < first + reps; ++i) {
      for (std::size_t m = 0; m < kScalarMetricCount; ++m)
        r.scalars.push_back(q * 1000.0 + static_cast<double>(i) * 0.37 + m / 3.0 +
                            (i % 7 == 3 ? 1e-3 * static_cast<double>(i * i % 11) : 0.0));
      for (std::size_t k = 0; k < 2 * kPoolMetricCount; ++k)
        r.pool_values.push_back(q + static_cast<double>(i % 13) * 0.5 + k * 0.01);
      for (std::size_t b = 0; b < 2 * r.timeseries_bins; ++b)
        r.timeseries.push_back(q * 0.1 + static_cast<double>(i % 5) + b);
    }
  }
  r.summarize_all();
  return r;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

void expect_same_summaries(const std::vector<MetricSummary>& a,
                           const std::vector<MetricSummary>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].n, b[i].n);
    for (auto f :
         {&MetricSummary::mean, &MetricSummary::std, &MetricSummary::ci95_low,
          &MetricSummary::ci95_high, &MetricSummary::p5, &MetricSummary::p50, &MetricSummary::p95})
      EXPECT_EQ(std::memcmp(&(a[i].*f), &(b[i].*f), sizeof(double)), 0) << i;
  }
}

void expect_same_run(const RunResults& a, const RunResults& b) {
  EXPECT_EQ(a.points, b.points);
  EXPECT_EQ(a.replications, b.replications);
  EXPECT_EQ(a.first_replication, b.first_replication);
  ASSERT_EQ(a.sweep.size(), b.sweep.size());
  EXPECT_EQ(a.sweep[0].values, b.sweep[0].values);
  EXPECT_TRUE(same_bits(a.scalars, b.scalars));
  EXPECT_TRUE(same_bits(a.pool_values, b.pool_values));
  EXPECT_TRUE(same_bits(a.timeseries, b.timeseries));
  expect_same_summaries(a.summary, b.summary);
  expect_same_summaries(a.pool_summary, b.pool_summary);
  EXPECT_EQ(a.goals.size(), b.goals.size());
  EXPECT_EQ(a.goal_met, b.goal_met);
  ASSERT_EQ(a.goal_summary.size(), b.goal_summary.size());
  for (std::size_t i = 0; i < a.goal_summary.size(); ++i) {
    EXPECT_EQ(a.goal_summary[i].met, b.goal_summary[i].met);
    EXPECT_EQ(a.goal_summary[i].n, b.goal_summary[i].n);
  }
}

TEST(ConcatResults, ReplicationChunksAreOneRunBitForBit) {
  const std::vector<std::string> q = {"4", "8"};
  const RunResults whole = slice(0, 700, q);  // 700: blocks of 256 do not align with the chunks
  const RunResults a = slice(0, 300, q), b = slice(300, 250, q), c = slice(550, 150, q);
  expect_same_run(concat_results({&c, &a, &b}, ConcatAxis::replications), whole);
  ASSERT_EQ(whole.goal_summary.size(), 2u);
  EXPECT_EQ(whole.goal_summary[0].met, 271u);  // cost 4000 + 0.37 r (+ < 0.011) <= 4100
  EXPECT_EQ(whole.goal_summary[1].met, 0u);
  const RunResults late = slice(1000, 700, q);
  EXPECT_EQ(concat_results({&late}, ConcatAxis::replications).first_replication, 1000u);
}

TEST(ConcatResults, SweepsAreTheCombinedSweepBitForBit) {
  const RunResults whole = slice(0, 40, {"4", "8", "16"});
  const RunResults a = slice(0, 40, {"4", "8"}), b = slice(0, 40, {"8", "16"});
  const RunResults joined = concat_results({&a, &b}, ConcatAxis::points);  // 8 kept once
  expect_same_run(joined, whole);
}

/// The message of the invalid_argument concat_results throws ("" when it does not).
std::string refusal(const std::vector<const RunResults*>& parts, ConcatAxis axis) {
  try {
    concat_results(parts, axis);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(ConcatResults, RefusesSlicesOfDifferentRunsNamingTheDifference) {
  const RunResults a = slice(0, 10, {"4"});
  RunResults other = slice(0, 10, {"8"});
  other.seed = 8;
  EXPECT_NE(
      refusal({&a, &other}, ConcatAxis::points).find("part 1 cannot be joined: its seed is 8"),
      std::string::npos);
  other = slice(0, 10, {"8"});
  other.scenario_original_text = "name: t\n";
  EXPECT_NE(refusal({&a, &other}, ConcatAxis::points).find("scenario text differs"),
            std::string::npos);
  other = slice(0, 10, {"8"});
  other.pool_names = {"spot", "reserved"};
  EXPECT_NE(refusal({&a, &other}, ConcatAxis::points).find("pools differ"), std::string::npos);
  other = slice(10, 10, {"8"});
  EXPECT_NE(refusal({&a, &other}, ConcatAxis::points).find("replications [10, 20)"),
            std::string::npos);
  other = slice(0, 10, {"8"});
  other.sweep[0].path = "pools.od.quota";
  EXPECT_NE(refusal({&a, &other}, ConcatAxis::points).find("swept parameters differ"),
            std::string::npos);
  other = slice(0, 10, {"4"});
  other.scalars[0] += 1;  // the same point with other values
  EXPECT_NE(refusal({&a, &other}, ConcatAxis::points).find("other results"), std::string::npos);
  other = slice(0, 10, {"8"});
  other.goals.clear();
  EXPECT_NE(refusal({&a, &other}, ConcatAxis::points).find("goals differ"), std::string::npos);
  // Along replications: gaps, overlaps and other grids.
  other = slice(12, 10, {"4"});
  EXPECT_NE(refusal({&a, &other}, ConcatAxis::replications).find("start at 12, expected 10"),
            std::string::npos);
  other = slice(10, 10, {"8"});
  EXPECT_NE(refusal({&a, &other}, ConcatAxis::replications).find("sweep grid differs"),
            std::string::npos);
  EXPECT_NE(refusal({}, ConcatAxis::points).find("no results"), std::string::npos);
}

// Replication indices are 64-bit: chunks whose range reaches 2^64 would continue at replication
// 0, whose streams a run already has (the value columns here do not matter).
TEST(ConcatResults, RefusesReplicationRangesPastTwoToTheSixtyFour) {
  RunResults last = slice(0, 10, {"4"});
  last.first_replication = UINT64_MAX - 9;  // the last 10 indices: valid
  EXPECT_EQ(concat_results({&last}, ConcatAxis::replications).replications, 10u);
  RunResults wrapped = slice(10, 10, {"4"});
  wrapped.first_replication = 0;  // what first + 10 gives modulo 2^64
  // (sorted by their first replication, the wrapped chunk comes first: the other is not next)
  EXPECT_NE(refusal({&last, &wrapped}, ConcatAxis::replications)
                .find("part 1 cannot be joined: its replications start at 18446744073709551606, "
                      "expected 10"),
            std::string::npos)
      << refusal({&last, &wrapped}, ConcatAxis::replications);
  RunResults past = slice(0, 10, {"4"});
  past.first_replication = UINT64_MAX - 8;
  EXPECT_NE(refusal({&past}, ConcatAxis::replications).find("run past index 2^64 - 1"),
            std::string::npos);
}

}  // namespace
}  // namespace gpucap
