// The stopping rule: it stops at a block boundary once every listed metric's interval is narrow
// enough, with the same bits as a fixed run of that many replications, on every backend.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "gpucap/backend.hpp"
#include "gpucap/run.hpp"
#include "gpucap/scenario_loader.hpp"
#include "gpucap/stopping_rule.hpp"
#include "support/same_bits.hpp"

using namespace gpucap;
using testing_support::same_bits;

namespace {

Scenario spot_training() {
  return load_scenario(std::string(GPUCAP_SOURCE_DIR) + "/scenarios/spot_training.yaml", {});
}

void expect_same_run(const RunResults& a, const RunResults& b) {
  ASSERT_EQ(a.replications, b.replications);
  EXPECT_TRUE(same_bits(a.scalars, b.scalars));
  EXPECT_TRUE(same_bits(a.pool_values, b.pool_values));
  ASSERT_EQ(a.summary.size(), b.summary.size());
  for (std::size_t i = 0; i < a.summary.size(); ++i) {
    EXPECT_TRUE(same_bits(a.summary[i].mean, b.summary[i].mean)) << i;
    EXPECT_TRUE(same_bits(a.summary[i].ci95_high, b.summary[i].ci95_high)) << i;
    EXPECT_TRUE(same_bits(a.summary[i].p95, b.summary[i].p95)) << i;
  }
}

}  // namespace

TEST(StoppingRule, StopsAtABlockBoundaryWithTheBitsOfAFixedRun) {
  const Scenario s = spot_training();
  RunOptions options;
  options.replications = 100;  // the first batch, rounded up to one block of 256
  options.precision = 0.02;
  options.precision_metrics = {kCostUsd, kGpuHoursLost};
  const RunResults r = run(s, options);
  EXPECT_EQ(r.replications % kMomentBlock, 0u);
  EXPECT_GT(r.replications, kMomentBlock);  // 256 replications are not enough for 2% here
  for (ScalarMetric m : {kCostUsd, kGpuHoursLost})
    EXPECT_LE(relative_half_width(r, 0, m), 0.02) << kScalarMetricInfo[m].name;
  EXPECT_NE(r.stopping_rule.find("<= 0.02 for cost, gpu_hours_lost: reached at " +
                                 std::to_string(r.replications) + " replications"),
            std::string::npos)
      << r.stopping_rule;
  RunOptions fixed;
  fixed.replications = r.replications;
  expect_same_run(r, run(s, fixed));
}

TEST(StoppingRule, DeviceBlockMomentsAppendToTheSameBits) {
  const Backend* omp = find_backend("thrust-omp");
  if (omp == nullptr || !omp->built()) GTEST_SKIP() << "this build has no thrust-omp backend";
  const Scenario s = spot_training();
  RunOptions options;
  options.backend = BackendChoice::thrust_omp;
  options.replications = 256;
  options.precision = 0.015;
  const RunResults r = run(s, options);
  EXPECT_GT(r.replications, 256u);  // at least one appended batch
  RunOptions cpu;
  cpu.backend = BackendChoice::cpu;
  cpu.replications = r.replications;
  expect_same_run(r, run(s, cpu));
}

TEST(StoppingRule, TheCapEndsARunThatCannotReachThePrecision) {
  const Scenario s = spot_training();
  RunOptions options;
  options.replications = 8;
  options.precision = 1e-6;
  options.max_replications = 300;
  const RunResults r = run(s, options);
  EXPECT_EQ(r.replications, 300u);  // 256, then the cap
  EXPECT_NE(r.stopping_rule.find("NOT reached (the cap) at 300 replications"), std::string::npos);
  RunOptions fixed;
  fixed.replications = 300;
  expect_same_run(r, run(s, fixed));
}

TEST(StoppingRule, ZeroSpreadIsPreciseAndBadOptionsAreRefused) {
  const Scenario s = spot_training();
  RunOptions options;
  options.replications = 256;
  options.precision = 0.01;
  options.precision_metrics = {kJobsDropped};  // 0 in every replication: precise at once
  EXPECT_EQ(run(s, options).replications, 256u);
  options.precision = 0;
  options.max_replications = 1000;
  EXPECT_THROW(run(s, options), std::invalid_argument);  // a cap without a precision
  options.precision = 1.5;
  EXPECT_THROW(run(s, options), std::invalid_argument);
  options.precision = 0.01;
  options.max_replications = kMaxReplications + 1;
  EXPECT_THROW(run(s, options), std::invalid_argument);
  options.max_replications = 0;
  options.first_replication = 100;  // not a block boundary
  EXPECT_THROW(run(s, options), std::invalid_argument);
}

// The rule alone: a pure decision from the rows it is given, which runs nothing (run_points
// runs the batches it asks for).
TEST(StoppingRule, DecidesFromTheRowsItIsGivenAndRunsNothing) {
  RunResults r;
  r.points = 1;
  r.replications = 256;
  r.scalars.assign(r.replications * kScalarMetricCount, 0.0);
  for (std::size_t i = 0; i < r.replications; ++i)  // cost: 100 and 110, mean 105, sd ~5
    r.scalars[i * kScalarMetricCount + kCostUsd] = i % 2 == 0 ? 100.0 : 110.0;
  const double width = relative_half_width(r, 0, kCostUsd);
  ASSERT_GT(width, 0.005);
  ASSERT_LT(width, 0.007);

  StoppingRule loose(0.01, {}, 0, 0);  // cost by default
  EXPECT_EQ(loose.first_batch(100), 256u);
  EXPECT_EQ(loose.next_total(r, UINT64_MAX, false), 0u);
  EXPECT_NE(loose.outcome(r).find("<= 0.01 for cost: reached at 256 replications"),
            std::string::npos)
      << loose.outcome(r);

  StoppingRule tight(0.001, {kCostUsd, kJobsDropped}, 0, 512);
  const uint64_t next = tight.next_total(r, UINT64_MAX, false);
  EXPECT_EQ(next, 4u * 256);  // about 9400 projected, at most 4 times what it has
  EXPECT_THROW(tight.next_total(r, 0, false), std::invalid_argument);  // rows that do not fit

  StoppingRule capped(0.001, {}, 300, 0);
  EXPECT_EQ(capped.first_batch(1000), 300u);
  EXPECT_EQ(capped.next_total(r, UINT64_MAX, false), 300u);
  r.replications = 300;
  r.scalars.resize(r.replications * kScalarMetricCount, 100.0);
  EXPECT_EQ(capped.next_total(r, UINT64_MAX, false), 0u);
  EXPECT_NE(capped.outcome(r).find("NOT reached (the cap) at 300 replications"), std::string::npos);

  EXPECT_THROW(StoppingRule(0, {}, 0, 0), std::invalid_argument);
  EXPECT_THROW(StoppingRule(1.5, {}, 0, 0), std::invalid_argument);
  EXPECT_THROW(StoppingRule(0.01, {}, 0, 100), std::invalid_argument);  // off a block
  EXPECT_THROW(StoppingRule(0.01, {}, kMaxReplications + 1, 0), std::invalid_argument);
  EXPECT_THROW(StoppingRule(0.01, {}, 1, 0), std::invalid_argument);
}
