// Billing commitments (`commitments:`): a reservation of GPUs or a savings plan, paid every
// period used or not and applied each period to whatever usage the on-demand pools it covers
// have, as the clouds bill them; against hand-worked bills, and against the capacity
// reservation (`purchase: reserved`), whose cheapest count is anchored to what runs at t = 0.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "gpucap/metrics.hpp"
#include "gpucap/run.hpp"

#include "support/one_replication.hpp"
#include "support/scenario_fixture.hpp"

namespace gpucap {
namespace {

using testing_support::Row;
using testing_support::run_once;

class BillingCommitment : public testing_support::ScenarioFixture {};

/// A fleet of 1-GPU instances alive at t = 0 (state.csv, remaining in hours) on pools `pools`,
/// placed by `placement`, over `horizon`; `extra` is added at the top level.
std::string fleet(const std::string& pools, const std::string& placement,
                  const std::string& extra = "", const std::string& horizon = "10h") {
  return "name: fleet\nhorizon: " + horizon + "\nseed: 1\npools:\n" + pools + extra +
         "workloads:\n  - name: fleet\n    kind: deployment\n    gpus: 1\n"
         "    placement: [" + placement + "]\n"
         "    arrivals: {process: poisson, rate_per_day: 0.000001}\n    lifetime: 1000h\n"
         "    initial_state: {file: state.csv, time_unit: 1h}\n";
}

const char* kOnDemand = "  od: {gpu: H100, price_usd_per_gpu_hour: 3.50, quota: 64}\n";

// The worked case: 1 GPU committed at 1.90 USD per GPU-hour, on-demand at 3.50, two
// instances running 0-1 h and 0-10 h. The cloud bills 10 x 1.90 + 1 x 3.50 = 22.5 USD (hour 0:
// 2 GPU-h of usage, 1 covered; hours 1-9: 1 GPU-h, covered). A reserved pool of 1 GPU instead
// holds the first instance, so the second runs on demand for 10 h: 19 + 35 = 54 USD.
TEST_F(BillingCommitment, TheWorkedCaseIsBilledAsTheCloudsBillIt) {
  write("state.csv", "remaining\n1\n10\n");
  const Row bill = run_once(parse(fleet(
      kOnDemand, "od", "commitments:\n  plan: {covers: [od], gpus: 1, price_usd_per_gpu_hour: 1.90}\n")));
  EXPECT_NEAR(bill[kCostUsd], 22.5, 1e-9);
  EXPECT_NEAR(bill[kCostCommitmentsUsd], 19.0, 1e-9);
  EXPECT_NEAR(bill[kCostOnDemandUsd], 3.5, 1e-9);
  EXPECT_NEAR(bill.pool(0, kPoolCostUsd), 3.5, 1e-9);
  EXPECT_NEAR(bill[kGpuHoursBilled], 11.0, 1e-9);  // the usage billed, covered or not
  const Row pool = run_once(parse(fleet(
      "  reserved: {gpu: H100, purchase: reserved, count: 1, price_usd_per_gpu_hour: 1.90}\n" +
          std::string(kOnDemand),
      "reserved, od")));
  EXPECT_NEAR(pool[kCostUsd], 54.0, 1e-9);
}

// A savings plan of 1.90 USD an hour at a 50% discount (plan rate 1.75 per GPU-hour) on the same
// fleet: hour 0 has 7 USD of on-demand usage, 3.50 at the plan's rates, of which 1.90 is
// committed: it pays 1.90 / 3.50 of the hour's 7 USD; hours 1-9 have 1.75 at plan rates, all
// paid. Bill: 19 (the plan) + 7 x (1 - 1.9 / 3.5) = 22.2 USD.
TEST_F(BillingCommitment, ASavingsPlanPaysItsSpendAtItsOwnRates) {
  write("state.csv", "remaining\n1\n10\n");
  const Row r = run_once(parse(fleet(
      kOnDemand, "od",
      "commitments:\n  plan: {covers: [od], usd_per_hour: 1.90, discount: 0.5}\n")));
  EXPECT_NEAR(r[kCostCommitmentsUsd], 19.0, 1e-9);
  EXPECT_NEAR(r[kCostOnDemandUsd], 7.0 * (1.0 - 1.9 / 3.5), 1e-9);
  EXPECT_NEAR(r[kCostUsd], 19.0 + 7.0 * (1.0 - 1.9 / 3.5), 1e-9);
}

// Settled per period: with a 10 h period the 11 GPU-h of usage meet 10 committed GPU-h, so 10/11
// of their 38.5 USD are paid (3.5 left), and the fee covers only the window: with a warm-up of
// 5 h the 5 committed hours cost 9.5 USD and cover the window's 5 GPU-h.
TEST_F(BillingCommitment, PeriodsAndTheWindow) {
  write("state.csv", "remaining\n1\n10\n");
  Row r = run_once(parse(fleet(
      kOnDemand, "od",
      "commitments:\n  plan: {covers: [od], gpus: 1, price_usd_per_gpu_hour: 1.90, period: 10h}\n")));
  EXPECT_NEAR(r[kCostOnDemandUsd], 38.5 / 11.0, 1e-9);
  r = run_once(parse(fleet(kOnDemand, "od",
                           "warmup: 5h\ncommitments:\n  plan: {covers: [od], gpus: 1, "
                           "price_usd_per_gpu_hour: 1.90}\n")));
  EXPECT_NEAR(r[kCostCommitmentsUsd], 9.5, 1e-9);
  EXPECT_NEAR(r[kCostUsd], 9.5, 1e-9);
}

// A commitment of 0 GPUs costs nothing and changes no bit of the run.
TEST_F(BillingCommitment, ZeroGpusChangeNothing) {
  write("state.csv", "remaining\n1\n10\n3\n");
  const Row plain = run_once(parse(fleet(kOnDemand, "od")));
  const Row zero = run_once(parse(fleet(
      kOnDemand, "od", "commitments:\n  plan: {covers: [od], gpus: 0, price_usd_per_gpu_hour: 1.90}\n")));
  // Bit for bit, NaN included (metrics nothing defines are NaN in both).
  for (uint32_t m = 0; m < kScalarMetricCount; ++m)
    EXPECT_EQ(std::memcmp(&zero.scalars[m], &plain.scalars[m], sizeof(double)), 0)
        << kScalarMetricInfo[m].name;
}

// Two covered pools share one commitment period by period: an instance that could not get the
// first (its quota full at t = 0) runs on the second, and is covered as soon as the first
// frees up. 3 GPUs committed; pool a (quota 2) holds instances ending at 2 h and 10 h, pool b the
// third (10 h): hours 0-1 have 3 GPU-h covered, hours 2-9 2 GPU-h; nothing is billed on demand.
TEST_F(BillingCommitment, OneCommitmentOverSeveralPools) {
  write("state.csv", "remaining\n2\n10\n10\n");
  const Row r = run_once(parse(fleet(
      "  a: {gpu: H100, price_usd_per_gpu_hour: 3.50, quota: 2}\n"
      "  b: {gpu: H100, price_usd_per_gpu_hour: 4.00, quota: 8}\n",
      "a, b", "commitments:\n  plan: {covers: [a, b], gpus: 3, price_usd_per_gpu_hour: 1.90}\n")));
  EXPECT_NEAR(r[kCostCommitmentsUsd], 57.0, 1e-9);
  EXPECT_NEAR(r[kCostOnDemandUsd], 0.0, 1e-9);
  EXPECT_NEAR(r[kCostUsd], 57.0, 1e-9);
}

// The anchoring the capacity reservation shows, and the billing form does not. Ten instances
// run at t = 0: five end at 1 h (listed first, so they take the reserved GPUs), five run 10 h.
// Hourly usage is 10 GPUs in hour 0 and 5 after. Billed as the clouds do, a commitment of C
// GPUs costs 19 C + 3.5 (max(0, 10 - C) + 9 max(0, 5 - C)): cheapest at C = 5, the newsvendor
// quantile (usage exceeds C in 10% of hours, below 1.90 / 3.50). A reserved pool of N GPUs
// keeps the long instances that did not fit at t = 0 on demand for their whole life: cheapest
// at N = 10, the count running at t = 0.
TEST_F(BillingCommitment, TheCheapestCommittedCountIsNotAnchoredToTheStateAtZero) {
  write("state.csv", "remaining\n1\n1\n1\n1\n1\n10\n10\n10\n10\n10\n");
  double best_bill = 1e300, best_pool = 1e300;
  int argmin_bill = -1, argmin_pool = -1;
  for (int n = 0; n <= 10; ++n) {
    const Row bill = run_once(parse(fleet(
        kOnDemand, "od",
        "commitments:\n  plan: {covers: [od], gpus: " + std::to_string(n) +
            ", price_usd_per_gpu_hour: 1.90}\n")));
    const double expected =
        19.0 * n + 3.5 * (std::max(0, 10 - n) + 9.0 * std::max(0, 5 - n));
    EXPECT_NEAR(bill[kCostUsd], expected, 1e-9) << n;
    if (bill[kCostUsd] < best_bill - 1e-9) best_bill = bill[kCostUsd], argmin_bill = n;
    const Row pool = run_once(parse(fleet(
        "  reserved: {gpu: H100, purchase: reserved, count: " + std::to_string(n) +
            ", price_usd_per_gpu_hour: 1.90}\n" + kOnDemand,
        "reserved, od")));
    if (pool[kCostUsd] < best_pool - 1e-9) best_pool = pool[kCostUsd], argmin_pool = n;
  }
  EXPECT_EQ(argmin_bill, 5);
  EXPECT_NEAR(best_bill, 112.5, 1e-9);
  EXPECT_EQ(argmin_pool, 10);
  EXPECT_NEAR(best_pool, 190.0, 1e-9);
}

// A placement limit may take a reservation's GPUs as its count of GPUs, so that a sweep of the
// commitment moves it; instances of 1 and 2 GPUs (a trace's) count their GPUs: with 3 GPUs
// committed, the 2-GPU instance and one 1-GPU instance fit in pool a, the others go to b.
TEST_F(BillingCommitment, APlacementLimitTakesTheCommitmentsGpus) {
  write("trace.csv", "start,end,gpus\n,10,2\n,10,1\n,10,1\n,10,2\n1,,1\n");
  const Row r = run_once(parse(
      "name: f\nhorizon: 10h\npools:\n"
      "  a: {gpu: H100, price_usd_per_gpu_hour: 3.5, quota: 64}\n"
      "  b: {gpu: H100, price_usd_per_gpu_hour: 3.5, quota: 64}\n"
      "commitments:\n  plan: {covers: [a, b], gpus: 3, price_usd_per_gpu_hour: 1.9}\n"
      "workloads:\n  - name: w\n    kind: deployment\n    gpus: 1\n    placement: [a, b]\n"
      "    placement_limit: {pool: a, commitment: plan}\n"
      "    arrivals: {process: trace, file: trace.csv, submit_column: start, end_column: end,\n"
      "               blank_end: still_running, time_unit: 1h}\n"));
  // a: the first 2-GPU instance and the next 1-GPU one (3 GPUs for 10 h); b: the rest, and the
  // arrival at 1 h (a is full): 1 + 2 GPUs for 10 h and 1 GPU for 9 h.
  EXPECT_NEAR(r.pool(0, kPoolGpuHoursUsed), 30.0, 1e-9);
  EXPECT_NEAR(r.pool(1, kPoolGpuHoursUsed), 39.0, 1e-9);
}

TEST_F(BillingCommitment, APlacementLimitFollowsTheCommitmentThroughOverrides) {
  const Scenario s = parse(
      "name: f\nhorizon: 1d\npools:\n"
      "  a: {gpu: H100, price_usd_per_gpu_hour: 3.5, quota: 64}\n"
      "  b: {gpu: H100, purchase: spot, price_usd_per_gpu_hour: 1, quota: 64,\n"
      "      preemption: {time_to_preemption: 6h}}\n"
      "commitments:\n  plan: {covers: [a], gpus: 3, price_usd_per_gpu_hour: 1.9}\n"
      "workloads:\n  - name: w\n    kind: deployment\n    gpus: 2\n    placement: [a, b]\n"
      "    placement_limit: {pool: a, commitment: plan}\n"
      "    arrivals: {process: poisson, rate_per_hour: 4}\n    lifetime: 10h\n",
      {"commitments.plan.gpus=5"});
  EXPECT_EQ(s.workloads[0].limit_jobs, 5u);
  EXPECT_TRUE(s.workloads[0].limit_gpus);
  EXPECT_EQ(s.commitments[0].gpus, 5u);
}

TEST_F(BillingCommitment, MistakesAreNamed) {
  const std::string pools =
      "  od: {gpu: H100, price_usd_per_gpu_hour: 3.5, quota: 8}\n"
      "  spot: {gpu: H100, purchase: spot, price_usd_per_gpu_hour: 1, quota: 8,\n"
      "         preemption: {time_to_preemption: 6h}}\n";
  const auto with = [&](const std::string& commitments, const std::string& limit = "") {
    return "name: f\nhorizon: 1d\npools:\n" + pools + "commitments:\n" + commitments +
           "workloads:\n  - name: w\n    kind: deployment\n    placement: [od, spot]\n" + limit +
           "    arrivals: {process: poisson, rate_per_hour: 1}\n    lifetime: 5h\n";
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {with("  p: {covers: [spot], gpus: 1, price_usd_per_gpu_hour: 1}\n"),
       "commitments.p.covers[0]: pool \"spot\" is spot; a billing commitment covers on_demand "
       "pools"},
      {with("  p: {covers: [od], gpus: 1, price_usd_per_gpu_hour: 1}\n"
            "  q: {covers: [od], gpus: 1, price_usd_per_gpu_hour: 1}\n"),
       "commitments.q.covers[0]: pool \"od\" is covered by commitment \"p\" already"},
      {with("  p: {covers: [od], gpus: 1, usd_per_hour: 2, price_usd_per_gpu_hour: 1}\n"),
       "commitments.p: give either gpus (a reservation) or usd_per_hour (a savings plan), not "
       "both"},
      {with("  p: {covers: [od]}\n"), "commitments.p: needs gpus (a reservation of GPUs"},
      {with("  p: {covers: [od], gpus: 1}\n"),
       "commitments.p.price_usd_per_gpu_hour: is required: the committed price per GPU-hour"},
      {with("  p: {covers: [od], usd_per_hour: 2}\n"), "commitments.p.discount: is required"},
      {with("  p: {covers: [od], usd_per_hour: 2, discount: 1}\n"), "commitments.p.discount"},
      {with("  p: {covers: [od], gpus: 1, price_usd_per_gpu_hour: 1, period: 0.1s}\n"),
       "commitments.p.period: gives 864000 periods over the horizon; at most 100000"},
      {with("  p: {covers: [nope], gpus: 1, price_usd_per_gpu_hour: 1}\n"),
       "commitments.p.covers[0]"},
      {with("  p: {covers: [], gpus: 1, price_usd_per_gpu_hour: 1}\n"),
       "commitments.p.covers: must be a non-empty list of on-demand pools"},
      {with("  p: {covers: [od], gpus: -1, price_usd_per_gpu_hour: 1}\n"),
       "commitments.p.gpus: must be a whole number from 0 to 1048575"},
      {with("  p: {covers: [od], gpus: 1, price_usd_per_gpu_hour: 1, colour: red}\n"),
       "commitments.p.colour: unknown key"},
      {with("  p: {covers: [od], gpus: 1, price_usd_per_gpu_hour: 1}\n",
            "    placement_limit: {pool: spot, commitment: p}\n"),
       "placement_limit.commitment: commitment \"p\" does not cover pool \"spot\""},
      {with("  p: {covers: [od], gpus: 1, price_usd_per_gpu_hour: 1}\n",
            "    placement_limit: {pool: od, commitment: p, jobs: 2}\n"),
       "placement_limit.commitment: gives the limit itself"},
      {with("  p: {covers: [od], usd_per_hour: 2, discount: 0.3}\n",
            "    placement_limit: {pool: od, commitment: p}\n"),
       "is a savings plan (usd_per_hour); a limit takes a reservation's gpus"},
  };
  for (const auto& [yaml, message] : cases) {
    const std::string e = error_of(yaml);
    EXPECT_NE(e.find(message), std::string::npos) << "expected: " << message << "\ngot: " << e;
  }
  // The default period (1 h) over more than 100,000 hours: named at the commitment (the
  // period key it lacks has no place in the file).
  std::string long_run = with("  p: {covers: [od], gpus: 1, price_usd_per_gpu_hour: 1}\n");
  long_run.replace(long_run.find("horizon: 1d"), 11, "horizon: 5000d");
  const std::string e = error_of(long_run);
  EXPECT_NE(e.find("commitments.p.period: gives 120000 periods over the horizon"),
            std::string::npos)
      << e;
}

}  // namespace
}  // namespace gpucap
