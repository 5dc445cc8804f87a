// The cost split by purchase option (cost_on_demand ... cost_serverless): each is the sum of the
// costs of the pools bought so, egress included, and together they are `cost`.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "gpucap/metrics.hpp"
#include "gpucap/purchase_options.hpp"
#include "gpucap/run.hpp"
#include "gpucap/scenario_loader.hpp"

#include "support/scenario_fixture.hpp"

namespace gpucap {
namespace {

namespace fs = std::filesystem;

class CostByOption : public testing_support::ScenarioFixture {
 protected:
  static RunResults run_it(const Scenario& s, std::size_t replications) {
    RunOptions o;
    o.replications = replications;
    o.threads = 1;
    return run(s, o);
  }
};

ScalarMetric cost_metric(PurchaseOption o) {
  return static_cast<ScalarMetric>(kCostOnDemandUsd + static_cast<uint32_t>(o));
}

TEST(CostByOptionNames, OneMetricPerOptionNamedAfterIt) {
  EXPECT_EQ(static_cast<std::size_t>(kCostServerlessUsd - kCostOnDemandUsd + 1),
            purchase_options().size());
  for (const PurchaseOptionInfo& o : purchase_options()) {
    const MetricInfo& info = kScalarMetricInfo[cost_metric(o.option)];
    EXPECT_EQ(std::string(info.name), "cost_" + std::string(o.name));
    EXPECT_STREQ(info.unit, "USD");
    EXPECT_EQ(info.group, MetricGroup::cost_by_option);
  }
}

// Jobs spill over five pools, one per option but serverless (which runs inference only); a
// region apart for the marketplace pool, so some cost is egress. Each option's metric is its
// pool's cost exactly (one pool each: 0 + x), serverless is 0, and they add up to `cost`.
TEST_F(CostByOption, EachOptionIsItsPoolsCostAndTheyAddUpToCost) {
  const Scenario s = parse(
      "name: split\nhorizon: 2d\nseed: 17\n"
      "regions:\n"
      "  east: {egress_usd_per_gb: 0.09, bandwidth_gbps: {west: 10}}\n"
      "  west: {egress_usd_per_gb: 0.02}\n"
      "pools:\n"
      "  r:  {gpu: H100, region: east, purchase: reserved, count: 4, price_usd_per_gpu_hour: 2}\n"
      "  ow: {gpu: H100, region: east, purchase: owned, count: 4, capex_usd_per_gpu: 30000,\n"
      "       amortize_years: 3, opex_usd_per_gpu_hour: 0.5}\n"
      "  mk: {gpu: H100, region: west, purchase: marketplace, price_usd_per_gpu_hour: 1.1,\n"
      "       quota: 4, preemption: {time_to_preemption: {dist: exponential, mean: 5h}}}\n"
      "  sp: {gpu: H100, region: east, purchase: spot, price_usd_per_gpu_hour: 1.5, quota: 4,\n"
      "       preemption: {time_to_preemption: {dist: exponential, mean: 4h}}}\n"
      "  od: {gpu: H100, region: east, price_usd_per_gpu_hour: 4, quota: 64}\n"
      "workloads:\n"
      "  - name: jobs\n"
      "    gpus: 1\n"
      "    work: {dist: exponential, mean: 2h}\n"
      "    arrivals: {process: poisson, rate_per_hour: 12}\n"
      "    data: {size_gb: 40, region: east}\n"
      "    placement: [r, ow, mk, sp, od]\n");
  const RunResults r = run_it(s, 8);
  const PurchaseOption option_of_pool[] = {PurchaseOption::reserved, PurchaseOption::owned,
                                           PurchaseOption::marketplace, PurchaseOption::spot,
                                           PurchaseOption::on_demand};
  ASSERT_EQ(r.pool_count(), 5u);
  double egress = 0;
  for (std::size_t rep = 0; rep < r.replications; ++rep) {
    double sum = 0;
    for (std::size_t p = 0; p < 5; ++p) {
      const double pool_cost = r.pool_value(0, rep, p, kPoolCostUsd);
      EXPECT_GT(pool_cost, 0.0) << r.pool_names[p];
      EXPECT_EQ(r.scalar(0, rep, cost_metric(option_of_pool[p])), pool_cost) << r.pool_names[p];
      sum += pool_cost;
    }
    EXPECT_EQ(r.scalar(0, rep, kCostServerlessUsd), 0.0);
    EXPECT_NEAR(sum, r.scalar(0, rep, kCostUsd), 1e-12 * r.scalar(0, rep, kCostUsd));
    egress += r.pool_value(0, rep, 2, kPoolEgressUsd);
  }
  EXPECT_GT(egress, 0.0);  // the marketplace pool's cost includes the data it fetched
  // Committed pools cost their count for the whole window, used or not: 4 GPUs x 48 h x 2 USD.
  EXPECT_DOUBLE_EQ(r.scalar(0, 0, kCostReservedUsd), 4 * 48 * 2.0);
}

// Two pools of one option add up under it; a run of one option has that option's cost equal
// to `cost`, bit for bit (the same additions in the same order).
TEST_F(CostByOption, PoolsOfOneOptionAddUp) {
  const Scenario s = parse(
      "name: same\nhorizon: 1d\nseed: 3\n"
      "pools:\n"
      "  a: {gpu: H100, price_usd_per_gpu_hour: 4, quota: 2}\n"
      "  b: {gpu: A100, price_usd_per_gpu_hour: 2, quota: 64}\n"
      "workloads:\n"
      "  - name: jobs\n"
      "    gpus: 1\n"
      "    work: {dist: exponential, mean: 1h}\n"
      "    arrivals: {process: poisson, rate_per_hour: 6}\n"
      "    placement: [a, b]\n");
  const RunResults r = run_it(s, 4);
  for (std::size_t rep = 0; rep < r.replications; ++rep) {
    EXPECT_GT(r.pool_value(0, rep, 1, kPoolCostUsd), 0.0);
    EXPECT_EQ(r.scalar(0, rep, kCostOnDemandUsd), r.scalar(0, rep, kCostUsd));
    for (uint32_t m = kCostSpotUsd; m <= kCostServerlessUsd; ++m)
      EXPECT_EQ(r.scalar(0, rep, static_cast<ScalarMetric>(m)), 0.0) << kScalarMetricInfo[m].name;
  }
  EXPECT_EQ(r.summary_of(0, kCostOnDemandUsd).mean, r.summary_of(0, kCostUsd).mean);
}

// Inference on serverless with a dedicated (on-demand) pool: the replicas' lifetimes are
// billed under serverless.
TEST_F(CostByOption, ServerlessReplicasAreBilledUnderServerless) {
  const fs::path file =
      fs::path(GPUCAP_SOURCE_DIR) / "scenarios" / "serverless_vs_dedicated.yaml";
  Scenario s = load_scenario(file.string());
  const RunResults r = run_it(s, 3);
  std::size_t serverless = r.pool_count(), dedicated = r.pool_count();
  for (std::size_t p = 0; p < r.pool_count(); ++p) {
    if (r.pool_names[p] == "serverless-l4") serverless = p;
    if (r.pool_names[p] == "dedicated") dedicated = p;
  }
  ASSERT_LT(serverless, r.pool_count());
  ASSERT_LT(dedicated, r.pool_count());
  for (std::size_t rep = 0; rep < r.replications; ++rep) {
    EXPECT_GT(r.scalar(0, rep, kCostServerlessUsd), 0.0);
    EXPECT_EQ(r.scalar(0, rep, kCostServerlessUsd), r.pool_value(0, rep, serverless, kPoolCostUsd));
    EXPECT_EQ(r.scalar(0, rep, kCostOnDemandUsd), r.pool_value(0, rep, dedicated, kPoolCostUsd));
  }
}

}  // namespace
}  // namespace gpucap
