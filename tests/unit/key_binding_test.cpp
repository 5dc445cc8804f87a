// Plain keys filled through their rows' bindings (KeyRow::binds, read_plain_keys): each bound
// key lands in its field, with its range and its place in messages.
#include <gtest/gtest.h>

#include <string>

#include "gpucap/scenario_keys.hpp"
#include "gpucap/scenario_loader.hpp"

namespace {

using namespace gpucap;

const char* kScenario = R"(name: bound
horizon: 1d
timeseries: {step: 1h}
records: {jobs: 3}
replications: 4
policy: {backfill: true}
regions: {r: {}}
pools:
  p:
    gpu: H100
    quota: 64
    region: r
    price_usd_per_gpu_hour: 2
    speed: 1.5
    gpus_per_node: 8
    billing_increment: 1min
    billing_minimum: 10min
    stockout: {probability: 0.25}
    interconnect: {latency: 5us, bandwidth_gbps: 400}
  sp:
    gpu: H100
    quota: 8
    purchase: spot
    price_usd_per_gpu_hour: 1
    preemption: {max_runtime: 6h, notice: 30s}
  s:
    gpu: L4
    purchase: serverless
    price_usd_per_gpu_second: 0.0002
    bill_idle: false
workloads:
  - name: jobs
    gpus: 4
    priority: 3
    vram_gb: 40
    deadline: 6h
    arrivals: {process: poisson, rate_per_hour: 2}
    work: 1h
    placement: [p]
    data: {size_gb: 12.5, region: r}
    sync: {step: 2s, gradient_gb: 3}
  - name: svc
    kind: inference
    pool: s
    gpus: 2
    vram_gb: 16
    model_gb: 30
    concurrency: 4
    queue_capacity: 50
    response_kb: 12
    arrivals: {process: poisson, rate_per_s: 1}
    service: 200ms
    autoscaling: {max_replicas: 3, idle_timeout: 5min}
)";

TEST(KeyBinding, EveryBoundKeyLandsInItsField) {
  const Scenario s = parse_scenario(kScenario, "bound.yaml", "");
  const PoolSpec& p = s.pools[s.pool_index("p")];
  EXPECT_EQ(p.speed, 1.5);
  EXPECT_EQ(p.gpus_per_node, 8u);
  EXPECT_EQ(p.billing_increment_s, 60.0);
  EXPECT_EQ(p.billing_minimum_s, 600.0);
  EXPECT_TRUE(p.bills_idle);  // the default where the key is absent
  EXPECT_FALSE(s.pools[s.pool_index("s")].bills_idle);
  EXPECT_EQ(p.stockout_probability, 0.25);
  EXPECT_DOUBLE_EQ(p.interconnect_latency_s, 5e-6);  // 5 us: 5 times 1e-6 s
  EXPECT_EQ(p.interconnect_gbps, 400.0);
  const PoolSpec& sp = s.pools[s.pool_index("sp")];
  EXPECT_EQ(sp.max_runtime_s, 6 * 3600.0);
  EXPECT_EQ(sp.notice_s, 30.0);
  EXPECT_EQ(s.timeseries_step_s, 3600.0);
  EXPECT_EQ(s.record_jobs, 3u);
  EXPECT_TRUE(s.policy.backfill);
  const JobClassSpec& jobs = s.workloads[0];
  EXPECT_EQ(jobs.gpus, 4u);
  EXPECT_EQ(jobs.priority, 3);
  EXPECT_EQ(jobs.vram_gb, 40.0);
  EXPECT_EQ(jobs.deadline_s, 6 * 3600.0);
  EXPECT_EQ(jobs.data_gb, 12.5);
  EXPECT_EQ(jobs.sync_step_s, 2.0);
  EXPECT_EQ(jobs.sync_gradient_gb, 3.0);
  const JobClassSpec& svc = s.workloads[1];
  EXPECT_EQ(svc.gpus, 2u);
  EXPECT_EQ(svc.vram_gb, 16.0);
  EXPECT_EQ(svc.service.model_gb, 30.0);
  EXPECT_EQ(svc.service.concurrency, 4u);
  EXPECT_EQ(svc.service.target_concurrency, 4.0);  // follows concurrency unless given
  EXPECT_EQ(svc.service.queue_capacity, 50u);
  EXPECT_EQ(svc.service.response_kb, 12.0);
}

TEST(KeyBinding, BoundRowsAreScalarsAndEveryTargetIsUsed) {
  int pool = 0, job_class = 0, service = 0, policy = 0, scenario = 0, required = 0;
  for (const ScenarioKey& k : scenario_keys()) {
    if (k.binding.target == KeyTarget::none) {
      EXPECT_EQ(k.binding.store, nullptr) << k.path;
      continue;
    }
    EXPECT_NE(k.binding.store, nullptr) << k.path;
    EXPECT_TRUE(k.type == KeyType::number || k.type == KeyType::integer ||
                k.type == KeyType::duration || k.type == KeyType::boolean)
        << k.path;
    pool += k.binding.target == KeyTarget::pool;
    job_class += k.binding.target == KeyTarget::job_class;
    service += k.binding.target == KeyTarget::service;
    policy += k.binding.target == KeyTarget::policy;
    scenario += k.binding.target == KeyTarget::scenario;
    // A required key says so in the docs, and says what to give.
    if (k.binding.required) {
      ++required;
      EXPECT_STREQ(k.default_text, "*required*") << k.path;
      EXPECT_GT(std::string(k.binding.required).size(), 5u) << k.path;
    }
    // The same key in two tables binds the same way.
    for (const ScenarioKey* other : scenario_key_rows(k.path)) {
      EXPECT_EQ(other->binding.target, k.binding.target) << k.path;
      EXPECT_EQ(other->binding.store, k.binding.store) << k.path;
    }
  }
  EXPECT_GE(pool, 5);
  EXPECT_GE(job_class, 4);
  EXPECT_GE(service, 4);
  EXPECT_GE(policy, 1);
  EXPECT_GE(scenario, 2);
  EXPECT_GE(required, 6);
}

std::string error_of(const std::string& text) {
  try {
    parse_scenario(text, "bound.yaml", "");
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(KeyBinding, ARequiredKeyMissingOrEmptyIsNamedAtItsMapping) {
  std::string missing = kScenario;
  missing.replace(missing.find("stockout: {probability: 0.25}"), 29, "stockout: {retry_after: 1min}");
  EXPECT_NE(error_of(missing).find("bound.yaml:18:15: pools.p.stockout.probability: is required: "
                                   "the share of launches that fail, 0 to 1"),
            std::string::npos)
      << error_of(missing);
  std::string empty = kScenario;
  empty.replace(empty.find("gradient_gb: 3"), 14, "gradient_gb: ");
  EXPECT_NE(error_of(empty).find("workloads[0].sync.gradient_gb: is required: GB all-reduced "
                                 "after every step"),
            std::string::npos)
      << error_of(empty);
  // The first required key the table lists is named when several are missing.
  std::string neither = kScenario;
  neither.replace(neither.find("{latency: 5us, bandwidth_gbps: 400}"), 35, "{}");
  EXPECT_NE(error_of(neither).find("pools.p.interconnect.latency: is required"), std::string::npos)
      << error_of(neither);
}

TEST(KeyBinding, ABoundKeyOutOfRangeSaysWhereAndWhatIsValid) {
  std::string text = kScenario;
  text.replace(text.find("concurrency: 4"), 14, "concurrency: 0");
  try {
    parse_scenario(text, "bound.yaml", "");
    FAIL() << "concurrency 0 was accepted";
  } catch (const ScenarioError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("bound.yaml:48:18: workloads[1].concurrency: must be a whole number from 1 to 4096, got \"0\""),
              std::string::npos)
        << m;
  }
  // An override reaches a bound key as any other.
  const Scenario s = parse_scenario(kScenario, "bound.yaml", "", {"pools.p.speed=0.5"});
  EXPECT_EQ(s.pools[s.pool_index("p")].speed, 0.5);
}

}  // namespace
