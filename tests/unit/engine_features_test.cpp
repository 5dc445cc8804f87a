// Tests of the engine's instantiations (engine_features.hpp): which models the core runs
// (uses_core_only), and that the core gives the whole engine's bits on every model it runs.
#include <filesystem>
#include <gtest/gtest.h>
#include <string>
#include <vector>

#include "gpucap/compile.hpp"
#include "gpucap/metrics.hpp"
#include "gpucap/replication.hpp"
#include "gpucap/scenario_loader.hpp"

#include "support/same_bits.hpp"
#include "support/scenario_fixture.hpp"

namespace gpucap {
namespace {

using testing_support::same_bits;

/// Scalars, pool rows and time series of replication `rep`, with the engine's instantiation F.
template <typename F>
std::vector<double> run_with(const CompiledModel& model, uint64_t rep) {
  std::vector<uint64_t> arena((replication_arena_bytes(model) + 7) / 8);
  std::vector<double> out(kScalarMetricCount + model.pool_count * kPoolMetricCount +
                          model.pool_count * model.timeseries_bins);
  double* pools = out.data() + kScalarMetricCount;
  double* series = pools + model.pool_count * kPoolMetricCount;
  EXPECT_EQ(run_replication_with<F>(model, 11, rep, arena.data(), out.data(), pools,
                                    model.timeseries_bins ? series : nullptr),
            kReplicationOk);
  return out;
}

/// Runs replications 0..n-1 both ways and expects the same bits in every value.
void expect_core_gives_the_engines_bits(const CompiledModel& model, uint64_t n,
                                        const std::string& what) {
  ASSERT_TRUE(model.core_only) << what;
  for (uint64_t rep = 0; rep < n; ++rep) {
    const std::vector<double> core = run_with<engine::CoreFeatures>(model, rep);
    const std::vector<double> all = run_with<engine::AllFeatures>(model, rep);
    ASSERT_TRUE(same_bits(core, all)) << what << ", replication " << rep;
    EXPECT_GT(core[kEvents], 0) << what;
  }
}

class EngineFeatures : public testing_support::ScenarioFixture {};

// A model of every core part at once: three pools in an order that is not the pools' (so
// placement walks the list) and one in order (placement by the mask), gangs, priorities,
// backfill, a bounded waiting room that drops, provisioning delays, billing increments and
// minimums, a committed pool, a warm-up, an hourly profile, checkpoints without reclaims,
// deadlines and several distributions.
const char* kCoreModel = R"(name: every core part
horizon: 6d
warmup: 12h
pools:
  od-a: {gpu: H100, price_usd_per_gpu_hour: 3.0, quota: 16, billing_increment: 1min,
         billing_minimum: 10min, provisioning_delay: {dist: lognormal, median: 2min, sigma: 0.5}}
  od-b: {gpu: A100-80GB, price_usd_per_gpu_hour: 1.8, quota: 8, speed: 0.5,
         billing_increment: 1h}
  reserved: {gpu: H100, purchase: reserved, price_usd_per_gpu_hour: 2.0, count: 8}
workloads:
  - name: gangs
    gpus: 8
    priority: 5
    arrivals: {process: poisson, rate_per_hour: 0.6}
    work: {dist: lognormal, median: 3h, sigma: 0.7}
    checkpoint: {interval: 1h, write: 3min, restart: 5min}
    deadline: 12h
    placement: [reserved, od-a, od-b]
  - name: singles
    gpus: 1
    arrivals: {process: nhpp, rate_per_hour: 6,
               hourly_profile: [0.2, 0.2, 0.3, 0.5, 0.8, 1.2, 1.6, 1.8, 1.8, 1.6, 1.2, 0.8,
                                0.6, 0.5, 0.5, 0.6, 0.8, 1.2, 1.6, 1.8, 1.6, 1.2, 0.6, 0.3]}
    work: {dist: gamma, mean: 40min, cv: 1.3}
    placement: [od-a, od-b, reserved]
  - name: sweeps
    gpus: 2
    arrivals: {process: poisson, rate_per_hour: 1.5}
    work: {dist: weibull, shape: 0.7, scale: 1h}
    placement: [od-a, od-b]
policy: {queue: priority, backfill: true, queue_capacity: 40}
)";

TEST_F(EngineFeatures, CoreGivesTheBitsOfTheWholeEngine) {
  const ModelStorage storage = compile(parse(kCoreModel));
  expect_core_gives_the_engines_bits(storage.model(), 24, "every core part");
  // The same model under each other discipline, without backfill, and without a warm-up.
  for (const std::vector<std::string>& overrides : {std::vector<std::string>{"policy.queue=fifo"},
                                                    {"policy.queue=shortest_job_first"},
                                                    {"policy.backfill=false"},
                                                    {"warmup=0s"}}) {
    const ModelStorage variant = compile(parse(kCoreModel, overrides));
    expect_core_gives_the_engines_bits(variant.model(), 8, overrides[0]);
  }
}

TEST_F(EngineFeatures, CoreGivesTheBitsOfTheWholeEngineOnManyClassesAndPools) {
  // 40 classes (a winner tree of 64 leaves) over 40 pools in order (placement by the mask
  // below 64 pools) and 70 pools (past the mask: placement walks the list).
  for (const int pools : {40, 70}) {
    std::string text = "name: many\nhorizon: 2d\npools:\n";
    for (int p = 0; p < pools; ++p)
      text += "  p" + std::to_string(p) + ": {gpu: H100, price_usd_per_gpu_hour: 2.0, quota: 2}\n";
    text += "workloads:\n";
    for (int c = 0; c < 40; ++c)
      text += "  - {name: c" + std::to_string(c) + ", gpus: " + std::to_string(1 + c % 2) +
              ", arrivals: {process: poisson, rate_per_hour: " + std::to_string(pools / 20.0) +
              "}, work: {dist: exponential, mean: 1h}}\n";
    const ModelStorage storage = compile(parse(text));
    expect_core_gives_the_engines_bits(storage.model(), 4, std::to_string(pools) + " pools");
  }
}

TEST_F(EngineFeatures, EachOptionalPartLeavesTheCore) {
  const std::string base =
      "name: base\nhorizon: 1d\nregions: {east: {}, west: {latency_ms: {east: 40}, "
      "bandwidth_gbps: {east: 10}}}\n"
      "pools:\n  od: {gpu: H100, region: east, price_usd_per_gpu_hour: 2.0, quota: 8}\n";
  const std::string job =
      "workloads:\n  - name: jobs\n    arrivals: {process: poisson, "
      "rate_per_hour: 2}\n    work: {dist: exponential, mean: 1h}\n";
  EXPECT_TRUE(compile(parse(base + job)).model().core_only);
  const std::string spot =
      "  spot: {gpu: H100, region: east, purchase: spot, price_usd_per_gpu_hour: 1.0, "
      "quota: 8";
  const std::string od2 = "  od2: {gpu: H100, region: east, price_usd_per_gpu_hour: 3.0, quota: 8";
  const std::vector<std::pair<std::string, std::string>> parts = {
      {"a preemptible pool", base + spot +
                                 ", preemption: {time_to_preemption: {dist: "
                                 "exponential, mean: 5h}}}\n" +
                                 job},
      {"stockouts", base + od2 + ", stockout: {probability: 0.1}}\n" + job},
      {"a price process",
       base + od2 +
           ", price_process: {model: mean_reverting, "
           "volatility_per_sqrt_hour: 0.1, reversion_per_hour: 0.1, step: 1h}}\n" +
           job},
      {"a time series", base + "timeseries: {step: 1h}\n" + job},
      {"data in another region", base + job + "    data: {region: west, size_gb: 50}\n"},
      {"a placement limit", base +
                                "  od2: {gpu: H100, region: east, price_usd_per_gpu_hour: "
                                "3.0, quota: 8}\n" +
                                job + "    placement_limit: {pool: od2, jobs: 1}\n"},
  };
  for (const auto& [what, text] : parts) {
    Scenario s;
    try {
      s = parse(text);
    } catch (const ScenarioError& e) {
      ADD_FAILURE() << what << ": " << e.what();
      continue;
    }
    EXPECT_FALSE(compile(s).model().core_only) << what;
  }
  // A model put together by hand is never taken for a core model.
  EXPECT_FALSE(CompiledModel{}.core_only);
}

// Placement by the mask of pools with a free GPU visits the pools the walk of the placement
// list would, in its order, with the same launch checks and stockout draws: the same bits
// with every class's placement_mask cleared (the walk), on models with gangs, stockouts and
// preemptible pools in pool order (four or more: a mask), and with a list not in pool order
// (no mask).
TEST_F(EngineFeatures, PlacementByMaskGivesTheBitsOfTheWalk) {
  std::string many = "name: many\nhorizon: 2d\npools:\n";
  for (int p = 0; p < 40; ++p)
    many += "  p" + std::to_string(p) + ": {gpu: H100, price_usd_per_gpu_hour: 2.0, quota: 4}\n";
  many +=
      "workloads:\n  - {name: a, gpus: 1, arrivals: {process: poisson, rate_per_hour: 40}, "
      "work: {dist: exponential, mean: 1h}}\n  - {name: b, gpus: 3, arrivals: {process: "
      "poisson, rate_per_hour: 8}, work: {dist: exponential, mean: 1h}}\n";
  const std::string checks = R"(name: checks
horizon: 3d
pools:
  spot: {gpu: H100, purchase: spot, price_usd_per_gpu_hour: 1.0, quota: 16, stockout: {probability: 0.3},
         preemption: {time_to_preemption: {dist: exponential, mean: 3h}}}
  od-a: {gpu: H100, price_usd_per_gpu_hour: 3.0, quota: 8, stockout: {probability: 0.2}}
  od-b: {gpu: H100, price_usd_per_gpu_hour: 4.0, quota: 8}
  od-c: {gpu: H100, price_usd_per_gpu_hour: 5.0, quota: 4, stockout: {probability: 0.1}}
workloads:
  - {name: a, gpus: 4, arrivals: {process: poisson, rate_per_hour: 3}, work: {dist: exponential, mean: 2h},
     fallback: {after_preemptions: 2}}
  - {name: b, gpus: 1, arrivals: {process: poisson, rate_per_hour: 6}, work: {dist: exponential, mean: 1h},
     placement: [od-b, spot]}
)";
  for (const std::string& text : {many, checks}) {
    const ModelStorage storage = compile(parse(text));
    const CompiledModel& model = storage.model();
    std::vector<CompiledJobClass> walking(model.classes, model.classes + model.class_count);
    int masks = 0;
    for (CompiledJobClass& c : walking) {
      masks += c.placement_mask != 0;
      c.placement_mask = 0;
    }
    EXPECT_GE(masks, 1);  // some class places by the mask
    CompiledModel walk = model;
    walk.classes = walking.data();
    for (uint64_t rep = 0; rep < 6; ++rep)
      ASSERT_TRUE(same_bits(run_with<engine::AllFeatures>(model, rep),
                            run_with<engine::AllFeatures>(walk, rep)))
          << model.pool_count << " pools, replication " << rep;
  }
}

// Every shipped scenario the core runs gives the whole engine's bits (the others run the
// whole engine only, so they cannot differ).
TEST(EngineFeaturesShipped, CoreScenariosGiveTheBitsOfTheWholeEngine) {
  int core = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(GPUCAP_SOURCE_DIR) + "/scenarios")) {
    if (entry.path().extension() != ".yaml") continue;
    const ModelStorage storage = compile(load_scenario(entry.path().string()));
    if (!storage.model().core_only) continue;
    ++core;
    expect_core_gives_the_engines_bits(storage.model(), 6, entry.path().filename().string());
  }
  EXPECT_GE(core, 3);  // default, mmc_validation, mg1_validation at least
}

}  // namespace
}  // namespace gpucap
