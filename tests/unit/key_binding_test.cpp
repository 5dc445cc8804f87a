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
pools:
  p:
    gpu: H100
    quota: 64
    price_usd_per_gpu_hour: 2
    speed: 1.5
    gpus_per_node: 8
    billing_increment: 1min
    billing_minimum: 10min
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
  const JobClassSpec& jobs = s.workloads[0];
  EXPECT_EQ(jobs.gpus, 4u);
  EXPECT_EQ(jobs.priority, 3);
  EXPECT_EQ(jobs.vram_gb, 40.0);
  EXPECT_EQ(jobs.deadline_s, 6 * 3600.0);
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
  int pool = 0, job_class = 0, service = 0;
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
    // The same key in two tables binds the same way.
    for (const ScenarioKey* other : scenario_key_rows(k.path)) {
      EXPECT_EQ(other->binding.target, k.binding.target) << k.path;
      EXPECT_EQ(other->binding.store, k.binding.store) << k.path;
    }
  }
  EXPECT_GE(pool, 5);
  EXPECT_GE(job_class, 4);
  EXPECT_GE(service, 4);
}

TEST(KeyBinding, ABoundKeyOutOfRangeSaysWhereAndWhatIsValid) {
  std::string text = kScenario;
  text.replace(text.find("concurrency: 4"), 14, "concurrency: 0");
  try {
    parse_scenario(text, "bound.yaml", "");
    FAIL() << "concurrency 0 was accepted";
  } catch (const ScenarioError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("bound.yaml:32:18: workloads[1].concurrency: must be a whole number from 1 to 4096, got \"0\""),
              std::string::npos)
        << m;
  }
  // An override reaches a bound key as any other.
  const Scenario s = parse_scenario(kScenario, "bound.yaml", "", {"pools.p.speed=0.5"});
  EXPECT_EQ(s.pools[s.pool_index("p")].speed, 0.5);
}

}  // namespace
